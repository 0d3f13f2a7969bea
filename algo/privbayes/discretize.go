package privbayes

import (
	"fmt"
	"math"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/randx"
)

// DiscretizeOptions configure a Discretizer.
type DiscretizeOptions struct {
	// Bins is the number of equal-width bins of a numeric attribute over
	// its declared bounds (default 8). An integer attribute with at most
	// Bins values gets one bin per value.
	Bins int
}

// Discretizer maps a table to codes and back, using only the schema: the
// numeric bounds are the declared, public ones, so the discretisation
// reveals nothing about the data.
type Discretizer struct {
	schema data.Schema
	cards  []int
	perInt []bool // numeric attribute with one bin per integer value
}

// NewDiscretizer validates s and o.
func NewDiscretizer(s data.Schema, o DiscretizeOptions) (*Discretizer, error) {
	if o.Bins == 0 {
		o.Bins = 8
	}
	if o.Bins < 2 || o.Bins > 1<<16 {
		return nil, fmt.Errorf("privbayes: %d bins, want 2 to 65536", o.Bins)
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("privbayes: %w", err)
	}
	s.ID = "" // the synthetic table has no IDs
	z := &Discretizer{schema: s, cards: make([]int, len(s.Attributes)), perInt: make([]bool, len(s.Attributes))}
	for j, a := range s.Attributes {
		switch {
		case a.Kind != data.Numeric:
			z.cards[j] = len(a.Categories)
		case a.Integer && a.Max-a.Min+1 <= float64(o.Bins):
			z.cards[j], z.perInt[j] = int(a.Max-a.Min)+1, true
		default:
			z.cards[j] = o.Bins
		}
		if z.cards[j] > 1<<16 {
			return nil, fmt.Errorf("privbayes: attribute %q has %d categories, more than 65536", a.Name, z.cards[j])
		}
	}
	return z, nil
}

// Cards is the number of codes of each attribute.
func (z *Discretizer) Cards() []int { return append([]int(nil), z.cards...) }

// Schema is the schema of decoded tables (the input's, without IDs).
func (z *Discretizer) Schema() data.Schema { return z.schema }

// Discretize encodes t, whose attributes must match the schema's, and
// counts the numeric values clamped into the declared bounds (a count that
// is not private: for local use only).
func (z *Discretizer) Discretize(t *data.Table) (*Data, int, error) {
	if len(t.Schema.Attributes) != len(z.schema.Attributes) {
		return nil, 0, fmt.Errorf("privbayes: table has %d attributes, the schema %d", len(t.Schema.Attributes), len(z.schema.Attributes))
	}
	for j, a := range t.Schema.Attributes {
		if !a.Equal(z.schema.Attributes[j]) {
			return nil, 0, fmt.Errorf("privbayes: attribute %d (%q) differs from the schema's", j, a.Name)
		}
	}
	clamped := 0
	rows := make([][]int, t.Len())
	for i, r := range t.Rows {
		rows[i] = make([]int, len(r))
		for j, v := range r {
			c, cl, err := z.code(j, v)
			if err != nil {
				return nil, 0, fmt.Errorf("privbayes: row %d: %w", i, err)
			}
			rows[i][j] = c
			clamped += cl
		}
	}
	d, err := NewData(z.cards, rows)
	return d, clamped, err
}

func (z *Discretizer) code(j int, v float64) (int, int, error) {
	a := z.schema.Attributes[j]
	if a.Kind != data.Numeric {
		if v != math.Trunc(v) || v < 0 || int(v) >= z.cards[j] {
			return 0, 0, fmt.Errorf("attribute %q holds %v, not a category index", a.Name, v)
		}
		return int(v), 0, nil
	}
	if math.IsNaN(v) {
		return 0, 0, fmt.Errorf("attribute %q holds NaN", a.Name)
	}
	clamped := 0
	if v < a.Min || v > a.Max {
		v, clamped = math.Max(a.Min, math.Min(a.Max, v)), 1
	}
	if z.perInt[j] {
		return int(math.Round(v - a.Min)), clamped, nil
	}
	b := int((v - a.Min) / (a.Max - a.Min) * float64(z.cards[j]))
	return min(b, z.cards[j]-1), clamped, nil
}

// Undiscretize decodes rows of codes into a table with Schema(): a
// category code is the category; a numeric bin becomes a value drawn
// uniformly inside the bin (for an integer attribute, uniformly among the
// bin's integers), which is post-processing.
func (z *Discretizer) Undiscretize(rows [][]int, src *randx.Source) *data.Table {
	t := &data.Table{Schema: z.schema, Rows: make([][]float64, len(rows))}
	for i, r := range rows {
		out := make([]float64, len(r))
		for j, c := range r {
			out[j] = z.value(j, c, src)
		}
		t.Rows[i] = out
	}
	return t
}

func (z *Discretizer) value(j, c int, src *randx.Source) float64 {
	a := z.schema.Attributes[j]
	switch {
	case a.Kind != data.Numeric:
		return float64(c)
	case z.perInt[j]:
		return a.Min + float64(c)
	}
	width := (a.Max - a.Min) / float64(z.cards[j])
	lo, hi := a.Min+float64(c)*width, a.Min+float64(c+1)*width
	if !a.Integer {
		return lo + src.Float64()*(hi-lo)
	}
	// Integers v with lo ≤ v < hi (the last bin also holds Max).
	first, last := math.Ceil(lo), math.Ceil(hi)-1
	if c == z.cards[j]-1 {
		last = a.Max
	}
	if last < first { // a bin narrower than one integer: round its middle
		return math.Min(a.Max, math.Max(a.Min, math.Round((lo+hi)/2)))
	}
	return first + float64(src.IntN(int(last-first)+1))
}
