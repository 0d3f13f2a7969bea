package ppca

import (
	"fmt"
	"math"
)

// RowBounds are the public bounds on one encoded row x ∈ [0,1]^P: the
// columns form groups, a group of size 1 being a scalar in [0,1] and a
// larger group a one-hot block with exactly one 1. They come from the
// schema, never from the data.
type RowBounds struct {
	P      int
	Groups []int
}

// GenericBounds treats every column as an independent scalar in [0,1], the
// setting of the paper and NOTES.md §1.
func GenericBounds(p int) RowBounds {
	g := make([]int, p)
	for i := range g {
		g[i] = 1
	}
	return RowBounds{P: p, Groups: g}
}

// Validate checks that the groups cover exactly P columns.
func (b RowBounds) Validate() error {
	total := 0
	for _, g := range b.Groups {
		if g < 1 {
			return fmt.Errorf("ppca: column group of size %d", g)
		}
		total += g
	}
	if b.P < 1 || total != b.P {
		return fmt.Errorf("ppca: column groups cover %d columns, want P=%d", total, b.P)
	}
	return nil
}

// Sensitivities of the sum Σx and of the upper triangle (diagonal
// included) of the outer-product sum Σxxᵀ when one record is replaced.
type Sensitivities struct {
	SumL1, SumL2     float64
	OuterL1, OuterL2 float64
}

// Sensitivities derives the replace-one sensitivities from the bounds.
//
// Let a be the number of groups; every row has ‖x‖₁ ≤ a and ‖x‖₂² ≤ a.
//
//   - Σx: one scalar column moves by at most 1 and a one-hot group by
//     1 in L∞ on two columns, so ‖Δ‖₁ ≤ Σ_g w_g (w = 1 scalar, 2 one-hot)
//     and ‖Δ‖₂² ≤ Σ_g w_g.
//   - upper triangle of Σxxᵀ, L1: Σ_{i≤j}|x_i x_j − x'_i x'_j| ≤
//     ((Σx)² + Σx²)/2 + ((Σx')² + Σx'²)/2 ≤ a² + a, and entrywise at most
//     p(p+1)/2 (NOTES §1).
//   - upper triangle, L2: Σ_{i≤j} d_ij² = (‖D‖_F² + Σ d_ii²)/2 with
//     D = xxᵀ − x'x'ᵀ; for non-negative rows ‖D‖_F² ≤ ‖x‖⁴ + ‖x'‖⁴ ≤ 2a²
//     and Σ d_ii² ≤ 2a, so ≤ √(a² + a); entrywise at most √(p(p+1)/2).
//
// For GenericBounds (a = p) this is the paper setting's true sensitivity:
// p(p+1)/2 in L1, not the paper's p.
func (b RowBounds) Sensitivities() Sensitivities {
	a := float64(len(b.Groups))
	w := 0.0
	for _, g := range b.Groups {
		if g == 1 {
			w++
		} else {
			w += 2
		}
	}
	p := float64(b.P)
	return Sensitivities{
		SumL1:   math.Min(w, p),
		SumL2:   math.Sqrt(math.Min(w, p)),
		OuterL1: math.Min(a*a+a, p*(p+1)/2),
		OuterL2: math.Min(math.Sqrt(a*a+a), math.Sqrt(p*(p+1)/2)),
	}
}

// PaperSensitivity is the sensitivity the paper asserts for both the mean
// and the second-moment sums (Theorem 4: p/n_i on the means, p on the sums).
func PaperSensitivity(p int) float64 { return float64(p) }

// GroupOf returns, for every column, the index of its group.
func (b RowBounds) GroupOf() []int {
	g := make([]int, 0, b.P)
	for k, size := range b.Groups {
		for i := 0; i < size; i++ {
			g = append(g, k)
		}
	}
	return g
}

// StructuralZeros marks the packed entries (Σx, then the upper triangle of
// Σxxᵀ row by row) that are zero for every possible dataset: x_i·x_j for
// two different columns of one one-hot group. They carry no information
// about anyone, so the sound calibration releases them exactly, without
// noise, at no privacy cost (their sensitivity is 0).
func (b RowBounds) StructuralZeros() []bool {
	group := b.GroupOf()
	zero := make([]bool, b.P+b.P*(b.P+1)/2)
	k := b.P
	for i := 0; i < b.P; i++ {
		for j := i; j < b.P; j++ {
			zero[k] = i != j && group[i] == group[j]
			k++
		}
	}
	return zero
}
