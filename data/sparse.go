package data

import (
	"fmt"
	"math"
)

// RowEncoder encodes single rows of tables with one schema into the
// encoder's columns, as a list of nonzero entries: the one-pass path for
// owner statistics, which never builds the n×Dim matrix. Its encoding is
// exactly Encoder.Encode's (a test checks every cell on Adult).
type RowEncoder struct {
	e    *Encoder
	src  []int // src[k]: column of encoded attribute k in the table's rows
	kind []Kind
}

// RowEncoder returns an encoder for rows of tables with schema s, which
// must define the encoded attributes as the encoder's schema does.
func (e *Encoder) RowEncoder(s Schema) (*RowEncoder, error) {
	src, err := e.sourceColumns(s)
	if err != nil {
		return nil, err
	}
	r := &RowEncoder{e: e, src: src, kind: make([]Kind, len(e.attrs))}
	for k, j := range e.attrs {
		r.kind[k] = e.schema.Attributes[j].Kind
	}
	return r, nil
}

// Dim is the number of encoded columns.
func (r *RowEncoder) Dim() int { return r.e.dim }

// Sparse appends row's nonzero encoded entries to idx and val, in
// increasing column order, and returns them with the number of numeric
// cells clamped into their bounds. A cell Encode would refuse is an error.
func (r *RowEncoder) Sparse(row []float64, idx []int, val []float64) ([]int, []float64, int, error) {
	if len(row) < len(r.src) {
		return idx, val, 0, fmt.Errorf("data: encode: row has %d cells, want at least %d", len(row), len(r.src))
	}
	clamped := 0
	for k, j := range r.e.attrs {
		a := &r.e.schema.Attributes[j]
		v := row[r.src[k]]
		at := r.e.start[k]
		switch r.kind[k] {
		case Numeric:
			if !isFinite(v) {
				return idx, val, 0, fmt.Errorf("data: encode: attribute %q holds %g", a.Name, v)
			}
			x := (v - a.Min) / (a.Max - a.Min)
			if x < 0 || x > 1 {
				clamped++
				x = min(max(x, 0), 1)
			}
			if x != 0 {
				idx, val = append(idx, at), append(val, x)
			}
		default:
			// checkCell's test, without its copy of the attribute for
			// every cell: it runs only to word the error.
			if v != math.Trunc(v) || v < 0 || int(v) >= len(a.Categories) {
				return idx, val, 0, fmt.Errorf("data: encode: %w", checkCell(*a, v))
			}
			if r.kind[k] == Binary {
				if v != 0 {
					idx, val = append(idx, at), append(val, v)
				}
				continue
			}
			idx, val = append(idx, at+int(v)), append(val, 1)
		}
	}
	return idx, val, clamped, nil
}
