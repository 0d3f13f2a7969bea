package infer

import (
	"cmp"
	"slices"

	"github.com/dppub/dppub/engine/marginal/internal/attrset"
)

// A derivation reads one of a clique's downward sums off another: when a
// cover's or a child's separator's attributes lie inside another such
// target's, summing the larger target's table onto them gives the same
// marginal (up to the order of the additions) at the cost of a pass over
// that table instead of over the clique. A clique with several children
// often has a child whose separator holds another's, or a cover inside a
// separator: on Adult at ρ = 0.5 the 188 160-cell root of a 2^20-cell
// model had eight downward sums, five of them derivable. The upward
// sweep uses the same pairs the other way (absorptions, kidMessages): a
// child's message over a separator inside another child's is multiplied
// into that one's on the separator, not into the clique.
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

// newDerivations returns clique c's derivations among its targets ks
// (indices into m.targets[c], each ≥ 1) and marks the targets they
// derive in derived (indexed like m.targets[c]). Each target is derived,
// if at all, from the smallest of ks holding its attributes that is not
// itself derived, so that no derivation waits on another.
func (m *Model) newDerivations(c int, ks []int) ([]derivation, []bool) {
	attrs := func(k int) []int { return m.targetAttrs(c, k) }
	size := func(k int) float64 { return tableCells(m.sizes, attrs(k)) }
	// Largest first, so a target's possible sources are decided before it.
	order := slices.Clone(ks)
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(size(b), size(a)) })
	derived := make([]bool, len(m.targets[c]))
	var out []derivation
	var summed []int
	for _, k := range order {
		from := -1
		for _, s := range summed {
			if attrset.Subset(attrs(k), attrs(s)) && size(s)*minDeriveRatio <= m.tree.size[c] && (from < 0 || size(s) < size(from)) {
				from = s
			}
		}
		if from < 0 {
			summed = append(summed, k)
			continue
		}
		derived[k] = true
		src := newFactor(m.sizes, attrs(from)) // for newStride's shape only
		out = append(out, derivation{target: k, from: from, via: newStride(src, attrs(k))})
	}
	return out, derived
}

// targetAttrs are the attributes of clique c's target k ≥ 1: a cover's
// or a child's separator.
func (m *Model) targetAttrs(c, k int) []int {
	if k <= len(m.coversOf[c]) {
		return m.covers[m.coversOf[c][k-1]].attrs
	}
	return m.tree.sep[m.tree.children[c][k-1-len(m.coversOf[c])]]
}

// kidMessages returns, for each child j of clique c, the table the
// upward sweep multiplies its block by at the child's target: the child's
// message, or for a child whose separator holds others' (absorbed[c]),
// its message times theirs, multiplied on the separator rather than over
// the clique; nil for an absorbed child.
func (m *Model) kidMessages(c int) [][]float64 {
	kids := m.tree.children[c]
	out := m.kidTables[c]
	k0 := 1 + len(m.coversOf[c])
	for j, kid := range kids {
		switch {
		case m.absorbed[c][k0+j]:
			out[j] = nil
		case m.kidProduct[c][j] != nil:
			out[j] = m.kidProduct[c][j]
			copy(out[j], m.msg[kid])
		default:
			out[j] = m.msg[kid]
		}
	}
	for _, d := range m.absorb[c] {
		d.via.mul(out[d.from-k0], m.msg[kids[d.target-k0]])
	}
	return out
}

// newAbsorptions lays out which children's messages kidMessages
// multiplies into another's.
func (m *Model) newAbsorptions(c int) {
	kids := m.tree.children[c]
	k0 := 1 + len(m.coversOf[c])
	ks := make([]int, len(kids))
	for j := range kids {
		ks[j] = k0 + j
	}
	m.absorb[c], m.absorbed[c] = m.newDerivations(c, ks)
	m.kidTables[c], m.kidProduct[c] = make([][]float64, len(kids)), make([][]float64, len(kids))
	for _, d := range m.absorb[c] {
		if j := d.from - k0; m.kidProduct[c][j] == nil {
			m.kidProduct[c][j] = make([]float64, len(m.msg[kids[j]]))
		}
	}
}
