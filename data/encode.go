package data

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// EncoderOptions configures an Encoder.
type EncoderOptions struct {
	// Exclude names attributes left out of the encoding, e.g. the label.
	Exclude []string
}

// EncodeStats counts what encoding did.
type EncodeStats struct {
	// Clamped is the number of numeric cells outside their declared bounds
	// that were clamped into them.
	Clamped int
}

// Encoder maps table rows to real vectors and back:
//   - numeric: (v-Min)/(Max-Min), clamped into [0, 1], one column;
//   - binary: the category index 0 or 1, one column;
//   - categorical: one-hot over its categories, one column per category.
//
// Every encoded cell lies in [0, 1] whatever the data, which is what
// bounds the sensitivity of statistics computed from encoded rows.
type Encoder struct {
	schema Schema // the schema given to NewEncoder
	attrs  []int  // encoded attribute indices into schema, in order
	start  []int  // start[k]: first encoded column of attrs[k]
	dim    int
}

// NewEncoder returns an encoder for tables with schema s.
func NewEncoder(s Schema, o EncoderOptions) (*Encoder, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	excluded := make(map[string]bool, len(o.Exclude))
	for _, name := range o.Exclude {
		if _, err := s.Index(name); err != nil {
			return nil, fmt.Errorf("data: exclude: %w", err)
		}
		excluded[name] = true
	}
	e := &Encoder{schema: s.clone()}
	for j, a := range s.Attributes {
		if excluded[a.Name] {
			continue
		}
		e.attrs = append(e.attrs, j)
		e.start = append(e.start, e.dim)
		e.dim += width(a)
	}
	if len(e.attrs) == 0 {
		return nil, errors.New("data: encoder excludes every attribute")
	}
	return e, nil
}

func width(a Attribute) int {
	if a.Kind == Categorical {
		return len(a.Categories)
	}
	return 1
}

// Dim returns the number of encoded columns.
func (e *Encoder) Dim() int { return e.dim }

// Attributes returns the names of the encoded attributes, in order.
func (e *Encoder) Attributes() []string {
	names := make([]string, len(e.attrs))
	for k, j := range e.attrs {
		names[k] = e.schema.Attributes[j].Name
	}
	return names
}

// Schema returns the schema of the encoded attributes, which is the
// schema of decoded tables.
func (e *Encoder) Schema() Schema {
	s, _ := e.schema.Select(e.Attributes()...)
	s.ID = ""
	return s
}

// ColumnNames names the encoded columns: the attribute name for numeric
// and binary attributes, "name=category" for one-hot columns.
func (e *Encoder) ColumnNames() []string {
	names := make([]string, 0, e.dim)
	for _, j := range e.attrs {
		a := e.schema.Attributes[j]
		if a.Kind != Categorical {
			names = append(names, a.Name)
			continue
		}
		for _, c := range a.Categories {
			names = append(names, a.Name+"="+c)
		}
	}
	return names
}

// Columns returns the encoded column indices of the named attribute.
func (e *Encoder) Columns(attr string) ([]int, error) {
	for k, j := range e.attrs {
		a := e.schema.Attributes[j]
		if a.Name != attr {
			continue
		}
		cols := make([]int, width(a))
		for i := range cols {
			cols[i] = e.start[k] + i
		}
		return cols, nil
	}
	if _, err := e.schema.Index(attr); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("data: attribute %q is excluded from the encoding", attr)
}

// Encode returns the n×Dim matrix of t's rows. t's schema must define the
// encoded attributes exactly as the encoder's schema does (it may hold
// other attributes too, in any order).
func (e *Encoder) Encode(t *Table) (*mat.Dense, EncodeStats, error) {
	if t.Len() == 0 {
		return nil, EncodeStats{}, errors.New("data: cannot encode an empty table")
	}
	src, err := e.sourceColumns(t.Schema)
	if err != nil {
		return nil, EncodeStats{}, err
	}
	m := mat.NewDense(t.Len(), e.dim, nil)
	var stats EncodeStats
	for i, row := range t.Rows {
		if len(row) != len(t.Schema.Attributes) {
			return nil, EncodeStats{}, fmt.Errorf("data: encode: row %d has %d cells, want %d", i, len(row), len(t.Schema.Attributes))
		}
		dst := m.RawRowView(i)
		for k, j := range e.attrs {
			c, err := e.encodeCell(dst, k, e.schema.Attributes[j], row[src[k]])
			if err != nil {
				return nil, EncodeStats{}, fmt.Errorf("data: encode: row %d: %w", i, err)
			}
			stats.Clamped += c
		}
	}
	return m, stats, nil
}

// sourceColumns maps each encoded attribute to its column in s.
func (e *Encoder) sourceColumns(s Schema) ([]int, error) {
	src := make([]int, len(e.attrs))
	for k, j := range e.attrs {
		want := e.schema.Attributes[j]
		i, err := s.Index(want.Name)
		if err != nil {
			return nil, fmt.Errorf("data: encode: %w", err)
		}
		if !s.Attributes[i].Equal(want) {
			return nil, fmt.Errorf("data: encode: attribute %q is declared differently in the table and the encoder", want.Name)
		}
		src[k] = i
	}
	return src, nil
}

