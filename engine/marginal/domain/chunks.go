package domain

import (
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/dppub/dppub/data"
)

// Cells is a piece of a discretised table: each attribute's cells one
// byte per row when its domain fits in a byte, two otherwise (a
// Dataset's are always two). Recoding to a smaller domain narrows them.
// A row may stand for several identical records (its weight, as a Tally
// merges them): every count over the piece adds the weight, so the
// counts are those of the records themselves.
type Cells struct {
	sizes []int
	n     int
	b     [][]uint8  // narrow columns (nil where wide)
	w     [][]uint16 // wide columns (nil where narrow)
	wt    []uint32   // row i stands for wt[i] records; nil: one each
}

// newCells allocates n records over domain sizes, all in cell 0.
func newCells(sizes []int, n int) *Cells {
	c := &Cells{sizes: slices.Clone(sizes), n: n, b: make([][]uint8, len(sizes)), w: make([][]uint16, len(sizes))}
	for j, s := range sizes {
		if s <= 1<<8 {
			c.b[j] = make([]uint8, n)
		} else {
			c.w[j] = make([]uint16, n)
		}
	}
	return c
}

// CellsOf is ds's records as Cells, sharing its columns.
func CellsOf(ds *Dataset) *Cells {
	return &Cells{sizes: ds.Sizes, n: ds.Len(), b: make([][]uint8, len(ds.Cols)), w: ds.Cols}
}

// Len is the number of rows held (distinct tuples once merged by a
// Tally; Records is the number of records they stand for).
func (c *Cells) Len() int { return c.n }

// Records is the number of records the rows stand for: the sum of their
// weights.
func (c *Cells) Records() int {
	if c.wt == nil {
		return c.n
	}
	r := 0
	for _, w := range c.wt[:c.n] {
		r += int(w)
	}
	return r
}

// Truncate keeps the first n rows.
func (c *Cells) Truncate(n int) {
	c.n = min(c.n, max(n, 0))
}

// get is row i's cell of attribute j.
func (c *Cells) get(j, i int) uint16 {
	if c.b[j] != nil {
		return uint16(c.b[j][i])
	}
	return c.w[j][i]
}

// Each calls fn with every row's cells (one per attribute, a slice reused
// between calls) and the number of records the row stands for.
func (c *Cells) Each(fn func(cells []int, weight int)) {
	cells := make([]int, len(c.sizes))
	for i := range c.n {
		for j := range cells {
			cells[j] = int(c.get(j, i))
		}
		w := 1
		if c.wt != nil {
			w = int(c.wt[i])
		}
		fn(cells, w)
	}
}

// Set puts record i of attribute j in cell v.
func (c *Cells) Set(j, i, v int) {
	if c.b[j] != nil {
		c.b[j][i] = uint8(v)
	} else {
		c.w[j][i] = uint16(v)
	}
}

// view returns the piece as a Dataset over the attributes in need,
// widening narrow columns into scratch (one column per attribute).
func (c *Cells) view(need []bool, scratch [][]uint16) *Dataset {
	ds := &Dataset{Sizes: c.sizes, Cols: make([][]uint16, len(c.sizes))}
	for j := range c.sizes {
		switch {
		case !need[j]:
			// Never read (the counts are told the length).
		case c.w[j] != nil:
			ds.Cols[j] = c.w[j][:c.n]
		default:
			if cap(scratch[j]) < c.n {
				scratch[j] = make([]uint16, c.n)
			}
			col := scratch[j][:c.n]
			for i, v := range c.b[j][:c.n] {
				col[i] = uint16(v)
			}
			ds.Cols[j] = col
		}
	}
	return ds
}

// Chunks is a discretised table held as consecutive pieces over the same
// domain: what a one-pass reader produces batch by batch, never copied
// into one table (which would hold it twice while copying). Counts over
// it are the sums of the pieces' counts. The order of the rows, and how
// records are merged into weighted rows, change no count.
type Chunks []*Cells

// Len is the number of records n (the rows' weights summed).
func (cs Chunks) Len() int {
	n := 0
	for _, c := range cs {
		n += c.Records()
	}
	return n
}

// Distinct is the number of rows held: the distinct tuples of cells once
// merged (Merged, Tally), else Len.
func (cs Chunks) Distinct() int {
	n := 0
	for _, c := range cs {
		n += c.Len()
	}
	return n
}

// Sizes are the domain sizes (nil for no pieces).
func (cs Chunks) Sizes() []int {
	if len(cs) == 0 {
		return nil
	}
	return cs[0].sizes
}

// Check reports a piece whose domain differs from the first's.
func (cs Chunks) Check() error {
	for i, c := range cs {
		if !slices.Equal(c.sizes, cs[0].sizes) {
			return fmt.Errorf("domain: piece %d has domain sizes %v, piece 0 %v", i, c.sizes, cs[0].sizes)
		}
	}
	return nil
}

// Count is the exact marginal over attrs, the pieces counted on every
// core. Each core adds whole counts, and integer sums below 2^53 are
// exact in float64, so the result does not depend on the split.
func (cs Chunks) Count(attrs []int) (*Marginal, error) {
	ms, err := cs.CountAll([][]int{attrs})
	if err != nil {
		return nil, err
	}
	return ms[0], nil
}

