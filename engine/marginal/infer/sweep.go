package infer

import (
	"slices"

	"github.com/dppub/dppub/engine/marginal/domain"
)

// A sweep walks a clique's cells in blocks small enough to stay in the
// first-level cache, so that every multiplication and sum a calibration
// needs of the clique happens in one pass over its memory. Before sweeps,
// each mirror-descent trial passed over a clique once per measured-set
// cover (the step's factors), once per child (its upward message), once
// to send its own message, once per child again (their downward
// messages), once for its own downward message and once per cover (the
// loss's marginals): on Shuttle's 2^18-cell models at ε = 1 these passes
// were three quarters of the run. A block is the clique's trailing
// attributes (the fastest-varying) up to maxSweepBlock cells; inside it
// every subset map is a stride, and the leading attributes only shift
// where each subset's block starts.
type sweep struct {
	// block is the cells per block, blocks their number.
	block, blocks int
	// table is the swept table (its cells unused); lead are the sizes of
	// its leading attributes (the blocks' odometer, last fastest).
	table *domain.Marginal
	lead  []int
	// trail is the table over the trailing attributes: one block.
	trail *domain.Marginal
}

// maxSweepBlock bounds a block's cells: two tables' blocks (a potential's
// and a belief's) of 8-byte cells stay within 16 KB.
const maxSweepBlock = 1024

// newSweep lays out the blocks of table t: as many trailing attributes
// as fit in maxSweepBlock cells, and at least one.
func newSweep(t *domain.Marginal) *sweep { return newSweepOf(t, maxSweepBlock) }

// newSweepOf lays out blocks of at most maxBlock cells (but at least the
// last attribute).
func newSweepOf(t *domain.Marginal, maxBlock int) *sweep {
	k, cells := len(t.Attrs), 1
	split := k
	for split > 0 && (split == k || cells*t.Sizes[split-1] <= maxBlock) {
		cells *= t.Sizes[split-1]
		split--
	}
	return &sweep{block: cells, blocks: len(t.Counts) / cells, table: t, lead: t.Sizes[:split],
		trail: &domain.Marginal{Attrs: t.Attrs[split:], Sizes: t.Sizes[split:], Counts: make([]float64, cells)}}
}

// A target is the map of a swept clique's cells onto a subset's: inside a
// block a stride onto the subset's trailing attributes, and for the
// leading ones the step each takes in the subset's table (0 for those
// outside the subset), so that a block's cells map into the subset's
// cells from base on.
type target struct {
	in   stride
	step []int
}

// target returns the map of the swept table onto sub (sorted, ⊆ its
// attributes).
func (s *sweep) target(sub []int) target {
	// The subset's table: its attributes sorted, the last fastest.
	attrs := s.table.Attrs
	steps := make(map[int]int, len(sub))
	w := 1
	for i := len(sub) - 1; i >= 0; i-- {
		steps[sub[i]] = w
		w *= s.table.Sizes[slices.Index(attrs, sub[i])]
	}
	tg := target{step: make([]int, len(s.lead))}
	for j := range s.lead {
		tg.step[j] = steps[attrs[j]]
	}
	var inner []int
	for _, a := range sub {
		if slices.Contains(s.trail.Attrs, a) {
			inner = append(inner, a)
		}
	}
	tg.in = newStride(s.trail, inner)
	return tg
}

// walk calls do for every block, in order, with its first cell and each
// target's base: the block's cells map through targets[i].in onto the
// subset's cells from base[i] on.
func (s *sweep) walk(targets []target, do func(lo int, base []int)) {
	base := make([]int, len(targets))
	digit := make([]int, len(s.lead))
	for b := range s.blocks {
		do(b*s.block, base)
		// Advance the odometer of the leading attributes, moving every
		// target's base by the steps of the digits that change.
		for j := len(s.lead) - 1; j >= 0; j-- {
			digit[j]++
			if digit[j] < s.lead[j] {
				for i := range targets {
					base[i] += targets[i].step[j]
				}
				break
			}
			digit[j] = 0
			for i := range targets {
				base[i] -= (s.lead[j] - 1) * targets[i].step[j]
			}
		}
	}
}
