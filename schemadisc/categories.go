package schemadisc

import (
	"fmt"
	"math"
	"slices"

	"github.com/dppub/dppub/dp"
)

// CategoriesResult is what Categories found for one column.
type CategoriesResult struct {
	// Kept lists the selected values, sorted.
	Kept []string
	// Threshold is the keep threshold in rows.
	Threshold float64
	// Spec is the mechanism, for the privacy report.
	Spec dp.Spec
}

// Categories selects the values of an open categorical column by
// Gaussian partition selection (Korolova, Kenthapadi, Mishra & Ntoulas,
// WWW 2009; Desfontaines, Voss, Gipson & Mandayam, PoPETs 2022): every
// value present in the data gets its count released with discrete
// Gaussian noise of scale sigma on a public grid (dp.Noiser), and is kept
// when the noisy count reaches τ = 1 + s·√(2 ln(1/δ_sel)), s the noise
// actually drawn. The noisy counts themselves are not released.
//
// Guarantee: a replaced record lowers one value's count by 1 and raises
// another's by 1 (L2 sensitivity √2), so the counts of values present in
// both neighbours are ρ-zCDP with ρ = 1/σ². A value held by that record
// alone exists in one neighbour only, with count 1, and is kept with
// probability P(noise ≥ τ − 1) ≤ exp(−(τ−1)²/(2s²)) = δ_sel (the
// discrete Gaussian is sub-Gaussian with parameter s: Canonne, Kamath &
// Steinke 2020, Cor. 9); that event is independent of the other counts,
// so the selection is δ_sel-approximately ρ-zCDP (see plan). Counts are
// integers, exact on any grid of step ≤ 1, so the plan is calibrated for
// the two coordinates a replacement changes.
func Categories(n *dp.Noiser, values []string, sigma, deltaSel float64) (CategoriesResult, error) {
	if !(deltaSel > 0 && deltaSel < 1) {
		return CategoriesResult{}, fmt.Errorf("schemadisc: partition selection needs δ in (0, 1), got %v", deltaSel)
	}
	counts := map[string]int{}
	for _, v := range values {
		counts[v]++
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range counts {
			if !yield(k) {
				return
			}
		}
	})
	noisy := make([]float64, len(keys))
	for i, k := range keys {
		noisy[i] = float64(counts[k])
	}
	const sensitivity, changed = math.Sqrt2, 2
	plan, err := dp.PlanGaussian(sensitivity, sigma, changed)
	if err != nil {
		return CategoriesResult{}, fmt.Errorf("schemadisc: partition selection: %w", err)
	}
	if plan.Grid > 1 { // only at absurdly small budgets; the argument above needs exact counts
		return CategoriesResult{}, fmt.Errorf("schemadisc: partition selection at σ = %v needs a grid of %v rows; raise the budget", sigma, plan.Grid)
	}
	n.Release(plan, noisy)
	res := CategoriesResult{
		Threshold: 1 + plan.Scale()*math.Sqrt(2*math.Log(1/deltaSel)),
		Spec: dp.Spec{Mechanism: "gaussian partition selection", Norm: "L2", Sensitivity: sensitivity,
			Scale: plan.Scale(), Guarantee: dp.Concentrated(1 / (sigma * sigma))},
	}
	for i, k := range keys {
		if noisy[i] >= res.Threshold {
			res.Kept = append(res.Kept, k)
		}
	}
	return res, nil
}
