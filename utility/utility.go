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

func histogram(t *data.Table, j int, a data.Attribute, bins int) []float64 {
	size := len(a.Categories)
	if a.Kind == data.Numeric {
		size = bins
	}
	h := make([]float64, size)
	for _, row := range t.Rows {
		k := int(row[j])
		if a.Kind == data.Numeric {
			f := (row[j] - a.Min) / (a.Max - a.Min)
			k = min(max(int(f*float64(bins)), 0), bins-1)
		}
		h[k]++
	}
	for k := range h {
		h[k] /= float64(t.Len())
	}
	return h
}
