package audit

import (
	"math"
	"testing"

	"github.com/dppub/dppub/randx"
)

// noiseSamples draws runs samples of cells Gaussian residuals of variance
// kappa (the requests stating 1) whose moves carry loss each run.
func noiseSamples(runs, cells int, kappa, loss float64, seed uint64) []NoiseSample {
	src := randx.NewSeeded(seed)
	out := make([]NoiseSample, runs)
	for i := range out {
		out[i] = NoiseSample{Cells: cells, Loss: loss}
		for range cells {
			z := math.Sqrt(kappa) * src.NormFloat64()
			out[i].SumSq += z * z
		}
	}
	return out
}

// The noise test recovers ρ = loss/κ: the claimed noise gives a bound just
// below the loss, a quarter of the variance (halved noise) about four
// times it, no noise the largest float; it refuses negative or NaN
// sums. At κ = 1 the bound exceeds the true loss at the rate α allows:
// 2 of 200 seeds at α = 0.01 (the test fails above 8, probability 2e-4).
func TestNoiseTest(t *testing.T) {
	for _, c := range []struct {
		name     string
		samples  []NoiseSample
		min, max float64
	}{
		{"claimed noise", noiseSamples(300, 12, 1, 0.036, 1), 0.034, 0.036},
		{"halved noise", noiseSamples(300, 12, 0.25, 0.036, 2), 0.135, 0.144},
		{"no noise", []NoiseSample{{Cells: 3, Loss: 0.1}}, math.MaxFloat64, math.MaxFloat64},
		{"no cells", []NoiseSample{{}}, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := noiseTest(c.samples, 0.01)
			if err != nil {
				t.Fatal(err)
			}
			if r.RhoLower < c.min || r.RhoLower > c.max {
				t.Errorf("ρ ≥ %.4g (κ %.4g ≤ %.4g), want in [%g, %g]", r.RhoLower, r.VarianceRatio, r.VarianceRatioUpper, c.min, c.max)
			}
		})
	}
	exceeded := 0
	for seed := range uint64(200) {
		r, err := noiseTest(noiseSamples(50, 12, 1, 0.036, 100+seed), 0.01)
		if err != nil {
			t.Fatal(err)
		}
		if r.RhoLower > 0.036 {
			exceeded++
		}
	}
	t.Logf("the bound exceeded the true ρ in %d of 200 seeds", exceeded)
	if exceeded > 8 { // Binomial(200, 0.01) exceeds 8 with probability 2e-4
		t.Errorf("the bound exceeded the true ρ in %d of 200 seeds at α = 0.01", exceeded)
	}
	for _, bad := range []NoiseSample{{SumSq: -1, Cells: 1}, {SumSq: math.NaN(), Cells: 1}, {Cells: 1, Loss: -1}} {
		if _, err := noiseTest([]NoiseSample{bad}, 0.01); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
