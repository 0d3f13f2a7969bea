package gate

import (
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/dppub/dppub/data"
)

// space measures distances between rows of one schema: a numeric
// attribute scaled to [0, 1] by its public bounds (clamped), a category
// 0 when equal and 1 otherwise, summed over the attributes in the
// schema's order.
//
// Both attacks compare every query with every synthetic row (DCR costs
// queries × synthetic rows distances, the density ratio as many
// exponentials), about 14 s per owner at full Adult when done naively.
// What makes them cheaper leaves every distance bit for bit what the
// naive sum gives (the sum runs in the schema's order, and a mismatch
// adds exactly 1 where the naive sum would), so a fixed seed gives the
// same result (TestCheckResultUnchanged):
//   - rows are held in one flat slice, and whether a column is numeric
//     in a slice of booleans, not looked up in the schema per cell;
//   - DCR needs only the smallest distance: a row is passed over as soon
//     as its partial sum (the terms are never negative) reaches the best
//     so far, or at once when its categorical mismatches alone do,
//     counted from codes packed into one word (lowerBound);
//   - the queries are scored by a pool of workers, one per core, each
//     score written to its own slot.
type space struct {
	schema  data.Schema
	numeric []bool
	// The categorical columns packed into a code word, width bits each
	// (the widest column's); cat lists them, low has the lowest bit of
	// every field set. None packed: lowerBound is 0.
	cat   []int
	width uint
	low   uint64
}

func newSpace(s data.Schema) *space {
	sp := &space{schema: s, numeric: make([]bool, len(s.Attributes))}
	var cats []int
	for j, a := range s.Attributes {
		sp.numeric[j] = a.Kind == data.Numeric
		if a.Kind != data.Numeric && len(a.Categories) > 0 {
			cats = append(cats, j)
			sp.width = max(sp.width, uint(bits.Len(uint(len(a.Categories)-1))), 1)
		}
	}
	// As many categorical columns as fit one word: a lower bound over
	// some of them is still a lower bound.
	if sp.width > 0 {
		sp.cat = cats[:min(len(cats), 64/int(sp.width))]
		for f := range sp.cat {
			sp.low |= 1 << (uint(f) * sp.width)
		}
	}
	return sp
}

// points are encoded rows: vals row after row, p to a row, and codes
// each row's packed categories (nil when some category is not a code
// that packs, and then no lower bound is used).
type points struct {
	p     int
	vals  []float64
	codes []uint64
}

func (ps *points) len() int { return len(ps.vals) / max(ps.p, 1) }

func (ps *points) row(i int) []float64 { return ps.vals[i*ps.p : (i+1)*ps.p : (i+1)*ps.p] }

// encodeAll maps t's rows to the space's coordinates: a numeric value to
// its place in [0, 1], a category to its index.
func (sp *space) encodeAll(t *data.Table) *points {
	p := len(sp.schema.Attributes)
	ps := &points{p: p, vals: make([]float64, 0, t.Len()*p)}
	for _, row := range t.Rows {
		for j, v := range row {
			a := sp.schema.Attributes[j]
			if a.Kind == data.Numeric && a.Max > a.Min {
				v = math.Min(1, math.Max(0, (v-a.Min)/(a.Max-a.Min)))
			}
			ps.vals = append(ps.vals, v)
		}
	}
	if len(sp.cat) == 0 {
		return ps
	}
	ps.codes = make([]uint64, t.Len())
	for i := range ps.codes {
		row := ps.row(i)
		for f, j := range sp.cat {
			v := row[j]
			// Only a whole index inside the field packs; anything else
			// (a malformed value, NaN) would make unequal cells look
			// equal, so no row gets a bound.
			if !(v >= 0 && v < float64(uint64(1)<<sp.width) && v == math.Trunc(v)) {
				ps.codes = nil
				return ps
			}
			ps.codes[i] |= uint64(v) << (uint(f) * sp.width)
		}
	}
	return ps
}

// lowerBound is how many of the packed categorical columns differ
// between two code words. Each adds exactly 1 to the distance and the
// other terms are never negative (nor can rounding make a float sum of
// them smaller), so a row's distance is at least this.
func (sp *space) lowerBound(a, b uint64) float64 {
	return float64(bits.OnesCount64(sp.mismatches(a, b)))
}

// mismatches has the lowest bit of each packed field set where the two
// code words differ in that field: the field's bits are folded into its
// lowest, and a shift by less than the width brings in bits of the same
// field only.
func (sp *space) mismatches(a, b uint64) uint64 {
	x := a ^ b
	f := x
	for s := uint(1); s < sp.width; s++ {
		f |= x >> s
	}
	return f & sp.low
}

