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
// setting of the paper (docs/errata.md#ppca-second-moment-sensitivity).
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

// Sensitivities derives the replace-one sensitivities from the bounds,
// for the upper triangle of Σxxᵀ without the diagonal entries of one-hot
// columns (OneHotDiagonal: x_i² = x_i there, so they repeat Σx and are
// filled in from its release instead of being released again).
//
// Let a be the number of groups, h of them one-hot and s = a − h scalar;
// every row has ‖x‖₁ ≤ a and ‖x‖₂² ≤ a, and Σ_{one-hot i} x_i² = h.
//
//   - Σx: one scalar column moves by at most 1 and a one-hot group by
//     1 in L∞ on two columns, so ‖Δ‖₁ ≤ Σ_g w_g (w = 1 scalar, 2 one-hot)
//     and ‖Δ‖₂² ≤ Σ_g w_g.
//   - released upper triangle, L1: the entries of one row sum to
//     Σ_{i<j} x_i x_j + Σ_{scalar i} x_i² = ((Σx)² − h + Σ_{scalar} x_i²)/2
//     ≤ (a² − h + s)/2, so a replaced row moves them by at most a² − h + s
//     (a² + a with the one-hot diagonal), and entrywise at most p(p+1)/2
//     (docs/errata.md#ppca-second-moment-sensitivity).
//   - released upper triangle, L2: with D = xxᵀ − x'x'ᵀ it is
//     (‖D‖_F² + Σ_i d_ii²)/2 − Σ_{one-hot i} d_ii²; for non-negative rows
//     ‖D‖_F² ≤ ‖x‖⁴ + ‖x'‖⁴ ≤ 2a², and Σ_{scalar} d_ii² − Σ_{one-hot}
//     d_ii² ≤ 2s, so ≤ √(a² + s); entrywise at most √(p(p+1)/2).
//
// For GenericBounds (a = s = p) this is the paper setting's true
// sensitivity: p(p+1)/2 in L1, not the paper's p.
func (b RowBounds) Sensitivities() Sensitivities {
	a := float64(len(b.Groups))
	w, h := 0.0, 0.0
	for _, g := range b.Groups {
		if g == 1 {
			w++
		} else {
			w += 2
			h++
		}
	}
	s := a - h
	p := float64(b.P)
	return Sensitivities{
		SumL1:   math.Min(w, p),
		SumL2:   math.Sqrt(math.Min(w, p)),
		OuterL1: math.Min(a*a-h+s, p*(p+1)/2),
		OuterL2: math.Min(math.Sqrt(a*a+s), math.Sqrt(p*(p+1)/2)),
	}
}

// PaperOuterL1 is the replace-one L1 sensitivity of the whole upper
// triangle of Σxxᵀ, every diagonal entry included, as the paper's
// calibration releases it (Sensitivities leaves out the one-hot
// diagonal, which the sound calibration does not release).
//
// Derivation, with h one-hot groups and s scalar columns: replace row x
// (scalars v ∈ [0,1]^s) by x' (scalars y), and split the triangle's
// entries by the kind of their two columns.
//   - Both one-hot: each row has a 1 on exactly the h(h+1)/2 pairs of its
//     own categories, so they move by at most h(h+1) (rows on different
//     categories in every group).
//   - A scalar i and a one-hot group: x has v_i on the entry of its
//     category and 0 elsewhere in the group, x' has y_i on its own, so
//     they move by at most v_i + y_i ≤ 2, and 2hs in all.
//   - Both scalar: each entry lies in [0,1], so they move by at most
//     s(s+1)/2.
//
// Hence ≤ h(h+1) + 2hs + s(s+1)/2; every entry moves by at most 1, so
// also ≤ p(p+1)/2, the bound of GenericBounds (h = 0, s = p, where both
// agree). The first two terms are attained (every scalar 1 in both rows,
// different categories), so the true supremum lies between
// h(h+1) + 2hs and this bound. On Adult's encoding (p = 106 columns: 8
// one-hot groups and 7 scalars) it is 72 + 112 + 28 = 212, the supremum
// at least 184; the plain bound a² + a over a = 15 groups gives 240 and
// the generic one 5671.
func (b RowBounds) PaperOuterL1() float64 {
	h, s := b.groupKinds()
	p := float64(b.P)
	return math.Min(h*(h+1)+2*h*s+s*(s+1)/2, p*(p+1)/2)
}

// groupKinds counts the one-hot groups h and the scalar columns s.
func (b RowBounds) groupKinds() (h, s float64) {
	for _, g := range b.Groups {
		if g == 1 {
			s++
		} else {
			h++
		}
	}
	return h, s
}

// OneHotDiagonal maps each packed entry (Σx, then the upper triangle of
// Σxxᵀ row by row) that is the diagonal Σx_i² of a one-hot column i to i,
// and every other entry to −1: on every dataset the bounds allow such an
// entry equals Σx_i, so the sound calibration does not release it and the
// curator copies the noisy Σx_i into it (post-processing).
func (b RowBounds) OneHotDiagonal() []int {
	group := b.GroupOf()
	derived := make([]int, b.P+b.P*(b.P+1)/2)
	for k := range derived {
		derived[k] = -1
	}
	k := b.P // Σx_i² opens row i of the upper triangle
	for i := 0; i < b.P; i++ {
		if b.Groups[group[i]] > 1 {
			derived[k] = i
		}
		k += b.P - i
	}
	return derived
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
