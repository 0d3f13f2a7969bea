package audits

import (
	"testing"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/audit/audittest"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/method/ppcadpmh/ppca"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// ppcaFloatPath plants an old release back into the PPCA-DP-MH owner
// audit, as a test double: the same pair, claim and truth as the real
// audit (PPCADPMH with o), but every released entry is its exact moment
// plus noise added in float64, never rounded to the grid. noise returns
// the noise of one entry given the plan's noise block for it.
func ppcaFloatPath(t *testing.T, o PPCAOptions, name string, noise func(src *randx.Source, g dp.GridNoise, scale float64) float64) audit.Mechanism {
	t.Helper()
	m, err := PPCADPMH(o)
	if err != nil {
		t.Fatal(err)
	}
	p := o.P
	plan, err := ppca.NewPlan(ppca.PlanOptions{Calibration: o.Calibration, Mechanism: o.Mechanism, Epsilon: o.Epsilon, Delta: o.Delta, Bounds: ppca.GenericBounds(p)})
	if err != nil {
		t.Fatal(err)
	}
	from, _, _, err := ppcaPart(o.Part, p, plan)
	if err != nil {
		t.Fatal(err)
	}
	truth := [2][]float64{m.Truth(audit.D), m.Truth(audit.DPrime)}
	m.Name = name + " (test double of " + m.Name + ")"
	m.Release = func(side audit.Side, src *randx.Source, out []float64) error {
		for i, v := range truth[side] {
			g, scale := plan.OuterNoise, plan.OuterScale
			if from+i < p {
				g, scale = plan.SumNoise, plan.SumScale
			}
			out[i] = v + noise(src, g, scale)
		}
		return nil
	}
	return m
}

// The old float paths planted back into the PPCA-DP-MH owner are caught by
// its grey-box audit on the default pair, whose statistics are off every
// grid, over several seeds, while the real owner passes at the same size
// (the suite's, Method.GreyBoxRuns: 2,000 releases per dataset of the 210
// second-moment entries; one seed at 500 in short mode):
//   - grid noise added to the exact value: g·K, K the plan's own discrete
//     noise, added to the unrounded moment, keeps the moment's bits below g,
//     which differ between D and D' (TV 1 on the output's low bits);
//   - the granular Laplace (the old secure sampler, as a release drew it:
//     Laplace on the grid 2^-40 around 0) added in float64, which keeps
//     the moment's bits below 2^-40 (TV 0.04, p < 1e-100);
//   - the continuous Gaussian (the old seeded sampler) added in float64
//     (TV 0.012, p < 1e-20 at 2,000 runs; not reliably at 500, so long
//     mode only).
//
// Not covered: the old seeded continuous Laplace. Added to these moments
// it differs between D and D' by a low-bit TV of 0.005–0.007 only,
// caught at 2,000 runs at seeds 1 and 3 but not 2 (p = 0.17); its leak
// lies in which values are reachable, beyond the features (greybox.go,
// "What it cannot").
//
// On the old pair ({0, ½·1} against {1, ½·1}, TestGreyBoxOldPPCAPairIsBlind),
// whose moments lie on every grid, the unrounded grid noise passed. A
// double's miss needs every feature's TV to fall below what the runs
// detect (p < 1e-100 for the first three); the real owner fails with
// probability at most α = 1e-3 per seed (the audit's false-alarm rate).
func TestGreyBoxCatchesPPCAFloatPath(t *testing.T) {
	runs, seeds := 2000, uint64(3)
	if testing.Short() {
		runs, seeds = 500, 1
	}
	laplace := PPCAOptions{P: 20, Epsilon: 2, Delta: 1e-5, Calibration: ppca.Sound, Mechanism: ppca.Laplace, Part: PartSecondMoment}
	gaussian := laplace
	gaussian.Mechanism = ppca.Gaussian
	real := func(o PPCAOptions) func(t *testing.T) audit.Mechanism {
		return func(t *testing.T) audit.Mechanism {
			m, err := PPCADPMH(o)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
	}
	double := func(o PPCAOptions, name string, noise func(*randx.Source, dp.GridNoise, float64) float64) func(t *testing.T) audit.Mechanism {
		return func(t *testing.T) audit.Mechanism { return ppcaFloatPath(t, o, name, noise) }
	}
	continuous := func(src *randx.Source, _ dp.GridNoise, s float64) float64 {
		return audittest.ContinuousGaussian(s)(src)
	}
	// The continuous Gaussian is caught at 2,000 runs (p < 1e-20), not
	// reliably at 500: long mode only.
	audittest.CheckFloatPaths(t, runs, seeds, []audittest.FloatPathCase{
		{Name: "real owner, laplace", M: real(laplace), Want: audit.Pass},
		{Name: "real owner, gaussian", M: real(gaussian), Want: audit.Pass},
		{Name: "grid noise unrounded, laplace", M: double(laplace, "grid noise + exact moment", gridNoise), Want: audit.Leak},
		{Name: "grid noise unrounded, gaussian", M: double(gaussian, "grid noise + exact moment", gridNoise), Want: audit.Leak},
		{Name: "continuous gaussian", M: double(gaussian, "continuous gaussian + exact moment", continuous), Want: audit.Leak, Long: true},
	})
}

// gridNoise is g·K with K the plan's discrete noise for one entry.
func gridNoise(src *randx.Source, g dp.GridNoise, _ float64) float64 {
	return audittest.GridNoise(src, g)
}

// The old pair of the PPCA-DP-MH audit, {0, ½·1} against {1, ½·1}, has its
// moments (½, ¼ against 3/2, 5/4) on every grid the plan uses, so noise on
// the grid added to the exact moment is itself a grid release there: the
// double passes (which is why the issue found the old audit blind), and
// only the off-grid pair of TestGreyBoxCatchesPPCAFloatPath catches it.
// The double's features are constant on this pair, so the PASS is certain,
// not a matter of seed.
func TestGreyBoxOldPPCAPairIsBlind(t *testing.T) {
	const p = 20
	d, dPrime := mat.NewDense(2, p, nil), mat.NewDense(2, p, nil)
	for j := range p {
		d.Set(1, j, 0.5)
		dPrime.Set(1, j, 0.5)
		dPrime.Set(0, j, 1)
	}
	o := PPCAOptions{P: p, Epsilon: 2, Calibration: ppca.Sound, Mechanism: ppca.Laplace, Part: PartSecondMoment, D: d, DPrime: dPrime}
	m := ppcaFloatPath(t, o, "grid noise + exact moment, old pair", gridNoise)
	r, err := audit.GreyBox(m, audit.GreyBoxOptions{Runs: 500, Source: randx.NewSeeded(1), Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != audit.Pass {
		t.Errorf("%s: want PASS, the blind spot the off-grid pair removes", r)
	}
}
