package marginal

import (
	"math"
	"testing"
)

// A fitting step that overflows or underflows every potential must leave
// a usable model: with counts of 24 records and noise of σ ≈ 10 (ρ =
// 0.02 on a tiny table) a step could once turn the model's marginals into
// NaN, which selection then refused.
func TestNormaliseToNeverReturnsNaN(t *testing.T) {
	cases := map[string][]float64{
		"all zero":     {0, 0, 0, 0},
		"overflowed":   {math.Inf(1), 1, 2, 3},
		"nan":          {math.NaN(), 1, 2, 3},
		"ordinary":     {1, 2, 3, 4},
		"one non-zero": {0, 0, 5, 0},
	}
	for name, v := range cases {
		t.Run(name, func(t *testing.T) {
			normaliseTo(v, 24)
			s := 0.0
			for _, x := range v {
				if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
					t.Fatalf("entry %v", x)
				}
				s += x
			}
			if math.Abs(s-24) > 1e-9 {
				t.Fatalf("sum %v, want 24", s)
			}
		})
	}
	v := []float64{math.Inf(1), 1}
	rescale(v)
	if !math.IsInf(v[0], 1) || v[1] != 1 {
		t.Fatalf("rescale by an infinite top changed %v", v)
	}
}
