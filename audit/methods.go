package audit

import (
	"fmt"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// MethodOptions are the settings of a named audit; zero values take the
// method's defaults.
type MethodOptions struct {
	Calibration string
	Epsilon     float64
	Delta       float64
	// P is the number of columns (ppca-dp-mh).
	P int
	// Part is the audited part of the owner's message (ppca-dp-mh).
	Part string
	// Mechanism is ppca-dp-mh's noise, laplace (default) or gaussian,
	// dppca's method, dppca-svm (default), ag-svm or mod-sulq-svm, or
	// exponential's selection, permute-and-flip (default) or exponential.
	Mechanism string
	// Owners configures zero-sum and mul-lda-dp, View zero-sum and the
	// view audits, Noise mul-lda-dp (correlated or independent).
	Owners int
	View   View
	Noise  string
	// D and DPrime are a custom neighbouring pair (ppca-dp-mh).
	D, DPrime *mat.Dense
}

// Method is a named audit, as `dppub audit METHOD` runs it.
type Method struct {
	Name    string
	Summary string
	// Calibrations it accepts; the first is the default.
	Calibrations []string
	// FastRuns and LongRuns are the default releases per dataset per batch
	// in fast (CI) and long (release) mode.
	FastRuns, LongRuns int
	// RunsFactor, if set, multiplies the default runs for options that
	// audit a larger release (ppca-dp-mh's whole message).
	RunsFactor func(MethodOptions) int
	// Build makes the mechanism for options whose calibration is one of
	// Calibrations.
	Build func(MethodOptions) (Mechanism, error)
}

// Mechanism builds the method's mechanism for o.
func (m Method) Mechanism(o MethodOptions) (Mechanism, error) {
	if o.Calibration == "" {
		o.Calibration = m.Calibrations[0]
	}
	if !slices.Contains(m.Calibrations, o.Calibration) {
		return Mechanism{}, fmt.Errorf("audit: %s has no calibration %q (want %s)", m.Name, o.Calibration, strings.Join(m.Calibrations, " or "))
	}
	return m.Build(o)
}

// Runs is the default number of runs for o in fast or long mode.
func (m Method) Runs(o MethodOptions, long bool) int {
	n := m.FastRuns
	if long {
		n = m.LongRuns
	}
	if m.RunsFactor != nil {
		n *= m.RunsFactor(o)
	}
	return n
}

// Case is one audit of the suite with the verdict a correct
// implementation gives: PASS for every sound calibration, VIOLATION for
// the paper calibrations known to under-noise detectably. (The paper
// calibration of dppca's ag-svm also under-noises under replacement, but
// by too little to detect at affordable runs, so it is not in the suite.)
type Case struct {
	Method  string
	Options MethodOptions
	Expect  Verdict
	// Long cases run only before a release.
	Long bool
}
