package dp

import (
	"fmt"
	"slices"
	"strings"
)

// Mechanism names a noise distribution in settings, flags and reports.
// Each method's package aliases it, so a flag value, a JSON field and a
// plan all carry the same typed word.
type Mechanism string

const (
	// MechanismLaplace: pure ε-DP noise calibrated to an L1 sensitivity.
	MechanismLaplace Mechanism = "laplace"
	// MechanismGaussian: zCDP or (ε, δ) noise calibrated to an L2
	// sensitivity.
	MechanismGaussian Mechanism = "gaussian"
)

var mechanisms = NewWords("mechanism", MechanismLaplace, MechanismGaussian)

// ParseMechanism checks a mechanism name.
func ParseMechanism(s string) (Mechanism, error) { return mechanisms.Parse(s) }

// Calibration says how a method scales its noise: to sensitivities dppub
// has proven (the default), as its paper wrote it (to reproduce the paper;
// reports state the true guarantee), or not at all (non-private
// baselines of the evaluations).
type Calibration string

const (
	CalibrationSound Calibration = "sound"
	CalibrationPaper Calibration = "paper"
	CalibrationNone  Calibration = "none"
)

// ParseCalibration checks a calibration name against the ones a method
// offers (default: sound and paper).
func ParseCalibration(s string, offered ...Calibration) (Calibration, error) {
	if len(offered) == 0 {
		offered = []Calibration{CalibrationSound, CalibrationPaper}
	}
	return NewWords("calibration", offered...).Parse(s)
}

// Words is a typed vocabulary declared once: what its words are called
// in messages, and the allowed values in the order an error lists them.
// Each typed word (privacy unit, noise mode, optimizer, selection
// mechanism, …) declares its Words beside its constants, and its Parse
// and Check are one line over them.
type Words[T ~string] struct {
	what   string
	prefix string
	values []T
}

// NewWords declares the vocabulary of the values, called what in errors.
func NewWords[T ~string](what string, values ...T) Words[T] {
	return Words[T]{what: what, values: values}
}

// In returns the vocabulary with its errors prefixed by pkg (the package
// that declares it, e.g. "mpcrdp").
func (v Words[T]) In(pkg string) Words[T] {
	v.prefix = pkg + ": "
	return v
}

// Parse returns s as a T when it is one of the words, and otherwise an
// error quoting s and listing them.
func (v Words[T]) Parse(s string) (T, error) {
	if slices.Contains(v.values, T(s)) {
		return T(s), nil
	}
	names := make([]string, len(v.values))
	for i, a := range v.values {
		names[i] = string(a)
	}
	return "", fmt.Errorf("%sunknown %s %q (want %s)", v.prefix, v.what, s, strings.Join(names, " or "))
}

// Check reports whether w is one of the words.
func (v Words[T]) Check(w T) error {
	_, err := v.Parse(string(w))
	return err
}

// Unit is the privacy unit: what two neighbouring datasets differ in, so
// what one guarantee protects.
type Unit string

const (
	// UnitRecord: one record replaced (datasets of equal size, n public).
	UnitRecord Unit = "record"
	// UnitIndividual: one person's values at every party replaced (the
	// parties' joined records differ in one ID's record).
	UnitIndividual Unit = "individual"
	// UnitPartyColumns: one record's values in one party's columns
	// replaced; personalised budgets guarantee each party this unit, and a
	// whole individual only the sum over the releases.
	UnitPartyColumns Unit = "party-columns"
)

var units = NewWords("privacy unit", UnitRecord, UnitIndividual, UnitPartyColumns)

// ParseUnit checks a privacy unit's name.
func ParseUnit(s string) (Unit, error) { return units.Parse(s) }

// Neighbouring says in words which datasets are neighbours under u.
func (u Unit) Neighbouring() string {
	switch u {
	case UnitIndividual:
		return "replace one individual: all of their attributes at every party (joined datasets of equal size differing in one ID's record)"
	case UnitPartyColumns:
		return "replace one record's values in one party's columns (each party's personalised budget covers its own columns; a whole record is covered at the report's whole_record guarantee)"
	}
	return "replace one record (datasets of equal size differing in one row)"
}

// EnumName is the name of value v of an integer enumeration whose values
// 0, 1, … are called names ("" for a value without a name, as the unused
// zero of an enumeration starting at iota + 1), or typ(v): the String of
// every integer enumeration.
func EnumName(typ string, v int, names ...string) string {
	if v >= 0 && v < len(names) && names[v] != "" {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", typ, v)
}

// String returns the word as flags and JSON spell it.
func (m Mechanism) String() string { return string(m) }

// String returns the word as flags and JSON spell it.
func (c Calibration) String() string { return string(c) }

// String returns the word as flags and JSON spell it.
func (u Unit) String() string { return string(u) }
