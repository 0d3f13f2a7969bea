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

// Categories selects the values of an open categorical column under
// (ε, δ)-DP by Laplace partition selection (Korolova, Kenthapadi, Mishra
// & Ntoulas, WWW 2009; Desfontaines, Voss, Gipson & Mandayam, PoPETs
// 2022): every value present in the data gets its count released with
// discrete Laplace noise of scale b = 2/ε on a public grid (dp.Noiser),
// and is kept when the noisy count reaches τ = 1 + b·ln(1/δ′), with
// δ′ = δ/(1 + e^{ε/2}). The noisy counts themselves are not released.
//
// Guarantee: under add-or-remove-one a record changes one count by 1, so
// the counts of values present in both neighbours are ε/2-DP; a value
// present in one neighbour only has count 1 there and is kept with
// probability P(noise ≥ τ − 1) ≤ exp(−(τ−1)/b) = δ′. That is
// (ε/2, δ′)-DP; replacing one record is removing one and adding one, so
// by group privacy the selection is (ε, (1 + e^{ε/2})·δ′) = (ε, δ)-DP
// under the replace-one relation. The plan is calibrated for the two
// coordinates a replacement changes (counts are integers, exact on any
// grid of step ≤ 1, so the others carry no rounding slack).
func Categories(n *dp.Noiser, values []string, eps, delta float64) (CategoriesResult, error) {
	if !(delta > 0 && delta < 1) {
		return CategoriesResult{}, fmt.Errorf("schemadisc: partition selection needs δ in (0, 1), got %v", delta)
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
	const sensitivity, changed = 2, 2
	plan, err := dp.PlanLaplace(sensitivity, eps, changed)
	if err != nil {
		return CategoriesResult{}, fmt.Errorf("schemadisc: partition selection: %w", err)
	}
	if plan.Grid > 1 { // only at absurdly small ε; the argument above needs exact counts
		return CategoriesResult{}, fmt.Errorf("schemadisc: partition selection at ε = %v needs a grid of %v rows; raise the budget", eps, plan.Grid)
	}
	n.Release(plan, noisy)
	deltaHalf := delta / (1 + math.Exp(eps/2))
	res := CategoriesResult{
		Threshold: 1 + plan.Scale()*math.Log(1/deltaHalf),
		Spec: dp.Spec{Mechanism: "laplace partition selection", Norm: "L1", Sensitivity: sensitivity,
			Scale: plan.Scale(), Guarantee: dp.Approx(eps, delta)},
	}
	for i, k := range keys {
		if noisy[i] >= res.Threshold {
			res.Kept = append(res.Kept, k)
		}
	}
	return res, nil
}
