package marginal

import (
	"math"

	"github.com/dppub/dppub/engine/marginal/infer"
	"github.com/dppub/dppub/engine/marginal/internal/attrset"
)

// ErrorBar is the analytic noise error of one marginal the engine
// answers from its measurements: the Gaussian noise of the best
// measurement covering it (the set itself, or a measured superset summed
// down to it), expressed as the L1 and total-variation error that noise
// alone would cause. It is computed from public quantities (σ, cell
// counts, n) only. It describes the measurement the model was fitted to;
// the synthetic data's marginal also carries the model's and the
// sampling's error, smaller where consistency across overlapping
// measurements averages noise out, larger where the model must guess.
type ErrorBar struct {
	Attrs []int `json:"attrs"`
	Cells int   `json:"cells"`
	// Covered says some measurement holds every attribute of the set; the
	// other fields are 0 when it is false (no noise bound: the answer is
	// the model's extrapolation).
	Covered bool `json:"covered"`
	// Sigma is the per-cell noise standard deviation of the answer: σ of
	// the covering measurement (merged by inverse variance when measured
	// repeatedly) times √k when each answered cell sums k measured ones.
	Sigma float64 `json:"sigma"`
	// ExpectedTVD is E‖z‖₁/(2n) = cells·σ·√(2/π)/(2n).
	ExpectedTVD float64 `json:"expected_tvd"`
	// TVD95 bounds the noise's TVD with probability 0.95:
	// ‖z‖₁ is √cells·σ-Lipschitz in a standard Gaussian vector, so
	// P(‖z‖₁ ≥ E‖z‖₁ + t) ≤ exp(−t²/(2·cells·σ²)) (Gaussian concentration),
	// t = σ·√(2·cells·ln 20).
	TVD95 float64 `json:"tvd95"`
}

// WorkloadError summarises the error bars of a workload.
type WorkloadError struct {
	Queries, Covered int
	// MeanExpectedTVD and MeanTVD95 average the covered queries' bars.
	MeanExpectedTVD, MeanTVD95 float64
}

// errorBars returns the bar of every set (sorted attributes of a domain
// of the given sizes) from the measurements ms of a table of n records.
func errorBars(sizes []int, ms []*infer.Noisy, sets [][]int, n int) []ErrorBar {
	measured := mergeSets(ms)
	out := make([]ErrorBar, len(sets))
	for i, s := range sets {
		cells := 1
		for _, a := range s {
			cells *= sizes[a]
		}
		b := ErrorBar{Attrs: s, Cells: cells}
		best := math.Inf(1)
		for _, m := range measured {
			if !attrset.Subset(s, m.m.Attrs) {
				continue
			}
			k := 1
			for _, a := range attrset.Minus(m.m.Attrs, s) {
				k *= sizes[a]
			}
			best = math.Min(best, m.variance*float64(k))
		}
		if !math.IsInf(best, 1) && cells > 0 {
			sigma := math.Sqrt(best)
			b.Covered, b.Sigma = true, sigma
			l1 := float64(cells) * sigma * math.Sqrt(2/math.Pi)
			b.ExpectedTVD = l1 / (2 * float64(n))
			b.TVD95 = (l1 + sigma*math.Sqrt(2*float64(cells)*math.Log(20))) / (2 * float64(n))
		}
		out[i] = b
	}
	return out
}

// summarise averages the covered bars.
func summarise(bars []ErrorBar) WorkloadError {
	w := WorkloadError{Queries: len(bars)}
	for _, b := range bars {
		if b.Covered {
			w.Covered++
			w.MeanExpectedTVD += b.ExpectedTVD
			w.MeanTVD95 += b.TVD95
		}
	}
	if w.Covered > 0 {
		w.MeanExpectedTVD /= float64(w.Covered)
		w.MeanTVD95 /= float64(w.Covered)
	}
	return w
}
