package bayesnet

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/randx"
)

// DiscretizeOptions configure a Discretizer.
type DiscretizeOptions struct {
	// Bins is the number of equal-width bins of a numeric attribute over
	// its declared bounds (default 8). An integer attribute with at most
	// Bins values gets one bin per value. The point-mass codes (see
	// Discretizer) come on top of these bins.
	Bins int
}

// Discretizer maps a table to codes and back, using only the schema: the
// numeric bounds are the declared, public ones, so the discretisation
// reveals nothing about the data.
//
// A numeric attribute cut into bins also gets one code for each of its
// public point values: its declared minimum, and 0 when 0 lies strictly
// inside the bounds. These are where real columns pile up (a capital gain
// of 0 in 91.6 % of Adult's rows, a concavity of 0, a count floored at its
// minimum), and a bin that holds a single value decodes to that value, so
// the synthetic column keeps the point mass instead of spreading it
// uniformly over the bin it falls in. The points are chosen from the
// schema alone, never from the data.
type Discretizer struct {
	schema data.Schema
	cards  []int
	perInt []bool // numeric attribute with one bin per integer value
	// points[j] are attribute j's point-mass values (sorted); codes
	// 0 … len(points[j])−1 are they, the equal-width bins follow.
	points [][]float64
}

// NewDiscretizer validates s and o.
func NewDiscretizer(s data.Schema, o DiscretizeOptions) (*Discretizer, error) {
	o.Bins = cmp.Or(o.Bins, 8)
	if o.Bins < 2 || o.Bins > 1<<16-2 {
		return nil, fmt.Errorf("privbayes: %d bins, want 2 to 65534", o.Bins)
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("privbayes: %w", err)
	}
	s.ID = "" // the synthetic table has no IDs
	n := len(s.Attributes)
	z := &Discretizer{schema: s, cards: make([]int, n), perInt: make([]bool, n), points: make([][]float64, n)}
	for j, a := range s.Attributes {
		switch {
		case a.Kind != data.Numeric:
			z.cards[j] = len(a.Categories)
		case a.Integer && a.Max-a.Min+1 <= float64(o.Bins):
			z.cards[j], z.perInt[j] = int(a.Max-a.Min)+1, true
		default:
			z.points[j] = pointMasses(a)
			z.cards[j] = len(z.points[j]) + o.Bins
		}
		if z.cards[j] > 1<<16 {
			return nil, fmt.Errorf("privbayes: attribute %q has %d categories, more than 65536", a.Name, z.cards[j])
		}
	}
	return z, nil
}

// pointMasses are the public values of a numeric attribute that get a
// code of their own: the declared minimum, and 0 when strictly inside.
func pointMasses(a data.Attribute) []float64 {
	p := []float64{a.Min}
	if a.Min < 0 && 0 < a.Max {
		p = append(p, 0)
	}
	return p
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
	pts := z.points[j]
	if k := slices.Index(pts, v); k >= 0 {
		return k, clamped, nil
	}
	bins := z.cards[j] - len(pts)
	b := int((v - a.Min) / (a.Max - a.Min) * float64(bins))
	return len(pts) + min(b, bins-1), clamped, nil
}

// Undiscretize decodes rows of codes into a table with Schema(): a
// category code is the category, a point-mass code its value, and a
// numeric bin becomes a value drawn uniformly inside the bin (for an
// integer attribute, uniformly among the bin's integers other than the
// point masses), which is post-processing.
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
	pts := z.points[j]
	switch {
	case a.Kind != data.Numeric:
		return float64(c)
	case z.perInt[j]:
		return a.Min + float64(c)
	case c < len(pts):
		return pts[c]
	}
	c -= len(pts)
	bins := z.cards[j] - len(pts)
	width := (a.Max - a.Min) / float64(bins)
	lo, hi := a.Min+float64(c)*width, a.Min+float64(c+1)*width
	if !a.Integer {
		// The point values have probability 0 under a continuous draw.
		return lo + src.Float64()*(hi-lo)
	}
	// Integers v with lo ≤ v < hi (the last bin also holds Max), less the
	// point masses, which have codes of their own.
	first, last := math.Ceil(lo), math.Ceil(hi)-1
	if c == bins-1 {
		last = a.Max
	}
	inside := 0
	for _, p := range pts {
		if p >= first && p <= last {
			inside++
		}
	}
	count := int(last-first) + 1 - inside
	if count < 1 { // a bin holding no integer of its own: round its middle
		return math.Min(a.Max, math.Max(a.Min, math.Round((lo+hi)/2)))
	}
	// The k-th integer of the bin that is not a point (points are sorted).
	v := first + float64(src.IntN(count))
	for _, p := range pts {
		if p >= first && p <= v {
			v++
		}
	}
	return v
}
