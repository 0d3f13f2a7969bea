// Package enginetest holds what the tests of the marginal engine's
// packages (engine/marginal and its domain and pgm parts) share: random
// records with one dependent pair, and the list of all attributes. It
// imports no engine package, so the domain's own tests can use it too.
package enginetest

import (
	"math"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/randx"
)

// RandomColumns draws n records over sizes, column by column as a
// Dataset holds them; attribute 1 copies attribute 0 (mod its size) with
// probability corr, so pairs (0, 1) are dependent. The draws are made
// record by record (each attribute, then the copy), so a seed gives the
// tests' pinned tables.
func RandomColumns(sizes []int, n int, corr float64, src *randx.Source) [][]uint16 {
	cols := make([][]uint16, len(sizes))
	for j := range cols {
		cols[j] = make([]uint16, n)
	}
	for i := range n {
		for j, s := range sizes {
			cols[j][i] = uint16(src.IntN(s))
		}
		if len(sizes) > 1 && src.Float64() < corr {
			cols[1][i] = cols[0][i] % uint16(sizes[1])
		}
	}
	return cols
}

// AllAttrs lists the attributes 0, …, d−1.
func AllAttrs(d int) []int {
	a := make([]int, d)
	for j := range a {
		a[j] = j
	}
	return a
}

// EqualWidthEdges are the lower edges of bins equal-width bins over a's
// declared [Min, Max] as np.histogram(x, bins, range=(Min, Max)) cuts
// them; for an integer attribute the first integer on or above each edge.
func EqualWidthEdges(a data.Attribute, bins int) []float64 {
	out := []float64{a.Min}
	for k := 1; k < bins; k++ {
		e := a.Min + float64(k)*(a.Max-a.Min)/float64(bins)
		if a.Integer {
			e = math.Ceil(e - 1e-9)
		}
		if e > out[len(out)-1] {
			out = append(out, e)
		}
	}
	return out
}

// EqualWidthBin is the bin of v among bins equal-width bins over a's
// declared range (np.histogram's convention, the harness's in
// docs/results/synthesis: an integer attribute with at most bins values
// gets one bin per value).
func EqualWidthBin(a data.Attribute, v float64, bins int) int {
	v = math.Min(math.Max(v, a.Min), a.Max)
	if a.Integer && a.Max-a.Min+1 <= float64(bins) {
		return int(math.Round(v - a.Min))
	}
	b := int(math.Floor((v - a.Min) / (a.Max - a.Min) * float64(bins)))
	return min(max(b, 0), bins-1)
}

// TVD is the total variation distance between two tables' normalised
// counts (the cells of r and s in the same order).
func TVD(r, s []float64) float64 {
	tr, ts := sum(r), sum(s)
	x := 0.0
	for c := range r {
		x += math.Abs(r[c]/tr - s[c]/ts)
	}
	return x / 2
}

func sum(v []float64) float64 {
	s := 0.0
	for _, c := range v {
		s += c
	}
	return s
}

// Pixel is a pixel of sklearn's digits (8×8 images): integers 0..16.
var Pixel = data.Attribute{Name: "p35", Kind: data.Numeric, Min: 0, Max: 16, Integer: true}

// P35 and P34 are the training counts of two pixels of sklearn's digits
// (docs/results/synthesis/tables.py's split, 1 438 rows), values 0..16.
var (
	P35 = []float64{293, 75, 70, 62, 69, 52, 45, 69, 70, 57, 64, 53, 69, 62, 54, 86, 188}
	P34 = []float64{248, 46, 25, 23, 32, 31, 26, 32, 48, 50, 45, 53, 75, 83, 103, 129, 389}
)
