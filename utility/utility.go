package utility

import (
	"fmt"
	"math"

	"github.com/dppub/dppub/data"
)

// MarginalTVD returns, per attribute, the total variation distance between
// the real and synthetic one-way marginals (numeric attributes binned into
// `bins` equal bins over their declared bounds), and their mean.
func MarginalTVD(real, synth *data.Table, bins int) (map[string]float64, float64, error) {
	if !real.Schema.Equal(synth.Schema) {
		return nil, 0, fmt.Errorf("utility: real and synthetic schemas differ")
	}
	if real.Len() == 0 || synth.Len() == 0 {
		return nil, 0, fmt.Errorf("utility: empty table (real %d rows, synthetic %d)", real.Len(), synth.Len())
	}
	if bins < 1 {
		return nil, 0, fmt.Errorf("utility: bins = %d, need at least 1", bins)
	}
	out := map[string]float64{}
	total := 0.0
	for j, a := range real.Schema.Attributes {
		hr, hs := histogram(real, j, a, bins), histogram(synth, j, a, bins)
		tvd := 0.0
		for k := range hr {
			tvd += math.Abs(hr[k] - hs[k])
		}
		out[a.Name] = tvd / 2
		total += tvd / 2
	}
	return out, total / float64(len(real.Schema.Attributes)), nil
}

// PairTVD returns the mean total variation distance between the real and
// synthetic 2-way marginals over every pair of attributes (numeric
// attributes binned as MarginalTVD bins them).
func PairTVD(real, synth *data.Table, bins int) (float64, error) {
	if _, _, err := MarginalTVD(real, synth, bins); err != nil {
		return 0, err
	}
	attrs := real.Schema.Attributes
	if len(attrs) < 2 {
		return 0, fmt.Errorf("utility: %d attributes have no pairs", len(attrs))
	}
	sum, pairs := 0.0, 0
	for a := range attrs {
		for b := a + 1; b < len(attrs); b++ {
			hr := pairHistogram(real, a, b, bins)
			hs := pairHistogram(synth, a, b, bins)
			tvd := 0.0
			for k := range hr {
				tvd += math.Abs(hr[k] - hs[k])
			}
			sum += tvd / 2
			pairs++
		}
	}
	return sum / float64(pairs), nil
}

// cell is the bin of value v of attribute a (its category, or one of
// bins equal-width bins over its declared bounds) and the bin count.
func cell(a data.Attribute, v float64, bins int) (int, int) {
	if a.Kind != data.Numeric {
		return int(v), len(a.Categories)
	}
	f := (v - a.Min) / (a.Max - a.Min)
	return min(max(int(f*float64(bins)), 0), bins-1), bins
}

func pairHistogram(t *data.Table, a, b, bins int) []float64 {
	A, B := t.Schema.Attributes[a], t.Schema.Attributes[b]
	_, na := cell(A, A.Min, bins)
	_, nb := cell(B, B.Min, bins)
	h := make([]float64, na*nb)
	for _, row := range t.Rows {
		i, _ := cell(A, row[a], bins)
		j, _ := cell(B, row[b], bins)
		h[i*nb+j]++
	}
	for k := range h {
		h[k] /= float64(t.Len())
	}
	return h
}

func histogram(t *data.Table, j int, a data.Attribute, bins int) []float64 {
	_, size := cell(a, a.Min, bins)
	h := make([]float64, size)
	for _, row := range t.Rows {
		k, _ := cell(a, row[j], bins)
		h[k]++
	}
	for k := range h {
		h[k] /= float64(t.Len())
	}
	return h
}
