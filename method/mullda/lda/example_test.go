package lda_test

import (
	"fmt"

	"github.com/dppub/dppub/method/mullda/lda"
)

// The paper's noise against the sound calibration for NLTCS (p = 15 after
// dropping the label) at ε = 0.2, δ = 0.001, one owner; and how much of the
// per-message noise protects an owner in the publisher's view when M owners
// share correlated noise.
func ExampleNewPlan() {
	for _, c := range []lda.Calibration{lda.Paper, lda.Sound} {
		pl, _ := lda.NewPlan(lda.PlanOptions{Calibration: c, Epsilon: 0.2, Delta: 1e-3, P: 15, Classes: 2})
		fmt.Printf("%s: σ on class sums %.4g, on Σxxᵀ %.4g; claimed %v, actual %v\n",
			c, pl.SumSigma, pl.SecondSigma, pl.Claimed(), pl.Actual())
	}
	for _, m := range []int{2, 5, 10} {
		fmt.Printf("M = %d: view factor %.3f\n", m, lda.ViewFactor(m))
	}
	// Output:
	// paper: σ on class sums 4462, on Σxxᵀ 614.5; claimed (ε=0.2, δ=0.001), actual (ε=0.2, δ=0)
	// sound: σ on class sums 28, on Σxxᵀ 19.8; claimed (ε=0.2, δ=0.001), actual (ε=0.2, δ=0.001)
	// M = 2: view factor 0.845
	// M = 5: view factor 0.769
	// M = 10: view factor 0.740
}
