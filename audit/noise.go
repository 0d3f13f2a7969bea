package audit

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// The noise test of this file is a grey-box complement to the threshold
// events of Run, for a view made of additive Gaussian releases whose true
// values the audit knows (the views of a synthesize-rows run). A threshold
// event sees one bit per run; the noise itself is visible in every cell
// of every release, so its variance, and with it the privacy loss the
// canary's moves really carry, can be bounded from a few hundred runs.
//
// For Gaussian releases of variance s_i² whose means move by d_i between
// D and D', the KL divergence of the whole view is E_D[Σ_i d_i²/(2 s_i²)]
// (the chain rule; the expectation is over the adaptive path), and a
// ρ-zCDP claim bounds it by ρ (the Rényi divergence of order α → 1). With
// s_i² = κ·v_i, v_i the variance the request states, and residuals r = y −
// E[y] of the cells the canary moves, Σ r²/v ~ κ·χ²_M over M cells, so
//
//	κ ≤ κ_up = Σ r²/v / χ²_M⁻¹(α)   with probability 1 − α, and
//	ρ ≥ min over runs of Σ_i d_i²/(2 v_i) / κ_up.
//
// The minimum over runs is at most the mean over either side's paths, so
// the bound holds for either order of the pair. Assumptions, beyond Run's
// none: the view's noise on those cells is Gaussian (a discrete Gaussian
// of many grid steps, or a sum of such shares, is, to far below the
// sampling error), independent of the data, and its variances are the
// request's times one common factor κ (true of the sound protocol and of
// every variant here; a leak that thins the noise on some releases only
// is measured at the pooled κ).

// NoiseSample is what one run of a view tells the noise test.
type NoiseSample struct {
	// SumSq is Σ r²/v over the cells the canary moves: r the residual
	// of the view (what it reads minus its mean on the run's side), v the
	// variance the release's request states for the noise left in the
	// view.
	SumSq float64
	// Cells is the number of terms of SumSq.
	Cells int
	// Loss is Σ d²/(2v) over the same cells, d the move of the mean from
	// D to D': the run's KL divergence if the noise is as the requests
	// state.
	Loss float64
}

// NoiseTest is the outcome of the noise test (see above).
type NoiseTest struct {
	// Cells is the number of residuals over both batches' runs.
	Cells int `json:"cells"`
	// VarianceRatio is the estimate Σ r²/v / Cells of κ, the view's noise
	// variance over the requests'; VarianceRatioUpper its upper bound.
	VarianceRatio      float64 `json:"variance_ratio"`
	VarianceRatioUpper float64 `json:"variance_ratio_upper"`
	// LossMin is the smallest per-run Loss; RhoLower = LossMin /
	// VarianceRatioUpper bounds the claim's ρ from below.
	LossMin  float64 `json:"loss_min"`
	RhoLower float64 `json:"rho_lower"`
	// Alpha is the test's false-rejection rate (its share of 1 −
	// Confidence).
	Alpha float64 `json:"alpha"`
}

// noiseTest bounds ρ from the runs' samples at level alpha.
func noiseTest(samples []NoiseSample, alpha float64) (*NoiseTest, error) {
	t := &NoiseTest{Alpha: alpha, LossMin: math.Inf(1)}
	sum := 0.0
	for _, s := range samples {
		if s.Cells < 0 || s.SumSq < 0 || s.Loss < 0 || math.IsNaN(s.SumSq) || math.IsNaN(s.Loss) {
			return nil, fmt.Errorf("audit: noise sample %+v is not a sum of squares", s)
		}
		t.Cells += s.Cells
		sum += s.SumSq
		t.LossMin = math.Min(t.LossMin, s.Loss)
	}
	if t.Cells == 0 || len(samples) == 0 {
		t.LossMin = 0
		return t, nil
	}
	t.VarianceRatio = sum / float64(t.Cells)
	t.VarianceRatioUpper = sum / distuv.ChiSquared{K: float64(t.Cells)}.Quantile(alpha)
	if t.VarianceRatioUpper == 0 {
		// No noise at all in the cells the canary moves: the view tells
		// D from D' with certainty (the largest float, as JSON has no ∞).
		t.RhoLower = math.MaxFloat64
		if t.LossMin == 0 {
			t.RhoLower = 0
		}
		return t, nil
	}
	t.RhoLower = t.LossMin / t.VarianceRatioUpper
	return t, nil
}
