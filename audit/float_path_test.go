package audit_test

import (
	"testing"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/audit/audittest"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/randx"
)

// scalarFloatPath plants the old release into a scalar audit of the suite
// (laplace or gaussian), as a test double: the same pair, claim and truth,
// but the release is the exact value plus noise drawn around 0 and added
// in float64, never rounded to the grid.
func scalarFloatPath(t *testing.T, method, name string, noise func(src *randx.Source) float64) func(t *testing.T) audit.Mechanism {
	return func(t *testing.T) audit.Mechanism {
		m := audittest.MustMechanism(t, audit.Core(), method, audit.MethodOptions{})
		v := [2]float64{m.Truth(audit.D)[0], m.Truth(audit.DPrime)[0]}
		m.Name = name + " (test double of " + m.Name + ")"
		m.Release = func(side audit.Side, src *randx.Source, out []float64) error {
			out[0] = v[side] + noise(src)
			return nil
		}
		return m
	}
}

// planNoise is g·K, K one draw of the plan's discrete noise: the real
// noise, but added to a value that was not rounded to g.
func planNoise(p dp.GridNoise) func(*randx.Source) float64 {
	return func(src *randx.Source) float64 { return audittest.GridNoise(src, p) }
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
	real := func(method string) func(t *testing.T) audit.Mechanism {
		return func(t *testing.T) audit.Mechanism {
			return audittest.MustMechanism(t, audit.Core(), method, audit.MethodOptions{})
		}
	}
	audittest.CheckFloatPaths(t, runs, 3, []audittest.FloatPathCase{
		{Name: "real laplace", M: real("laplace"), Want: audit.Pass},
		{Name: "real gaussian", M: real("gaussian"), Want: audit.Pass},
		{Name: "laplace grid noise unrounded", M: scalarFloatPath(t, "laplace", "grid noise + exact value", planNoise(lapPlan)), Want: audit.Leak},
		{Name: "gaussian grid noise unrounded", M: scalarFloatPath(t, "gaussian", "grid noise + exact value", planNoise(gaussPlan)), Want: audit.Leak},
		{Name: "continuous laplace", M: scalarFloatPath(t, "laplace", "continuous laplace + exact value", audittest.ContinuousLaplace(lapPlan.Scale())), Want: audit.Leak},
		{Name: "continuous gaussian", M: scalarFloatPath(t, "gaussian", "continuous gaussian + exact value", audittest.ContinuousGaussian(gaussPlan.Scale())), Want: audit.Leak},
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
	m = audit.WithScalarTruth(m, 0, 1)
	v := [2]float64{0, 1}
	m.Release = func(side audit.Side, src *randx.Source, out []float64) error {
		out[0] = v[side] + audittest.GridNoise(src, p)
		return nil
	}
	if r := greyBox(t, m, 2000, randx.NewSeeded(1)); r.Verdict != audit.Pass {
		t.Errorf("%s: want PASS, the blind spot the off-grid pair removes", r)
	}
}
