package infer

import (
	"fmt"
	"slices"

	"github.com/dppub/dppub/engine/marginal/domain"
)

// stride maps a table's cells onto a subset's cells the way a projector
// does, without one index per cell. Tables lay out sorted attributes with
// the last fastest, so the attributes before the subset's first one and
// after its last one only repeat the same pattern: the table's cells are
// lead × span × inner, and cell (o, k, i) belongs to the subset's cell
// idx[k] for every o and i. Inference runs these maps over every clique
// at every mirror-descent step; the short idx stays in cache and the
// inner runs are contiguous.
type stride struct {
	lead, span, inner int
	idx               []int32
	// run is how many consecutive cells of the span map to consecutive
	// subset cells: the product of the sizes of the table's attributes
	// from the subset's last one back while they are all in the subset.
	// With inner = 1, a run's cells are multiplied or summed as two
	// contiguous vectors, not through the index.
	run int
	// top is the largest entry of idx: the pair kernels check once per
	// row that it lies inside the table they write or read through it.
	top int
}

// minRun is the shortest run the contiguous loops take: below it, the
// per-run slicing costs more than the index lookups it saves.
const minRun = 4

// newStride returns the map of table t onto sub (sorted, ⊆ t.Attrs). Its
// index is built over the span only, so a transient table of millions of
// cells (variable elimination's products) costs as little as its span.
func newStride(t *domain.Marginal, sub []int) stride {
	if len(sub) == 0 {
		return stride{lead: 1, span: 1, inner: len(t.Counts), idx: []int32{0}, run: 1}
	}
	first, last := slices.Index(t.Attrs, sub[0]), slices.Index(t.Attrs, sub[len(sub)-1])
	if first < 0 || last < 0 {
		panic(fmt.Sprintf("infer: %v is not a subset of %v", sub, t.Attrs))
	}
	lead, inner := 1, 1
	for _, s := range t.Sizes[:first] {
		lead *= s
	}
	for _, s := range t.Sizes[last+1:] {
		inner *= s
	}
	idx := mustProject(&domain.Marginal{Attrs: t.Attrs[first : last+1], Sizes: t.Sizes[first : last+1]}, sub)
	run := 1
	for i, j := last, len(sub)-1; i >= first && j >= 0 && t.Attrs[i] == sub[j]; i, j = i-1, j-1 {
		run *= t.Sizes[i]
	}
	return stride{lead: lead, span: len(idx), inner: inner, idx: idx, run: run, top: int(slices.Max(idx))}
}

// sum writes into out the sums of v over the cells the map sends
// together.
func (s stride) sum(v, out []float64) {
	clear(out)
	s.addTo(v, out)
}

// addTo adds to out the sums of v over the cells the map sends together
// (sum without clearing out first).
func (s stride) addTo(v, out []float64) {
	if s.inner == 1 && s.run == s.span {
		// The span maps onto the subset cells 0..span−1 in order. The run
		// loop below would do the same; this branch, here and in mulTo,
		// saves 7 % of the CPU on Shuttle's training split at ε = 1
		// (10 paired runs, ratio 1.078 ± 0.033 without it).
		addRows(out[:s.span], v[:s.lead*s.span])
		return
	}
	if s.inner == 1 && s.run >= minRun {
		n := s.run
		for o := range s.lead {
			row := v[o*s.span : (o+1)*s.span]
			for k := 0; k+n <= len(row); k += n {
				x := int(s.idx[k])
				addVec(out[x:x+n], row[k:k+n])
			}
		}
		return
	}
	if s.inner == 1 && s.run == 2 {
		// A binary attribute last in the table and the subset (Adult's
		// label): runs of two, a pair at a time.
		for o := range s.lead {
			addPairs(out, v[o*s.span:(o+1)*s.span], s.idx, s.top)
		}
		return
	}
	if s.inner == 1 {
		for o := range s.lead {
			row := v[o*s.span : (o+1)*s.span]
			for k, x := range s.idx {
				out[x] += row[k]
			}
		}
		return
	}
	if s.inner == 2 {
		// A binary attribute last in the table (Adult's label, last of
		// every clique that holds it), not in the subset: each run of two
		// summed, the same sum sumOf takes, and added.
		for o := range s.lead {
			sumPairs(out, v[o*2*s.span:(o+1)*2*s.span], s.idx, s.top)
		}
		return
	}
	c := 0
	for range s.lead {
		for _, x := range s.idx {
			out[x] += sumOf(v[c : c+s.inner])
			c += s.inner
		}
	}
}

// mul multiplies each cell of v by f at its subset cell.
func (s stride) mul(v, f []float64) { s.mulTo(v, v, f) }

// mulTo sets each cell of dst to the cell of src times f at its subset
// cell: a copy and a multiplication in one pass (dst may be src).
func (s stride) mulTo(dst, src, f []float64) {
	if s.inner == 1 && s.run == s.span {
		// The span maps onto the subset cells 0..span−1 in order.
		mulRows(dst[:s.lead*s.span], src[:s.lead*s.span], f[:s.span])
		return
	}
	if s.inner == 1 && s.run >= minRun {
		n := s.run
		for o := range s.lead {
			in, out := src[o*s.span:(o+1)*s.span], dst[o*s.span:(o+1)*s.span]
			for k := 0; k+n <= len(in); k += n {
				x := int(s.idx[k])
				mulVec(out[k:k+n], in[k:k+n], f[x:x+n])
			}
		}
		return
	}
	if s.inner == 1 && s.run == 2 {
		for o := range s.lead {
			mulPairs(dst[o*s.span:(o+1)*s.span], src[o*s.span:(o+1)*s.span], f, s.idx, s.top)
		}
		return
	}
	if s.inner == 1 {
		for o := range s.lead {
			in, out := src[o*s.span:(o+1)*s.span], dst[o*s.span:(o+1)*s.span]
			for k, x := range s.idx {
				out[k] = in[k] * f[x]
			}
		}
		return
	}
	if s.inner == 2 {
		for o := range s.lead {
			scalePairs(dst[o*2*s.span:(o+1)*2*s.span], src[o*2*s.span:(o+1)*2*s.span], f, s.idx, s.top)
		}
		return
	}
	c := 0
	for range s.lead {
		for _, x := range s.idx {
			scaleVec(dst[c:c+s.inner], src[c:c+s.inner], f[x])
			c += s.inner
		}
	}
}

// add adds f at its subset cell to each cell of v. It runs once per fit,
// not per step, so it goes through runs rather than loops of its own.
func (s stride) add(v, f []float64) {
	s.runs(v, func(run []float64, x int32) {
		a := f[x]
		for i := range run {
			run[i] += a
		}
	})
}

// runs calls do with each run of inner consecutive cells of v and the
// subset cell they map to.
func (s stride) runs(v []float64, do func(run []float64, x int32)) {
	c := 0
	for range s.lead {
		for _, x := range s.idx {
			do(v[c:c+s.inner], x)
			c += s.inner
		}
	}
}

// divPositive divides each cell of v by f at its subset cell where that is
// positive.
func (s stride) divPositive(v, f []float64) {
	s.runs(v, func(run []float64, x int32) {
		if d := f[x]; d > 0 {
			for i := range run {
				run[i] /= d
			}
		}
	})
}
