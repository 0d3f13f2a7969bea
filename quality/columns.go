package quality

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/utility"
)

// Column compares one attribute's distributions.
type Column struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	// TVD is the total variation distance between the binned (numeric) or
	// categorical distributions, in [0, 1].
	TVD float64 `json:"tvd"`
	// W1 is the Wasserstein-1 distance of a numeric attribute divided by
	// its declared range (so in [0, 1]); KS the Kolmogorov–Smirnov
	// statistic. Both nil for categorical and binary attributes.
	W1 *float64 `json:"wasserstein1_over_range,omitempty"`
	KS *float64 `json:"ks,omitempty"`
	// Labels name the bins or categories; Real and Synth their shares.
	// A numeric column's point mass (PointMass) has a bar of its own,
	// first, labelled "= v", and the bins hold the other values; TVD is
	// over the bins alone, as the marginals' distances are.
	Labels []string  `json:"labels"`
	Real   []float64 `json:"real"`
	Synth  []float64 `json:"synthetic"`
	// PointMass is the exact value holding the largest share of the real
	// column when that share is at least PointMassShare (a zero-inflated
	// column's 0), with its real and synthetic shares.
	PointMass *PointMass `json:"point_mass,omitempty"`
	// RealRange and SynthRange are the smallest and largest values of a
	// numeric column.
	RealRange  *[2]float64 `json:"real_range,omitempty"`
	SynthRange *[2]float64 `json:"synthetic_range,omitempty"`
}

// PointMass is one exact value's share of a column.
type PointMass struct {
	Value float64 `json:"value"`
	Real  float64 `json:"real"`
	Synth float64 `json:"synthetic"`
}

// PointMassShare is the share of rows at which one exact value of a
// numeric column is shown (and checked) as a point mass of its own.
const PointMassShare = 0.05

func compareColumns(real, synth *data.Table, bins int) []Column {
	out := make([]Column, len(real.Schema.Attributes))
	for j, a := range real.Schema.Attributes {
		c := Column{Name: a.Name, Kind: a.Kind.String(), Labels: cellLabels(a, bins)}
		c.Real, c.Synth = shares(real, j, a, bins), shares(synth, j, a, bins)
		c.TVD = tvd(c.Real, c.Synth)
		if a.Kind == data.Numeric {
			r, s := clampedSorted(real, j, a), clampedSorted(synth, j, a)
			d := utility.NumericDistanceOf(a, utility.Histogram(r), s)
			c.W1, c.KS = &d.W1Range, &d.KS
			c.RealRange, c.SynthRange = &[2]float64{r[0], r[len(r)-1]}, &[2]float64{s[0], s[len(s)-1]}
			splitPointMass(&c, a, bins, d)
		}
		out[j] = c
	}
	return out
}

// splitPointMass gives the column's point mass, if it has one, a bar of
// its own: on equal-width bins alone a column that is 0 in 99 % of rows
// and a synthetic column with no zero at all can look the same, all in
// the first bin. d compares the column's values.
func splitPointMass(c *Column, a data.Attribute, bins int, d utility.NumericDistance) {
	if d.RealMass < PointMassShare {
		return
	}
	pm := &PointMass{Value: d.Mode, Real: d.RealMass, Synth: d.SynthMass}
	c.PointMass = pm
	k := cell(a, d.Mode, bins)
	c.Labels = append([]string{"= " + strconv.FormatFloat(d.Mode, 'g', 6, 64)}, c.Labels...)
	c.Real = append([]float64{pm.Real}, c.Real...)
	c.Synth = append([]float64{pm.Synth}, c.Synth...)
	c.Real[k+1] -= pm.Real
	c.Synth[k+1] -= pm.Synth
}

// columnWarnings says where a numeric column's point mass or range is
// not kept in the synthetic table.
func columnWarnings(cols []Column) []string {
	var out []string
	for _, c := range cols {
		if pm := c.PointMass; pm != nil && math.Abs(pm.Real-pm.Synth) > max(0.05, pm.Real/2) {
			out = append(out, fmt.Sprintf("column %s: value %g: %.1f%% real, %.1f%% synthetic (the point mass is not kept)", c.Name, pm.Value, 100*pm.Real, 100*pm.Synth))
		}
		if r, s := c.RealRange, c.SynthRange; r != nil && s != nil && r[1] > r[0] {
			span := r[1] - r[0]
			covered := (min(r[1], s[1]) - max(r[0], s[0])) / span
			if covered < 0.5 || s[0] < r[0]-span/2 || s[1] > r[1]+span/2 {
				out = append(out, fmt.Sprintf("column %s: real values lie in [%g, %g], synthetic in [%g, %g] (the range is not kept)", c.Name, r[0], r[1], s[0], s[1]))
			}
		}
	}
	return out
}

// cell returns the discrete cell of value v: its category, or its bin of
// `bins` equal-width bins over the declared bounds (clamped).
func cell(a data.Attribute, v float64, bins int) int {
	if a.Kind != data.Numeric {
		return int(v)
	}
	f := (v - a.Min) / (a.Max - a.Min)
	return min(max(int(f*float64(bins)), 0), bins-1)
}

func cells(a data.Attribute, bins int) int {
	if a.Kind == data.Numeric {
		return bins
	}
	return len(a.Categories)
}

func cellLabels(a data.Attribute, bins int) []string {
	if a.Kind != data.Numeric {
		return slices.Clone(a.Categories)
	}
	edge := func(k int) string {
		return strconv.FormatFloat(a.Min+(a.Max-a.Min)*float64(k)/float64(bins), 'g', 4, 64)
	}
	labels := make([]string, bins)
	for k := range labels {
		labels[k] = edge(k) + "–" + edge(k+1)
	}
	return labels
}

func shares(t *data.Table, j int, a data.Attribute, bins int) []float64 {
	h := make([]float64, cells(a, bins))
	for _, row := range t.Rows {
		h[cell(a, row[j], bins)]++
	}
	for k := range h {
		h[k] /= float64(t.Len())
	}
	return h
}

func tvd(p, q []float64) float64 {
	d := 0.0
	for k := range p {
		d += math.Abs(p[k] - q[k])
	}
	return d / 2
}

func clampedSorted(t *data.Table, j int, a data.Attribute) []float64 {
	v := make([]float64, t.Len())
	for i, row := range t.Rows {
		v[i] = min(max(row[j], a.Min), a.Max)
	}
	slices.Sort(v)
	return v
}
