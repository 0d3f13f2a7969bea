package dppca_test

import (
	"fmt"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/method/dppcasvm/dppca"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// Two classes in the plane, one along each axis; the sound DPPCA-SVM
// releases one component and a DP SVM, each at half the budget.
func Example() {
	src := randx.NewSeeded(1) // tests only: a seeded source voids the guarantee
	n := 2000
	X := mat.NewDense(n, 2, nil)
	y := make([]int, n)
	for i := range n {
		y[i] = i % 2
		X.Set(i, y[i], 0.6+0.1*src.Float64())
		X.Set(i, 1-y[i], 0.1*src.NormFloat64())
	}
	dppca.ClipRows(X)
	acct, _ := privacy.NewAccountant(privacy.AccountantOptions{Party: "owner", Budget: dp.Pure(1)})
	res, err := dppca.Train(X, y, 2, dppca.Options{Method: dppca.DPPCASVM, Calibration: dppca.Sound,
		Epsilon: 1, Select: dppca.SelectOptions{K: 2}, Accountant: acct, Source: src})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range acct.Charges() {
		fmt.Printf("%s: %v\n", c.Spec.Mechanism, c.Spec.Guarantee)
	}
	fmt.Printf("Laplace scale on A: (d+1)/(nε) = %.4f\n", res.MatrixNoise.Scale)
	// Output:
	// laplace: ε=0.5
	// objective-perturbation (Chaudhuri et al. 2011, Alg. 2) + residual noise (Iyengar et al. 2019): ε=0.5
	// Laplace scale on A: (d+1)/(nε) = 0.0030
}
