// Package enginetest holds what the tests of the marginal engine's
// packages (engine/marginal and its domain and pgm parts) share: random
// records with one dependent pair, and the list of all attributes. It
// imports no engine package, so the domain's own tests can use it too.
package enginetest

import "github.com/dppub/dppub/randx"

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
