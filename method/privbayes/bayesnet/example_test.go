package bayesnet_test

import (
	"fmt"

	privbayes "github.com/dppub/dppub/method/privbayes/bayesnet"
)

// The score sensitivities and the θ-useful domain τ for a release over
// n = 20000 records of d = 16 attributes at ε = 1 (β = 0.3, θ = 4).
func ExampleUsefulDomain() {
	o := privbayes.Options{Epsilon: 1}
	eps1, eps2 := o.Budgets()
	fmt.Printf("ε1 = %.2f, ε2 = %.2f\n", eps1, eps2)
	fmt.Printf("τ = %.1f cells\n", privbayes.UsefulDomain(20000, eps2, 16, 4))
	fmt.Printf("S(R) = %.2e, S(I) binary = %.2e\n", privbayes.RSensitivity(20000), privbayes.MISensitivity(20000, true))
	// Output:
	// ε1 = 0.30, ε2 = 0.70
	// τ = 109.4 cells
	// S(R) = 1.50e-04, S(I) binary = 7.87e-04
}
