package marginal

import (
	"fmt"
	"math"

	"github.com/dppub/dppub/randx"
)

// Sample draws rows records from the model: the root clique's attributes
// by apportioning the records to its cells in proportion to its beliefs,
// then, clique by clique down the tree, the attributes a clique adds given
// its separator with the parent, apportioning each separator cell's
// records among the cells that agree with it. Apportioning (systematic
// sampling) makes every clique's empirical marginal within one record per
// cell of the model's, with far less variance than independent draws. It
// uses only the model, so it is post-processing.
func (m *Model) Sample(rows int, src *randx.Source) (*Dataset, error) {
	if rows < 1 || rows > math.MaxInt32 {
		return nil, fmt.Errorf("marginal: sample: rows = %d", rows)
	}
	if src == nil {
		return nil, fmt.Errorf("marginal: sample: a randomness source is required")
	}
	ds := NewDataset(m.sizes, rows)
	t := m.tree
	sepIdx := make([]int32, rows)
	for _, c := range t.order {
		b := m.belief[c]
		sep := t.sep[c]
		if t.parent[c] < 0 {
			sep = nil
		}
		added := minus(b.Attrs, sep)
		// Group the records by their separator cell (all in one group for
		// an empty separator), and the clique's cells likewise.
		var proj []int32
		groups := 1
		if len(sep) > 0 {
			cellIndex(ds, sep, sepIdx)
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
			src.Shuffle(len(rs), func(i, j int) { rs[i], rs[j] = rs[j], rs[i] })
			k := 0
			for i, cnt := range apportionOrUniform(w, len(rs), src) {
				if cnt == 0 {
					continue
				}
				b.Values(int(cs[i]), vals)
				for _, r := range rs[k : k+cnt] {
					for q, a := range added {
						ds.Cols[a][r] = uint16(vals[pos[q]])
					}
				}
				k += cnt
			}
		}
	}
	return ds, nil
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
