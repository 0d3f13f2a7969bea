package audits

import (
	"math"
	"testing"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/audit/audittest"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/method/mullda/lda"
	"github.com/dppub/dppub/randx"
)

// zeroSumFloatPath plants the old float path into the owners of the
// zero-sum audit (ZeroSum with o), as a test double: the same plan, shares
// and truth, but each owner's message is its exact statistic plus g·(own
// noise + zero-sum share) in float64, the statistic never rounded to g.
func zeroSumFloatPath(t *testing.T, o ZeroSumOptions) audit.Mechanism {
	t.Helper()
	m, err := ZeroSum(o)
	if err != nil {
		t.Fatal(err)
	}
	owners := o.Owners
	cov, err := zeroSumCov(owners, o.View)
	if err != nil {
		t.Fatal(err)
	}
	sigma, err := dp.AnalyticGaussianSigma(1, o.Epsilon, o.Delta)
	if err != nil {
		t.Fatal(err)
	}
	sigma *= math.Sqrt(precisionFactor(cov))
	block, err := lda.NewBlockNoise(lda.Correlated, owners, 1, sigma, 1)
	if err != nil {
		t.Fatal(err)
	}
	truth := [2][]float64{m.Truth(audit.D), m.Truth(audit.DPrime)}
	m.Name = "owners add their noise to the unrounded statistic (test double of " + m.Name + ")"
	m.Release = func(side audit.Side, src *randx.Source, out []float64) error {
		n := dp.NewNoiser(src)
		shares := lda.ZeroSumShares(n, block.Plan, owners+1, 1)
		for i := range owners {
			k := block.Own(n, 1)[0] + shares[i+1][0]
			out[i] = truth[side][i] + float64(k)*block.Plan.Grid
		}
		out[owners] = float64(shares[0][0]) * block.Plan.Grid
		return nil
	}
	return m
}

// The old float path planted into the owners of the multi-party zero-sum
// audit (Mul-LDA-DP's correlated noise, publisher's view, M = 10, sound,
// ε = 2, δ = 1e-3) is caught on the default pair (every owner's statistic
// off every grid) at every seed, while the real owners pass, at the
// suite's runs (18,181 per dataset; 1,818 in short mode). The real audit
// fails with probability at most α = 1e-3 per seed.
func TestGreyBoxCatchesZeroSumFloatPath(t *testing.T) {
	runs := audit.Method{FastRuns: 200_000}.GreyBoxRuns(11, false)
	if testing.Short() {
		runs /= 10
	}
	o := ZeroSumOptions{Owners: 10, Epsilon: 2, Delta: 1e-3, Calibration: "sound", View: ViewPublisher}
	audittest.CheckFloatPaths(t, runs, 3, []audittest.FloatPathCase{
		{Name: "real owners", M: func(t *testing.T) audit.Mechanism {
			return audittest.MustMechanism(t, Audits(), "zero-sum", audit.MethodOptions{Calibration: "sound"})
		}, Want: audit.Pass},
		{Name: "grid noise unrounded", M: func(t *testing.T) audit.Mechanism { return zeroSumFloatPath(t, o) }, Want: audit.Leak},
	})
}
