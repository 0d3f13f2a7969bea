package marginal

import (
	"cmp"
	"slices"
)

// A derivation reads one of a clique's downward sums off another: when a
// cover's or a child's separator's attributes lie inside another such
// target's, summing the larger target's table onto them gives the same
// marginal (up to the order of the additions) at the cost of a pass over
// that table instead of over the clique. A clique with several children
// often has a child whose separator holds another's, or a cover inside a
// separator: on Adult at ρ = 0.5 the 188 160-cell root of a 2^20-cell
// model had eight downward sums, five of them derivable.
type derivation struct {
	// target and from index the clique's targets (Model.targets[c]);
	// via maps from's table onto target's.
	target, from int
	via          stride
}

// minDeriveRatio is how many times smaller than its clique a source table
// must be for a derivation to pay: a derivation costs a pass over the
// source and one over the clique is what it saves.
const minDeriveRatio = 4

// newDerivations returns clique c's derivations and marks the targets
// they derive in derived (indexed like m.targets[c]). Each target is
// derived, if at all, from the smallest target holding its attributes
// that is itself summed from the clique, so that no derivation waits on
// another.
func (m *Model) newDerivations(c int) ([]derivation, []bool) {
	tg := m.targets[c]
	attrs := make([][]int, len(tg))
	for i, k := range m.coversOf[c] {
		attrs[1+i] = m.covers[k].attrs
	}
	for j, kid := range m.tree.children[c] {
		attrs[1+len(m.coversOf[c])+j] = m.tree.sep[kid]
	}
	// Largest first, so a target's possible sources are decided before it.
	order := make([]int, 0, len(tg))
	for k := 1; k < len(tg); k++ {
		order = append(order, k)
	}
	size := func(k int) float64 { return tableCells(m.sizes, attrs[k]) }
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(size(b), size(a)) })
	derived := make([]bool, len(tg))
	var out []derivation
	var summed []int
	for _, k := range order {
		from := -1
		for _, s := range summed {
			if subset(attrs[k], attrs[s]) && size(s)*minDeriveRatio <= m.tree.size[c] && (from < 0 || size(s) < size(from)) {
				from = s
			}
		}
		if from < 0 {
			summed = append(summed, k)
			continue
		}
		derived[k] = true
		src := &Marginal{Attrs: attrs[from], Sizes: make([]int, len(attrs[from]))}
		for i, a := range attrs[from] {
			src.Sizes[i] = m.sizes[a]
		}
		src.Counts = make([]float64, int(size(from))) // for newStride's shape only
		out = append(out, derivation{target: k, from: from, via: newStride(src, attrs[k])})
	}
	return out, derived
}
