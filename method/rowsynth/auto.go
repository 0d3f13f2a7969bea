package rowsynth

import (
	"fmt"

	"github.com/dppub/dppub/engine/marginal"
)

// AutoMethod is the method --method auto runs for owners of rows over a
// public domain of sizes at each owner's budget rho, and the sentence the
// report gives for it. Every input is public, so the choice costs
// nothing.
func AutoMethod(sizes []int, rho float64) (marginal.Method, string) {
	m := marginal.MethodPaper
	return m, fmt.Sprintf("the method (%s) was chosen by method auto from public facts only: %d attributes on the public domain (owners of rows run the paper method: docs/results/rows/adaptive-owners.md)", m, len(sizes))
}