// encodeCell writes attribute a's value v into dst and reports whether it
// was clamped.
func (e *Encoder) encodeCell(dst []float64, k int, a Attribute, v float64) (clamped int, err error) {
	at := e.start[k]
	switch a.Kind {
	case Numeric:
		if !isFinite(v) {
			return 0, fmt.Errorf("attribute %q holds %g", a.Name, v)
		}
		x := (v - a.Min) / (a.Max - a.Min)
		if x < 0 || x > 1 {
			clamped = 1
			x = min(max(x, 0), 1)
		}
		dst[at] = x
	case Binary:
		if err := checkCell(a, v); err != nil {
			return 0, err
		}
		dst[at] = v
	case Categorical:
		if err := checkCell(a, v); err != nil {
			return 0, err
		}
		clear(dst[at : at+len(a.Categories)])
		dst[at+int(v)] = 1
	}
	return clamped, nil
}

// EncodeRow encodes one row of a table with the encoder's schema into
// dst, which must have length Dim. It panics on wrong lengths or invalid
// category indices (programmer errors).
func (e *Encoder) EncodeRow(dst, row []float64) {
	if len(dst) != e.dim || len(row) != len(e.schema.Attributes) {
		panic(fmt.Sprintf("data: EncodeRow: dst has %d cells (want %d), row %d (want %d)", len(dst), e.dim, len(row), len(e.schema.Attributes)))
	}
	for k, j := range e.attrs {
		if _, err := e.encodeCell(dst, k, e.schema.Attributes[j], row[j]); err != nil {
			panic("data: EncodeRow: " + err.Error())
		}
	}
}

// Decode maps encoded rows (e.g. synthetic ones) back to a table with
// the schema of the encoded attributes (see Schema) and no IDs: numeric
// values are clipped to [0, 1] and mapped back to [Min, Max] (rounded if
// Integer), binary ones thresholded at 0.5, categorical ones set to the
// argmax of their one-hot group (the first on ties). A NaN cell decodes
// to the middle of a numeric range or to the negative binary category. It
// panics if m does not have Dim columns.
func (e *Encoder) Decode(m mat.Matrix) *Table {
	n, c := m.Dims()
	if c != e.dim {
		panic(fmt.Sprintf("data: Decode: matrix has %d columns, encoder %d", c, e.dim))
	}
	t := &Table{Schema: e.Schema(), Rows: make([][]float64, n)}
	w := len(e.attrs)
	cells := make([]float64, n*w)
	enc := make([]float64, e.dim)
	for i := range n {
		mat.Row(enc, i, m)
		row := cells[i*w : (i+1)*w : (i+1)*w]
		for k, j := range e.attrs {
			row[k] = decodeCell(e.schema.Attributes[j], enc[e.start[k]:])
		}
		t.Rows[i] = row
	}
	return t
}

func decodeCell(a Attribute, enc []float64) float64 {
	switch a.Kind {
	case Numeric:
		x := enc[0]
		if math.IsNaN(x) {
			x = 0.5
		}
		v := a.Min + min(max(x, 0), 1)*(a.Max-a.Min)
		if a.Integer {
			v = math.Round(v)
		}
		return min(max(v, a.Min), a.Max)
	case Binary:
		if enc[0] >= 0.5 {
			return 1
		}
		return 0
	default:
		group := enc[:len(a.Categories)]
		best := 0
		for i, x := range group {
			if x > group[best] || math.IsNaN(group[best]) {
				best = i
			}
		}
		return float64(best)
	}
}

// NormalizeRowsL2 scales every row of m to unit Euclidean norm; all-zero
// rows stay zero.
func NormalizeRowsL2(m *mat.Dense) {
	r, _ := m.Dims()
	for i := range r {
		row := m.RawRowView(i)
		if norm := l2(row); norm > 0 {
			scale(row, 1/norm)
		}
	}
}

// ClipRowsL2 scales every row of m whose Euclidean norm exceeds c down to
// norm c, which bounds each row's contribution to sums by c. It panics
// unless c is positive and finite (programmer error).
func ClipRowsL2(m *mat.Dense, c float64) {
	if !(c > 0) || math.IsInf(c, 1) {
		panic(fmt.Sprintf("data: ClipRowsL2: bound %g is not positive and finite", c))
	}
	r, _ := m.Dims()
	for i := range r {
		row := m.RawRowView(i)
		if norm := l2(row); norm > c {
			scale(row, c/norm)
		}
	}
}

func l2(x []float64) float64 {
	// Scale by the largest magnitude so that the sum of squares cannot
	// overflow or underflow.
	big := 0.0
	for _, v := range x {
		big = max(big, math.Abs(v))
	}
	if big == 0 || math.IsInf(big, 0) {
		return big
	}
	s := 0.0
	for _, v := range x {
		s += (v / big) * (v / big)
	}
	return big * math.Sqrt(s)
}

func scale(x []float64, f float64) {
	for i := range x {
		x[i] *= f
	}
}
