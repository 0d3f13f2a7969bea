package publish

import (
	"math"

	"github.com/dppub/dppub/algo/ppca"
)

// ppcaShareEpsilon bounds the pure ε that one owner's own Laplace share
// gives its statistics in secure-aggregate mode, when the curator and the
// other m−1 owners have removed everything else; it also returns each
// block's discrete Laplace scale t in grid steps.
//
// Each share is, per entry, the difference of two Pólya NB(1/m, q)
// draws on the block's grid, q = e^{−1/t} (dp.Noiser.Shares). For
// NB(r, q), P(k+1)/P(k) = q(k+r)/(k+1) lies in [qr, q), so the
// difference's probabilities at neighbouring grid points differ by a
// factor at most 1/(qr) = m·e^{1/t}. A change of one record moves the
// rounded block by at most D grid steps in L1, and the plan's t satisfies
// D ≤ ε_b·t (ε_b the block's pure ε: its actual one under the paper
// calibration, which bounds the true D alike). So the share alone is
// D·(1/t + ln m) ≤ ε_b·(1 + t·ln m)-DP, summed over the blocks.
func ppcaShareEpsilon(plan *ppca.Plan, m int) (float64, [2]float64) {
	units := [2]float64{plan.SumNoise.Units(), plan.OuterNoise.Units()}
	eps := 0.0
	for i, c := range plan.Charges[:2] {
		g := c.Spec.Guarantee
		if c.Actual != nil {
			g = *c.Actual
		}
		eps += g.Epsilon * (1 + units[i]*math.Log(float64(m)))
	}
	return eps, units
}
