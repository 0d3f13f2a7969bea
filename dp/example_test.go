package dp_test

import (
	"fmt"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/randx"
)

// Calibrating the Gaussian mechanism for a query of L2 sensitivity 1: the
// analytic calibration (Balle & Wang 2018) needs less noise than the
// classic one at the same (ε, δ).
func ExampleAnalyticGaussianSigma() {
	classic, _ := dp.ClassicGaussianSigma(1, 0.5, 1e-5)
	analytic, _ := dp.AnalyticGaussianSigma(1, 0.5, 1e-5)
	fmt.Printf("classic σ = %.3f, analytic σ = %.3f\n", classic, analytic)
	// Output: classic σ = 9.690, analytic σ = 7.032
}

// A Laplace release of a count: the mechanism states its sensitivity,
// scale and guarantee for the privacy report.
func ExampleNewLaplace() {
	m, _ := dp.NewLaplace(dp.LaplaceOptions{L1Sensitivity: 1, Epsilon: 0.5})
	counts := []float64{120, 43}
	m.Release(dp.NewNoiser(randx.NewSecure()), counts)
	fmt.Println(m.Spec())
	// Output: laplace (L1 sensitivity 1, scale 2) → ε=0.5
}

func ExampleGuarantee_ToApprox() {
	g, _ := dp.Concentrated(0.1).ToApprox(1e-6)
	fmt.Println(g)
	// Output: (ε=2.142, δ=1e-06)
}