// dist is the distance between two encoded rows.
func (sp *space) dist(x, y []float64) float64 {
	d := 0.0
	y = y[:len(x)]
	for j, num := range sp.numeric[:len(x)] {
		if num {
			d += math.Abs(x[j] - y[j])
		} else if x[j] != y[j] {
			d++
		}
	}
	return d
}

// nearest returns the distance from query row q of qs to its closest row
// of rows: the smallest of the distances the naive scan would compute,
// found without finishing the sums that cannot be smallest.
func (sp *space) nearest(qs *points, q int, rows *points) float64 {
	x := qs.row(q)
	bound := qs.codes != nil && rows.codes != nil
	var code uint64
	if bound {
		code = qs.codes[q]
	}
	best := math.Inf(1)
	num := sp.numeric[:len(x)]
	for i, n := 0, rows.len(); i < n; i++ {
		if bound && sp.lowerBound(code, rows.codes[i]) >= best {
			continue
		}
		y := rows.row(i)[:len(x)]
		d := 0.0
		for j, isNum := range num {
			if isNum {
				d += math.Abs(x[j] - y[j])
			} else if x[j] != y[j] {
				d++
			}
			if d >= best {
				break
			}
		}
		if d < best {
			best = d
			if d == 0 {
				break
			}
		}
	}
	return best
}

// parallel calls f(i) for every i in [0, n) on a worker per core; f
// writes only its own slot of a result, so the order the workers run in
// changes nothing.
func parallel(n int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				// Chunks of 8 queries keep the counter off the hot path.
				lo := int(next.Add(8)) - 8
				if lo >= n {
					return
				}
				for i := lo; i < min(lo+8, n); i++ {
					f(i)
				}
			}
		}()
	}
	wg.Wait()
}

// nearestAll is nearest for every row of qs.
func (sp *space) nearestAll(qs, rows *points) []float64 {
	out := make([]float64, qs.len())
	parallel(len(out), func(i int) { out[i] = sp.nearest(qs, i, rows) })
	return out
}

// dcrAttack scores a query by minus its distance to the closest synthetic
// row: a generator that memorises its rows puts copies or near-copies of
// members, not of non-members, into the table.
func dcrAttack(sp *space, members, nonMembers *data.Table, synth *points, z float64) Attack {
	score := func(t *data.Table) (scores []float64, copies int) {
		scores = sp.nearestAll(sp.encodeAll(t), synth)
		for i, d := range scores {
			if d == 0 {
				copies++
			}
			scores[i] = -d
		}
		return scores, copies
	}
	sm, cm := score(members)
	sn, cn := score(nonMembers)
	detail := fmt.Sprintf("%.1f%% of the owner's rows and %.1f%% of held-out rows have an exact copy in the synthetic table; median distance to the closest synthetic row %.3g and %.3g",
		100*float64(cm)/float64(len(sm)), 100*float64(cn)/float64(len(sn)), -median(sm), -median(sn))
	return advantage("distance-to-closest-record", sm, sn, z, detail)
}

// densityRatioAttack scores a query by ln(p̂_synth(x)/p̂_ref(x)), kernel
// densities exp(−dist/h) of the synthetic rows and of the reference
// held-out rows: the synthetic table's excess density at a row is what a
// generator that overfits its members leaves there. The bandwidth h is
// the median distance from a reference row to its nearest synthetic row
// (at least 0.05): the scale at which the table resolves the population.
func densityRatioAttack(sp *space, members, nonMembers *data.Table, synth, ref *points, z float64) Attack {
	first := &points{p: ref.p, vals: ref.vals[:min(ref.len(), 200)*ref.p]}
	if ref.codes != nil {
		first.codes = ref.codes[:first.len()]
	}
	h := math.Max(0.05, median(sp.nearestAll(first, synth)))
	// Every term of the sums is needed, added in the naive order.
	density := func(qs *points, q int, rows *points) float64 {
		x := qs.row(q)
		s := 0.0
		for i, n := 0, rows.len(); i < n; i++ {
			s += math.Exp(-sp.dist(x, rows.row(i)) / h)
		}
		// A floor of one row at distance 10h keeps the log finite.
		return math.Log((s + math.Exp(-10)) / float64(rows.len()))
	}
	score := func(t *data.Table) []float64 {
		qs := sp.encodeAll(t)
		out := make([]float64, qs.len())
		parallel(len(out), func(i int) { out[i] = density(qs, i, synth) - density(qs, i, ref) })
		return out
	}
	sm, sn := score(members), score(nonMembers)
	detail := fmt.Sprintf("median log density ratio synthetic/population %.3g at the owner's rows and %.3g at held-out rows (bandwidth %.3g)", median(sm), median(sn), h)
	return advantage("density-ratio", sm, sn, z, detail)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Sorted(slices.Values(xs))
	return s[len(s)/2]
}
