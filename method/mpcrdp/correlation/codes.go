package correlation

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/dppub/dppub/data"
)

// DefaultBins is the number of equal-width bins of a numeric feature.
const DefaultBins = 10

// Codes are n records over l features, each value an integer code.
type Codes struct {
	features []string
	levels   []int
	n        int
	data     []uint32 // row-major n × l
}

// NewCodes builds codes from rows of l values each; levels[f] is the number
// of codes feature f can take (every value must be below it).
func NewCodes(features []string, levels []int, rows [][]uint32) (*Codes, error) {
	l := len(features)
	if l == 0 {
		return nil, fmt.Errorf("correlation: no features")
	}
	if len(levels) != l {
		return nil, fmt.Errorf("correlation: %d levels for %d features", len(levels), l)
	}
	if err := uniqueNames(features); err != nil {
		return nil, err
	}
	for f, lv := range levels {
		if lv < 1 {
			return nil, fmt.Errorf("correlation: feature %q has %d levels", features[f], lv)
		}
	}
	c := &Codes{features: slices.Clone(features), levels: slices.Clone(levels), n: len(rows),
		data: make([]uint32, 0, len(rows)*l)}
	for i, r := range rows {
		if len(r) != l {
			return nil, fmt.Errorf("correlation: row %d has %d values, want %d", i, len(r), l)
		}
		for f, v := range r {
			if int(v) >= levels[f] {
				return nil, fmt.Errorf("correlation: row %d feature %q has code %d, above its %d levels", i, features[f], v, levels[f])
			}
		}
		c.data = append(c.data, r...)
	}
	return c, nil
}

func uniqueNames(names []string) error {
	seen := map[string]bool{}
	for _, s := range names {
		if seen[s] {
			return fmt.Errorf("correlation: feature %q named twice", s)
		}
		seen[s] = true
	}
	return nil
}

// Len is the number of records n.
func (c *Codes) Len() int { return c.n }

// L is the number of features l.
func (c *Codes) L() int { return len(c.features) }

// Features names the features in column order.
func (c *Codes) Features() []string { return slices.Clone(c.features) }

// Levels returns the number of codes of each feature.
func (c *Codes) Levels() []int { return slices.Clone(c.levels) }

// Row returns record i's codes (a view: do not modify).
func (c *Codes) Row(i int) []uint32 {
	l := len(c.features)
	return c.data[i*l : (i+1)*l : (i+1)*l]
}

// Select returns the codes of the named features, in the order given.
func (c *Codes) Select(features ...string) (*Codes, error) {
	if len(features) == 0 {
		return nil, fmt.Errorf("correlation: select: no features")
	}
	if err := uniqueNames(features); err != nil {
		return nil, err
	}
	idx := make([]int, len(features))
	levels := make([]int, len(features))
	for k, name := range features {
		idx[k] = slices.Index(c.features, name)
		if idx[k] < 0 {
			return nil, fmt.Errorf("correlation: select: no feature %q (have %q)", name, c.features)
		}
		levels[k] = c.levels[idx[k]]
	}
	out := &Codes{features: slices.Clone(features), levels: levels, n: c.n, data: make([]uint32, c.n*len(idx))}
	l := len(c.features)
	for i := range c.n {
		row := c.data[i*l : (i+1)*l]
		dst := out.data[i*len(idx) : (i+1)*len(idx)]
		for k, j := range idx {
			dst[k] = row[j]
		}
	}
	return out, nil
}

// Subset returns the codes of the given records, in that order.
func (c *Codes) Subset(rows []int) *Codes {
	l := len(c.features)
	out := &Codes{features: slices.Clone(c.features), levels: slices.Clone(c.levels), n: len(rows),
		data: make([]uint32, 0, len(rows)*l)}
	for _, i := range rows {
		out.data = append(out.data, c.Row(i)...)
	}
	return out
}

// DiscretizeOptions configure Discretize.
type DiscretizeOptions struct {
	// Bins is the number of equal-width bins of a numeric attribute over
	// its declared bounds (default DefaultBins).
	Bins int
}

// Discretize codes the named attributes of t (all when features is nil):
// categorical and binary attributes by category index; numeric ones by
// equal-width bin over the declared bounds, or by exact value for an
// integer attribute with at most Bins declared values. The coding uses only
// the schema, never the data, so every party codes alike.
func Discretize(t *data.Table, features []string, o DiscretizeOptions) (*Codes, error) {
	o.Bins = cmp.Or(o.Bins, DefaultBins)
	if o.Bins < 1 || o.Bins > 1<<16 {
		return nil, fmt.Errorf("correlation: %d bins, want 1 to 65536", o.Bins)
	}
	if features == nil {
		features = t.Schema.Names()
	}
	cols := make([]int, len(features))
	coders := make([]func(float64) uint32, len(features))
	levels := make([]int, len(features))
	for k, name := range features {
		j, err := t.Schema.Index(name)
		if err != nil {
			return nil, fmt.Errorf("correlation: %w", err)
		}
		cols[k] = j
		levels[k], coders[k] = Coder(t.Schema.Attributes[j], o.Bins)
	}
	rows := make([][]uint32, t.Len())
	for i, r := range t.Rows {
		rows[i] = make([]uint32, len(cols))
		for k, j := range cols {
			rows[i][k] = coders[k](r[j])
		}
	}
	return NewCodes(features, levels, rows)
}

// Coder returns the number of codes of attribute a and the function mapping
// a table cell to its code (see Discretize).
func Coder(a data.Attribute, bins int) (int, func(float64) uint32) {
	if a.Kind != data.Numeric {
		top := uint32(len(a.Categories) - 1)
		return len(a.Categories), func(v float64) uint32 { return min(uint32(max(v, 0)), top) }
	}
	if span := a.Max - a.Min; a.Integer && span+1 <= float64(bins) {
		levels := int(span) + 1
		return levels, func(v float64) uint32 {
			return uint32(math.Min(math.Max(math.Round(v-a.Min), 0), float64(levels-1)))
		}
	}
	width := (a.Max - a.Min) / float64(bins)
	return bins, func(v float64) uint32 {
		b := math.Floor((v - a.Min) / width)
		return uint32(math.Min(math.Max(b, 0), float64(bins-1)))
	}
}
