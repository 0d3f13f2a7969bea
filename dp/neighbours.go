package dp

import (
	"cmp"
	"fmt"
	"slices"
)

// Neighbours is the neighbouring relation of record-level privacy: which
// two datasets one guarantee must not tell apart. Settings, flags, plans
// and reports carry this one typed word.
type Neighbours string

const (
	// NeighboursReplaceOne: datasets of equal size that differ in one
	// record's values. The record count n is the same for both, so it is
	// public and used without noise; a count vector moves by L1 2 / L2 √2.
	// dppub's default.
	NeighboursReplaceOne Neighbours = "replace-one"
	// NeighboursAddRemove: one dataset is the other with one record added
	// (the convention of AIM, MST and most of the literature). n differs
	// between them, so it is private: it is released with noise and
	// charged like any other statistic; a count vector moves by L1 1 / L2 1.
	// A replacement is a removal then an addition, so a ρ-zCDP guarantee
	// under add/remove gives 4ρ under replace-one (group privacy of two,
	// Bun & Steinke 2016, Prop. 1.9), and ε-DP gives 2ε.
	NeighboursAddRemove Neighbours = "add-remove"
)

var neighbours = NewWords("neighbouring relation", NeighboursReplaceOne, NeighboursAddRemove)

// Or is nb, or NeighboursReplaceOne when nb is unset: the relation a
// setting left empty means.
func (nb Neighbours) Or() Neighbours { return cmp.Or(nb, NeighboursReplaceOne) }

// Check reports whether nb is empty (the default) or a known relation.
func (nb Neighbours) Check() error {
	if nb == "" {
		return nil
	}
	return neighbours.Check(nb)
}

// PublicCount reports whether the record count is the same for every
// neighbour, and so public.
func (nb Neighbours) PublicCount() bool { return nb.Or() == NeighboursReplaceOne }

// Describe names the relation as reports' headlines state it.
func (nb Neighbours) Describe() string {
	if nb.Or() == NeighboursAddRemove {
		return "add/remove neighbours"
	}
	return "replace-one neighbours, n public"
}

// Neighbouring says in words which datasets are neighbours under nb, for
// a report whose privacy unit is a record.
func (nb Neighbours) Neighbouring() string {
	if nb.Or() == NeighboursAddRemove {
		return "add or remove one record (datasets differing by one row; the record count is private and released with noise)"
	}
	return UnitRecord.Neighbouring()
}

// Only returns nil when nb (empty meaning replace-one) is one of the
// relations command supports, and otherwise an error naming the flag and
// the relations it accepts: a command whose sensitivities are derived for
// replace-one only refuses add/remove rather than guess.
func (nb Neighbours) Only(command string, supported ...Neighbours) error {
	if slices.Contains(supported, nb.Or()) {
		return nil
	}
	return fmt.Errorf("%s does not support --neighbours %s (supported: %v): its sensitivities are derived for those relations only", command, nb, supported)
}

// String returns the word as flags and JSON spell it.
func (nb Neighbours) String() string { return string(nb) }

// ParseNeighbours checks a neighbouring relation's name.
func ParseNeighbours(s string) (Neighbours, error) { return neighbours.Parse(s) }
