package ppca_test

import (
	"fmt"

	"github.com/dppub/dppub/method/ppcadpmh/ppca"
)

// The paper's noise (Algorithm 1) against its true sensitivity, for p = 20
// columns in [0,1] and a budget of ε = 2 per owner.
func ExampleNewPlan() {
	for _, c := range []ppca.Calibration{ppca.Paper, ppca.Sound} {
		pl, _ := ppca.NewPlan(ppca.PlanOptions{Calibration: c, Mechanism: ppca.Laplace, Epsilon: 2, Bounds: ppca.GenericBounds(20)})
		fmt.Printf("%s: Laplace scale %g on Σx, %g on Σxxᵀ; claimed %v, actual %v\n",
			c, pl.SumScale, pl.OuterScale, pl.Claimed(), pl.Actual())
	}
	// Output:
	// paper: Laplace scale 20 on Σx, 20 on Σxxᵀ; claimed ε=2, actual ε=11.5
	// sound: Laplace scale 20 on Σx, 210 on Σxxᵀ; claimed ε=2, actual ε=2
}
