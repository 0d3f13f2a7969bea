package audit

import (
	"math"
	"testing"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/method/mullda/lda"
	"github.com/dppub/dppub/randx"
)

// floatPathCase is a grey-box audit of the suite, real or with the old
// float path planted back as a test double, and the verdict it must give
// at every seed.
type floatPathCase struct {
	name string
	m    func(t *testing.T) Mechanism
	want Verdict
}

// checkFloatPaths runs each case's grey-box audit at the given runs per
// dataset over seeds 1–3 and requires its verdict at each.
func checkFloatPaths(t *testing.T, runs int, cases []floatPathCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := c.m(t)
			for seed := uint64(1); seed <= 3; seed++ {
				r, err := GreyBox(m, GreyBoxOptions{Runs: runs, Source: randx.NewSeeded(seed), Workers: 2})
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("seed %d: %s", seed, r)
				if r.Verdict != c.want {
					t.Errorf("seed %d: %s, want %s", seed, r.Verdict, c.want)
				}
			}
		})
	}
}

// methodMechanism builds the named audit at its default options.
func methodMechanism(t *testing.T, name string, o MethodOptions) Mechanism {
	t.Helper()
	meth, err := LookupMethod(name)
	if err != nil {
		t.Fatal(err)
	}
	m, err := meth.Mechanism(o)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// scalarFloatPath plants the old release into a scalar audit of the suite
// (laplace or gaussian), as a test double: the same pair, claim and truth,
// but the release is the exact value plus noise drawn around 0 and added
// in float64, never rounded to the grid.
func scalarFloatPath(t *testing.T, method, name string, noise func(src *randx.Source) float64) func(t *testing.T) Mechanism {
	return func(t *testing.T) Mechanism {
		m := methodMechanism(t, method, MethodOptions{})
		v := [2]float64{m.Truth(D)[0], m.Truth(DPrime)[0]}
		m.Name = name + " (test double of " + m.Name + ")"
		m.Release = func(side Side, src *randx.Source, out []float64) error {
			out[0] = v[side] + noise(src)
			return nil
		}
		return m
	}
}

// planNoise is g·K, K one draw of the plan's discrete noise: the real
// noise, but added to a value that was not rounded to g.
func planNoise(p dp.GridNoise) func(*randx.Source) float64 {
	return func(src *randx.Source) float64 { return gridNoise(src, p, 0) }
}

// The old float paths planted back into the suite's scalar audits
// (laplace, ε = 1, and gaussian, ε = 1, δ = 1e-5, both of sensitivity 1)
// are caught by their grey-box audits on the default pair, f(D) = ⅓ and
// f(D') = ⅓ + u (off every grid), at every seed, while the real
// mechanisms pass, at the suite's runs (Method.GreyBoxRuns: 20,000 per
// dataset; 2,000 in short mode, as TestGreyBoxRegisteredMethods):
//   - the plan's own grid noise g·K added to the unrounded value keeps
//     the value's bits below g, which differ between ⅓ and ⅓ + u: the
//     residual's trailing zeros and low bits differ with TV 1;
//   - the old continuous samplers (Laplace by inverse CDF, Gaussian by
//     NormFloat64) added in float64: the addition rounds the noise's low
//     bits differently at the two values' exponents (⅓ against 1.33).
//
// On the old pair (0 against 1) the plan's grid noise added unrounded is
// itself a grid release, so that double passes for certain
// (TestGreyBoxOldScalarPairIsBlind). A double's miss needs every
// feature's TV to fall below what the runs detect; the real mechanisms
// fail with probability at most α = 1e-3 per seed (the audit's false-alarm
// rate, Bonferroni over its 4 tests), so this test falsely fails with
// probability at most 6·10⁻³ over its 6 real audits.
func TestGreyBoxCatchesScalarFloatPath(t *testing.T) {
	runs := 20_000
	if testing.Short() {
		runs = 2000
	}
	lapPlan, err := dp.PlanLaplace(1, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	sigma, err := dp.AnalyticGaussianSigma(1, 1, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	gaussPlan, err := dp.PlanGaussian(1, sigma, 1)
	if err != nil {
		t.Fatal(err)
	}
	real := func(method string) func(t *testing.T) Mechanism {
		return func(t *testing.T) Mechanism { return methodMechanism(t, method, MethodOptions{}) }
	}
	checkFloatPaths(t, runs, []floatPathCase{
		{"real laplace", real("laplace"), Pass},
		{"real gaussian", real("gaussian"), Pass},
		{"laplace grid noise unrounded", scalarFloatPath(t, "laplace", "grid noise + exact value", planNoise(lapPlan)), Leak},
		{"gaussian grid noise unrounded", scalarFloatPath(t, "gaussian", "grid noise + exact value", planNoise(gaussPlan)), Leak},
		{"continuous laplace", scalarFloatPath(t, "laplace", "continuous laplace + exact value", continuousLaplace(lapPlan.Scale())), Leak},
		{"continuous gaussian", scalarFloatPath(t, "gaussian", "continuous gaussian + exact value", continuousGaussian(gaussPlan.Scale())), Leak},
	})
}

// The old scalar pair, f(D) = 0 against f(D') = 1, lies on every grid: the
// plan's grid noise added to the unrounded value is a grid release there,
// and its features are the same on both sides, so the double passes for
// certain (which is why the pair moved off the grid).
func TestGreyBoxOldScalarPairIsBlind(t *testing.T) {
	p, err := dp.PlanLaplace(1, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	m := scalarFloatPath(t, "laplace", "grid noise + exact value, old pair", planNoise(p))(t)
	m = WithScalarTruth(m, 0, 1)
	v := [2]float64{0, 1}
	m.Release = func(side Side, src *randx.Source, out []float64) error {
		out[0] = v[side] + gridNoise(src, p, 0)
		return nil
	}
	if r := greyBox(t, m, 2000, randx.NewSeeded(1)); r.Verdict != Pass {
		t.Errorf("%s: want PASS, the blind spot the off-grid pair removes", r)
	}
}

// zeroSumFloatPath plants the old float path into the owners of the
// zero-sum audit (ZeroSum with o), as a test double: the same plan, shares
// and truth, but each owner's message is its exact statistic plus g·(own
// noise + zero-sum share) in float64, the statistic never rounded to g.
func zeroSumFloatPath(t *testing.T, o ZeroSumOptions) Mechanism {
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
	truth := [2][]float64{m.Truth(D), m.Truth(DPrime)}
	m.Name = "owners add their noise to the unrounded statistic (test double of " + m.Name + ")"
	m.Release = func(side Side, src *randx.Source, out []float64) error {
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
	runs := Method{FastRuns: 200_000}.GreyBoxRuns(11, false)
	if testing.Short() {
		runs /= 10
	}
	o := ZeroSumOptions{Owners: 10, Epsilon: 2, Delta: 1e-3, Calibration: "sound", View: ViewPublisher}
	checkFloatPaths(t, runs, []floatPathCase{
		{"real owners", func(t *testing.T) Mechanism {
			return methodMechanism(t, "zero-sum", MethodOptions{Calibration: "sound"})
		}, Pass},
		{"grid noise unrounded", func(t *testing.T) Mechanism { return zeroSumFloatPath(t, o) }, Leak},
	})
}
