package quality

import (
	"math"
	"slices"
	"strconv"

	"github.com/dppub/dppub/data"
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
	Labels []string  `json:"labels"`
	Real   []float64 `json:"real"`
	Synth  []float64 `json:"synthetic"`
}

func compareColumns(real, synth *data.Table, bins int) []Column {
	out := make([]Column, len(real.Schema.Attributes))
	for j, a := range real.Schema.Attributes {
		c := Column{Name: a.Name, Kind: a.Kind.String(), Labels: cellLabels(a, bins)}
		c.Real, c.Synth = shares(real, j, a, bins), shares(synth, j, a, bins)
		c.TVD = tvd(c.Real, c.Synth)
		if a.Kind == data.Numeric {
			r, s := clampedSorted(real, j, a), clampedSorted(synth, j, a)
			w1, ks := w1KS(r, s)
			w1 /= a.Max - a.Min
			c.W1, c.KS = &w1, &ks
		}
		out[j] = c
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

// w1KS returns ∫|F−G| and sup|F−G| of the empirical distribution
// functions of two sorted samples, by one merge.
func w1KS(x, y []float64) (w1, ks float64) {
	i, k := 0, 0
	prev := math.Min(x[0], y[0])
	for i < len(x) || k < len(y) {
		var v float64
		switch {
		case k >= len(y) || (i < len(x) && x[i] <= y[k]):
			v = x[i]
		default:
			v = y[k]
		}
		gap := math.Abs(float64(i)/float64(len(x)) - float64(k)/float64(len(y)))
		w1 += gap * (v - prev)
		for i < len(x) && x[i] == v {
			i++
		}
		for k < len(y) && y[k] == v {
			k++
		}
		ks = math.Max(ks, math.Abs(float64(i)/float64(len(x))-float64(k)/float64(len(y))))
		prev = v
	}
	return w1, ks
}
