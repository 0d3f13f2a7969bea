package audit_test

import (
	"fmt"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/randx"
)

// Auditing a Laplace mechanism that claims ε = 1, and one whose author
// calibrated the noise to half the true sensitivity.
func ExampleRun() {
	good, _ := audit.Laplace(audit.ScalarOptions{Epsilon: 1})
	bad := audit.Mechanism{Name: "half noise", Claim: dp.Pure(1), Dim: 1,
		Release: func(side audit.Side, src *randx.Source, out []float64) error {
			if side == audit.DPrime {
				out[0] = 1
			}
			// Δ = 1 needs scale 1 for ε = 1; the author used Δ = 0.5.
			dp.NewNoiser(src).ReleaseLaplace(0.5, 1, out[:1])
			return nil
		}}
	for _, m := range []audit.Mechanism{good, bad} {
		r, _ := audit.Run(m, audit.Options{Runs: 10_000, Source: randx.NewSeeded(1)})
		fmt.Printf("claimed ε = %g, ε ≥ %.1f with 95%% confidence: %s\n", r.ClaimedEpsilon, r.EpsilonLower, r.Verdict)
	}
	// Output:
	// claimed ε = 1, ε ≥ 0.9 with 95% confidence: PASS
	// claimed ε = 1, ε ≥ 1.9 with 95% confidence: VIOLATION
}
