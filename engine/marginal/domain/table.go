package domain

import (
	"fmt"
	"slices"

	"github.com/dppub/dppub/engine/marginal/internal/attrset"
)

// Marginal is a contingency table over a set of attributes. Counts is laid
// out in mixed radix with the last attribute varying fastest: the cell of
// values (v_1, …, v_k) is ((v_1·s_2 + v_2)·s_3 + v_3)… .
type Marginal struct {
	Attrs  []int // attribute indices, strictly increasing
	Sizes  []int // their domain sizes
	Counts []float64
}

// NewMarginal returns an all-zero marginal over attrs (sorted into
// increasing order) of a domain with the given sizes.
func NewMarginal(sizes []int, attrs []int) (*Marginal, error) {
	a, err := attrset.Normalise(attrs, len(sizes))
	if err != nil {
		return nil, err
	}
	c, ok := cellsOf(sizes, a)
	if !ok {
		return nil, fmt.Errorf("domain: attribute set %v has more than %d cells", a, maxCells)
	}
	m := &Marginal{Attrs: a, Sizes: make([]int, len(a)), Counts: make([]float64, c)}
	for k, j := range a {
		m.Sizes[k] = sizes[j]
	}
	return m, nil
}

// Cells is the number of cells.
func (m *Marginal) Cells() int { return len(m.Counts) }

// Total is the sum of the counts.
func (m *Marginal) Total() float64 {
	s := 0.0
	for _, c := range m.Counts {
		s += c
	}
	return s
}

// Clone returns a deep copy.
func (m *Marginal) Clone() *Marginal {
	return &Marginal{Attrs: slices.Clone(m.Attrs), Sizes: slices.Clone(m.Sizes), Counts: slices.Clone(m.Counts)}
}

// Key names the attribute set, e.g. "1,4,7".
func (m *Marginal) Key() string { return attrset.Key(m.Attrs) }

// Count computes the exact marginal of ds over attrs. It is the hot path:
// one pass over the records computes each one's mixed-radix cell and counts
// it, without maps or per-record allocation.
func Count(ds *Dataset, attrs []int) (*Marginal, error) {
	m, err := NewMarginal(ds.Sizes, attrs)
	if err != nil {
		return nil, err
	}
	countInto(ds, ds.Len(), m.Attrs, m.Sizes, m.Counts)
	return m, nil
}

// countInto adds the counts of ds's first n records over attrs (sorted,
// with domain sizes sizes) to counts.
func countInto(ds *Dataset, n int, attrs, sizes []int, counts []float64) {
	switch len(attrs) {
	case 1:
		for _, v := range ds.Cols[attrs[0]][:n] {
			counts[v]++
		}
	case 2:
		a, b := ds.Cols[attrs[0]][:n], ds.Cols[attrs[1]][:n]
		s := sizes[1]
		for i, v := range a {
			counts[int(v)*s+int(b[i])]++
		}
	default:
		cols := make([][]uint16, len(attrs))
		for k, a := range attrs {
			cols[k] = ds.Cols[a][:n]
		}
		for i := range n {
			c := 0
			for k, col := range cols {
				c = c*sizes[k] + int(col[i])
			}
			counts[c]++
		}
	}
}

// cellIndex writes into idx the cell of every record in the marginal over
// attrs (which must have fewer than maxCells cells).
func CellIndex(ds *Dataset, attrs []int, idx []int32) {
	col := ds.Cols[attrs[0]]
	for i := range idx {
		idx[i] = int32(col[i])
	}
	for _, a := range attrs[1:] {
		s := int32(ds.Sizes[a])
		col := ds.Cols[a]
		for i := range idx {
			idx[i] = idx[i]*s + int32(col[i])
		}
	}
}

// projector maps every cell of a marginal to the cell of its projection
// onto a subset of its attributes. It reads only the marginal's attributes
// and sizes, so a header without counts (a span of a larger table:
// newStride) is enough.
func Projector(m *Marginal, sub []int) ([]int32, int, error) {
	pos := make([]int, len(sub))
	subCells := 1
	for k, a := range sub {
		p := slices.Index(m.Attrs, a)
		if p < 0 {
			return nil, 0, fmt.Errorf("domain: attribute %d is not in marginal %v", a, m.Attrs)
		}
		pos[k] = p
		subCells *= m.Sizes[p]
	}
	cells := 1
	for _, n := range m.Sizes {
		cells *= n
	}
	out := make([]int32, cells)
	vals := make([]int, len(m.Attrs))
	for c := range out {
		// vals is the mixed-radix digits of c; increment like an odometer.
		t := int32(0)
		for _, p := range pos {
			t = t*int32(m.Sizes[p]) + int32(vals[p])
		}
		out[c] = t
		for p := len(vals) - 1; p >= 0; p-- {
			vals[p]++
			if vals[p] < m.Sizes[p] {
				break
			}
			vals[p] = 0
		}
	}
	return out, subCells, nil
}

// Project sums m onto the subset sub of its attributes (sub sorted).
func (m *Marginal) Project(sub []int) (*Marginal, error) {
	proj, cells, err := Projector(m, sub)
	if err != nil {
		return nil, err
	}
	out := &Marginal{Attrs: slices.Clone(sub), Sizes: make([]int, len(sub)), Counts: make([]float64, cells)}
	for k, a := range sub {
		out.Sizes[k] = m.Sizes[slices.Index(m.Attrs, a)]
	}
	for c, t := range proj {
		out.Counts[t] += m.Counts[c]
	}
	return out, nil
}

// Values writes the attribute values of cell c into vals (len(m.Attrs)).
func (m *Marginal) Values(c int, vals []int) {
	for p := len(m.Attrs) - 1; p >= 0; p-- {
		vals[p] = c % m.Sizes[p]
		c /= m.Sizes[p]
	}
}