// CountAll is Count of every set in one pass over the pieces: each piece
// is counted for all the sets while it is in cache.
func (cs Chunks) CountAll(sets [][]int) ([]*Marginal, error) {
	if len(cs) == 0 {
		return nil, fmt.Errorf("domain: count over no records")
	}
	out := make([]*Marginal, len(sets))
	for i, attrs := range sets {
		m, err := NewMarginal(cs[0].sizes, attrs)
		if err != nil {
			return nil, err
		}
		out[i] = m
	}
	need := make([]bool, len(cs[0].sizes))
	for _, m := range out {
		for _, a := range m.Attrs {
			need[a] = true
		}
	}
	cs.each(func(part Chunks) [][]float64 {
		sums := make([][]float64, len(out))
		for i, m := range out {
			sums[i] = make([]float64, m.Cells())
		}
		scratch := make([][]uint16, len(need))
		for _, c := range part {
			ds := c.view(need, scratch)
			for i, m := range out {
				if c.wt != nil {
					countWeighted(ds, c.wt[:c.n], m.Attrs, m.Sizes, sums[i])
				} else {
					countInto(ds, c.n, m.Attrs, m.Sizes, sums[i])
				}
			}
		}
		return sums
	}, func(sums [][]float64) {
		for i, m := range out {
			for k, v := range sums[i] {
				m.Counts[k] += v
			}
		}
	})
	return out, nil
}

// countWeighted is countInto over rows of weights wt (their number): each
// row adds its weight. Weights are whole and their sums below 2^53, so
// the counts are exact, as if every record were counted one by one.
func countWeighted(ds *Dataset, wt []uint32, attrs, sizes []int, counts []float64) {
	n := len(wt)
	switch len(attrs) {
	case 1:
		for i, v := range ds.Cols[attrs[0]][:n] {
			counts[v] += float64(wt[i])
		}
	case 2:
		a, b := ds.Cols[attrs[0]][:n], ds.Cols[attrs[1]][:n]
		s := sizes[1]
		for i, v := range a {
			counts[int(v)*s+int(b[i])] += float64(wt[i])
		}
	default:
		cols := make([][]uint16, len(attrs))
		for k, a := range attrs {
			cols[k] = ds.Cols[a][:n]
		}
		for i, w := range wt {
			c := 0
			for k, col := range cols {
				c = c*sizes[k] + int(col[i])
			}
			counts[c] += float64(w)
		}
	}
}

// each runs work on consecutive runs of pieces, one per core, and merge
// on each result in turn.
func (cs Chunks) each(work func(Chunks) [][]float64, merge func([][]float64)) {
	w := max(1, min(runtime.GOMAXPROCS(0), len(cs)))
	res := make([][][]float64, w)
	var wg sync.WaitGroup
	for q := range w {
		wg.Go(func() { res[q] = work(cs[q*len(cs)/w : (q+1)*len(cs)/w]) })
	}
	wg.Wait()
	for _, r := range res {
		merge(r)
	}
}

// Recode maps every piece's cells through lut (per attribute; nil leaves
// an attribute as it is) to a domain of the given sizes, a column taking
// one byte per row when its new domain fits in one. Rows keep their
// weights; rows that become identical stay apart until Merged.
func (cs Chunks) Recode(lut [][]uint16, sizes []int) {
	var wg sync.WaitGroup
	w := max(1, min(runtime.GOMAXPROCS(0), len(cs)))
	for q := range w {
		wg.Go(func() {
			for _, c := range cs[q*len(cs)/w : (q+1)*len(cs)/w] {
				for j, m := range lut {
					if m == nil {
						continue
					}
					var b []uint8
					var wide []uint16
					if sizes[j] <= 1<<8 {
						b = make([]uint8, c.n)
					} else {
						wide = make([]uint16, c.n)
					}
					for i := range c.n {
						var v uint16
						if c.b[j] != nil {
							v = m[c.b[j][i]]
						} else {
							v = m[c.w[j][i]]
						}
						if b != nil {
							b[i] = uint8(v)
						} else {
							wide[i] = v
						}
					}
					c.b[j], c.w[j] = b, wide
				}
				c.sizes = slices.Clone(sizes)
			}
		})
	}
	wg.Wait()
}

// Recoding returns, per attribute, the map from the cells of fine to the
// cells of coarse, two domains of one schema whose numeric bins differ:
// every edge of coarse must be an edge of fine (FineEdges makes such a
// fine domain for measurement.ChooseCuts' bins), so that each fine cell lies in one
// coarse bin. Attributes binned alike map to nil.
func Recoding(fine, coarse *Domain) ([][]uint16, error) {
	if !fine.schema.Equal(coarse.schema) {
		return nil, fmt.Errorf("domain: recoding between domains of different schemas")
	}
	lut := make([][]uint16, fine.Len())
	for j, fa := range fine.attrs {
		ca := coarse.attrs[j]
		if fa.attr.Kind != data.Numeric || (fa.size == ca.size && slices.Equal(fa.edges, ca.edges)) {
			continue
		}
		if fa.edges == nil {
			return nil, fmt.Errorf("domain: attribute %q: the fine domain has no explicit edges", fa.attr.Name)
		}
		m := make([]uint16, fa.size)
		for f := range m {
			b, _ := coarse.Bin(j, fa.edges[f])
			m[f] = uint16(b)
		}
		for b := range ca.size {
			lo, _ := coarse.BinRange(j, b)
			if _, ok := slices.BinarySearch(fa.edges, lo); !ok {
				return nil, fmt.Errorf("domain: attribute %q: bin edge %v is not an edge of the fine domain", fa.attr.Name, lo)
			}
		}
		lut[j] = m
	}
	return lut, nil
}
