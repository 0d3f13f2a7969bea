package infer

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/internal/attrset"
	"github.com/dppub/dppub/randx"
)

// Sample draws rows records from the model: the root clique's attributes
// by apportioning the records to its cells in proportion to its beliefs,
// then, clique by clique down the tree, the attributes a clique adds given
// its separator with the parent, apportioning each separator cell's
// records among the cells that agree with it. Apportioning (systematic
// sampling) makes every clique's empirical marginal within one record per
// cell of the model's, with far less variance than independent draws; the
// cells are dealt along the records ordered by the attributes drawn
// before (deal), so that marginals across cliques follow the model's
// independence given the separator as closely. It uses only the model,
// so it is post-processing.
func (m *Model) Sample(rows int, src *randx.Source) (*domain.Dataset, error) {
	if rows < 1 || rows > math.MaxInt32 {
		return nil, fmt.Errorf("infer: sample: rows = %d", rows)
	}
	if src == nil {
		return nil, fmt.Errorf("infer: sample: a randomness source is required")
	}
	ds := domain.NewDataset(m.sizes, rows)
	t := m.tree
	sepIdx := make([]int32, rows)
	var drawn []int // attributes drawn so far, the latest first
	var order []keyed
	var cellVals []uint16 // a group's cells' values of the added attributes
	for _, c := range t.order {
		b := m.belief[c]
		sep := t.sep[c]
		if t.parent[c] < 0 {
			sep = nil
		}
		added := attrset.Minus(b.Attrs, sep)
		// Group the records by their separator cell (all in one group for
		// an empty separator), and the clique's cells likewise.
		var proj []int32
		groups := 1
		if len(sep) > 0 {
			domain.CellIndex(ds, sep, sepIdx)
			proj = mustProject(b, sep)
			for _, a := range sep {
				groups *= m.sizes[a]
			}
		} else {
			clear(sepIdx)
			proj = make([]int32, b.Cells())
		}
		recs := bucket(sepIdx, groups)
		cells := bucket(proj, groups)
		vals := make([]int, len(b.Attrs))
		pos := make([]int, len(added))
		for k, a := range added {
			pos[k] = indexOf(b.Attrs, a)
		}
		pack := newPacking(m.sizes, drawn)
		w := []float64{}
		for g := range groups {
			rs := recs[g]
			if len(rs) == 0 {
				continue
			}
			cs := cells[g]
			w = w[:0]
			for _, x := range cs {
				w = append(w, b.Counts[x])
			}
			order = pack.sort(ds, rs, order, src)
			counts := apportionOrUniform(w, len(rs), src)
			// Each cell dealt some records is decoded once, not per record.
			cellVals = slices.Grow(cellVals[:0], len(cs)*len(added))[:len(cs)*len(added)]
			for i, n := range counts {
				if n > 0 {
					b.Values(int(cs[i]), vals)
					for q := range added {
						cellVals[i*len(added)+q] = uint16(vals[pos[q]])
					}
				}
			}
			for j, i := range deal(counts, src) {
				r := order[j].rec
				for q, a := range added {
					ds.Cols[a][r] = cellVals[i*len(added)+q]
				}
			}
		}
		drawn = append(slices.Clone(added), drawn...)
	}
	return ds, nil
}

// A keyed record is a record and its sort key: the values of the
// attributes drawn so far, packed, over random low bits.
type keyed struct {
	key uint64
	rec int32
}

// packing packs the values of attributes into the high bits of a sort
// key, as many attributes as fit in 48 bits, leaving at least 16 random
// low bits to order ties at random.
type packing struct {
	attrs []int
	bits  []uint
	used  uint
}

func newPacking(sizes, attrs []int) packing {
	var p packing
	for _, a := range attrs {
		b := uint(bits.Len(uint(sizes[a] - 1)))
		if p.used+b > 48 {
			break
		}
		p.attrs, p.bits = append(p.attrs, a), append(p.bits, b)
		p.used += b
	}
	return p
}

// sort returns the records rs ordered by their packed values, ties at
// random (buf is reused).
func (p packing) sort(ds *domain.Dataset, rs []int32, buf []keyed, src *randx.Source) []keyed {
	buf = buf[:0]
	for _, r := range rs {
		k := uint64(0)
		for q, a := range p.attrs {
			k = k<<p.bits[q] | uint64(ds.Cols[a][r])
		}
		buf = append(buf, keyed{key: k<<(64-p.used) | src.Uint64()>>p.used, rec: r})
	}
	slices.SortFunc(buf, func(x, y keyed) int { return cmp.Compare(x.key, y.key) })
	return buf
}

// deal spreads counts[i] copies of each i evenly along a sequence of
// their total length, each at a random phase: the i-th cell takes the
// positions (k + u_i)/counts[i] of the unit interval, merged in order.
// Dealt along records ordered by the attributes drawn so far, every
// stratum of that order gets its share of every cell to within one
// record, so the cells are spread across the earlier attributes as the
// model's conditional independence says, instead of at random.
func deal(counts []int, src *randx.Source) []int {
	type slot struct {
		at   float64
		cell int
	}
	var slots []slot
	for i, n := range counts {
		u := src.Float64()
		for k := range n {
			slots = append(slots, slot{(float64(k) + u) / float64(n), i})
		}
	}
	// Positions are finite, so two comparisons order them as cmp.Compare
	// would, without its NaN tests (a fifth of sampling's sorts).
	slices.SortFunc(slots, func(x, y slot) int {
		if x.at < y.at {
			return -1
		}
		if x.at > y.at {
			return 1
		}
		return 0
	})
	out := make([]int, len(slots))
	for j, s := range slots {
		out[j] = s.cell
	}
	return out
}

// apportionOrUniform is apportion, spreading the records evenly when the
// weights are all zero (a separator cell the model gives no mass but the
// parent's rounding sent records to).
func apportionOrUniform(w []float64, total int, src *randx.Source) []int {
	s := 0.0
	for _, v := range w {
		s += v
	}
	if !(s > 0) {
		for i := range w {
			w[i] = 1
		}
	}
	return apportion(w, total, src)
}

// bucket lists, for every key in 0..groups−1, the positions holding it.
func bucket(keys []int32, groups int) [][]int32 {
	count := make([]int32, groups+1)
	for _, k := range keys {
		count[k+1]++
	}
	for g := range groups {
		count[g+1] += count[g]
	}
	flat := make([]int32, len(keys))
	fill := append([]int32(nil), count[:groups]...)
	for i, k := range keys {
		flat[fill[k]] = int32(i)
		fill[k]++
	}
	out := make([][]int32, groups)
	for g := range groups {
		out[g] = flat[count[g]:count[g+1]]
	}
	return out
}

func indexOf(s []int, v int) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}
