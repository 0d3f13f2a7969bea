package dp

import (
	"fmt"
	"math"
	"math/big"
	"testing"

	"github.com/dppub/dppub/internal/testenv"
	"github.com/dppub/dppub/randx"
	"github.com/google/differential-privacy/go/v3/noise"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

func sources() map[string]*randx.Source {
	return map[string]*randx.Source{"secure": randx.NewSecure(), "seeded": randx.NewSeeded(42)}
}

// zeros returns n zeros: releasing them draws the noise alone, still
// through the grid path.
func zeros(n int) []float64 { return make([]float64, n) }

func TestLaplaceReleaseIsLaplace(t *testing.T) {
	for name, src := range sources() {
		n := NewNoiser(src)
		// Δ₁ = 1, ε = 0.4: b = 2.5 (plus at most 2^-20 for the grid).
		s := zeros(20000)
		n.ReleaseLaplace(1, 0.4, s)
		const b = 2.5
		assertKS(t, name+" laplace", s, laplaceCDF(b))
		// Var = 2b²; with n = 20000 the sample variance has relative sd
		// ≈ sqrt(5/n) ≈ 1.6%; 8% is a 5-sigma band (false rejection < 1e-6).
		if _, v := stat.MeanVariance(s, nil); math.Abs(v/(2*b*b)-1) > 0.08 {
			t.Errorf("%s laplace variance %.3f, want %.3f", name, v, 2*b*b)
		}
	}
}

func TestGaussianReleaseIsGaussian(t *testing.T) {
	for name, src := range sources() {
		n := NewNoiser(src)
		const sigma = 3.0
		s := zeros(20000)
		n.ReleaseGaussian(1, sigma, s)
		assertKS(t, name+" gaussian", s, normalCDF(sigma))
		// Relative sd of the sample variance is sqrt(2/n) = 1%: 5% is 5 sigma.
		if _, v := stat.MeanVariance(s, nil); math.Abs(v/(sigma*sigma)-1) > 0.05 {
			t.Errorf("%s gaussian variance %.3f, want %.3f", name, v, sigma*sigma)
		}
	}
}

// TestReleaseSeesOnlyTheGridValue is the floating-point attack's
// precondition turned into a test: two true values with the same grid
// value must give bit-identical releases under the same randomness, and
// every release must lie on the grid.
func TestReleaseSeesOnlyTheGridValue(t *testing.T) {
	plans := map[string]func() (GridNoise, error){
		"laplace":  func() (GridNoise, error) { return PlanLaplace(1, 1, 1) },
		"gaussian": func() (GridNoise, error) { return PlanGaussian(1, 2, 1) },
	}
	for name, plan := range plans {
		t.Run(name, func(t *testing.T) {
			p, err := plan()
			if err != nil {
				t.Fatal(err)
			}
			x := 1234 + 23.0/73
			y := (p.Snap(x) + 0.3) * p.Grid // same grid value, other low bits
			for seed := uint64(0); seed < 200; seed++ {
				a, b := []float64{x}, []float64{y}
				NewNoiser(randx.NewSeeded(seed)).Release(p, a)
				NewNoiser(randx.NewSeeded(seed)).Release(p, b)
				if math.Float64bits(a[0]) != math.Float64bits(b[0]) {
					t.Fatalf("seed %d: %v and %v released as %v and %v", seed, x, y, a[0], b[0])
				}
				if k := a[0] / p.Grid; k != math.Round(k) {
					t.Fatalf("release %v is off the grid %g", a[0], p.Grid)
				}
			}
		})
	}
}

// TestDiscreteSamplersMatchTheirLaws checks small scales, where the
// discreteness is visible, against the exact probability mass functions.
func TestDiscreteSamplersMatchTheirLaws(t *testing.T) {
	src := randx.NewSeeded(11)
	const runs = 40000
	cases := []struct {
		name string
		draw func() int64
		pmf  func(k int64) float64 // unnormalised
	}{
		{"laplace t=2", func() int64 { return discreteLaplace(src, 2) },
			func(k int64) float64 { return math.Exp(-math.Abs(float64(k)) / 2) }},
		{"gaussian σ²=3/2", func() int64 { return newDiscreteGaussian(big.NewRat(3, 2)).draw(src) },
			func(k int64) float64 { return math.Exp(-float64(k*k) / 3) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			counts := map[int64]float64{}
			for range runs {
				counts[c.draw()]++
			}
			assertPMF(t, counts, c.pmf, runs)
		})
	}
}

// assertPMF runs a χ² goodness-of-fit test over the cells |k| ≤ 6 and the
// tail beyond, 13 degrees of freedom: P(χ² > 39.2) ≈ 1e-4.
func assertPMF(t *testing.T, counts map[int64]float64, pmf func(int64) float64, runs int) {
	t.Helper()
	z := 0.0
	for k := int64(-200); k <= 200; k++ {
		z += pmf(k)
	}
	chi2, tailExp, tailObs := 0.0, 1.0, float64(runs)
	for k := int64(-6); k <= 6; k++ {
		e := float64(runs) * pmf(k) / z
		chi2 += (counts[k] - e) * (counts[k] - e) / e
		tailExp -= pmf(k) / z
		tailObs -= counts[k]
	}
	if e := float64(runs) * tailExp; e > 5 {
		chi2 += (tailObs - e) * (tailObs - e) / e
	}
	if chi2 > 39.2 {
		t.Fatalf("χ² = %.1f > 39.2 (false rejection 1e-4); counts %v", chi2, counts)
	}
}

func TestSharesSumToThePlansLaw(t *testing.T) {
	lap, err := PlanLaplace(1, 0.5, 1)
	if err != nil {
		t.Fatal(err)
	}
	gau, err := PlanGaussian(1, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		plan GridNoise
		cdf  func(float64) float64
	}{
		{"laplace b=2", lap, laplaceCDF(2)},
		{"gaussian σ=2", gau, normalCDF(2)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := NewNoiser(randx.NewSeeded(7))
			const parts = 5
			s := make([]float64, 20000)
			share := make([]int64, len(s))
			for range parts {
				n.Shares(c.plan, parts, share)
				for i, k := range share {
					s[i] += float64(k) * c.plan.Grid
				}
			}
			assertKS(t, c.name, s, c.cdf)
		})
	}
}

func TestAnalyticGaussianMatchesBalleWang(t *testing.T) {
	for _, c := range []struct{ eps, delta float64 }{{1, 1e-5}, {0.1, 1e-6}, {5, 1e-3}} {
		got, err := AnalyticGaussianSigma(2, c.eps, c.delta)
		if err != nil {
			t.Fatal(err)
		}
		// The exact δ at the returned σ must be at most the target and the
		// σ tight: 0.1% less noise must break it.
		if d := GaussianDelta(got, 2, c.eps); d > c.delta {
			t.Errorf("eps=%v: delta at sigma %.6f is %.3g > %.3g", c.eps, got, d, c.delta)
		}
		if d := GaussianDelta(got*0.999, 2, c.eps); d <= c.delta {
			t.Errorf("eps=%v: sigma %.6f is not tight", c.eps, got)
		}
		// Google's independent implementation agrees to its 1e-3 accuracy.
		g := noise.SigmaForGaussian(1, 2, c.eps, c.delta)
		if math.Abs(g/got-1) > 2e-3 {
			t.Errorf("eps=%v: sigma %.6f, google %.6f", c.eps, got, g)
		}
		// Analytic never needs more noise than classic (where classic applies).
		if c.eps < 1 {
			cl, _ := ClassicGaussianSigma(2, c.eps, c.delta)
			if got > cl {
				t.Errorf("analytic %.4f > classic %.4f", got, cl)
			}
		}
	}
}

func TestClassicGaussianFormula(t *testing.T) {
	got, err := ClassicGaussianSigma(1, 0.5, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	want := math.Sqrt(2*math.Log(1.25e5)) / 0.5
	if math.Abs(got-want) > 1e-12 {
		t.Fatalf("classic sigma %v, want %v", got, want)
	}
	if _, err := ClassicGaussianSigma(1, 1.5, 1e-5); err == nil {
		t.Fatal("classic calibration accepted epsilon >= 1")
	}
}

func TestConversions(t *testing.T) {
	z, err := Pure(0.5).ToZCDP()
	if err != nil || z.Rho != 0.125 {
		t.Fatalf("pure 0.5 -> %v, %v; want rho 0.125", z, err)
	}
	a, err := Concentrated(0.5).ToApprox(1e-6)
	loose := 0.5 + 2*math.Sqrt(0.5*math.Log(1e6))
	if err != nil || a.Epsilon >= loose || a.Delta != 1e-6 {
		t.Fatalf("zcdp 0.5 -> %v, %v; want eps below Bun–Steinke's %v", a, err, loose)
	}
	if _, err := Approx(1, 1e-5).ToZCDP(); err == nil {
		t.Fatal("approx DP with delta > 0 converted to zCDP")
	}
	sum, err := Compose(Concentrated(0.1), Pure(1))
	if err != nil || math.Abs(sum.Rho-0.6) > 1e-12 {
		t.Fatalf("compose rho 0.1 + eps 1 = %v, %v; want rho 0.6", sum, err)
	}
}

func TestValidation(t *testing.T) {
	bad := []Guarantee{Pure(0), Pure(math.Inf(1)), Approx(1, 1), Approx(1, -0.1), Concentrated(-1), Pure(math.NaN())}
	for _, g := range bad {
		if g.Validate() == nil {
			t.Errorf("%+v validated", g)
		}
	}
	if _, err := NewLaplace(LaplaceOptions{L1Sensitivity: 0, Epsilon: 1}); err == nil {
		t.Error("laplace with zero sensitivity accepted")
	}
	if _, err := NewGaussian(GaussianOptions{L2Sensitivity: 1, Epsilon: 1, Delta: 0}); err == nil {
		t.Error("gaussian with delta 0 accepted")
	}
}

func TestSymmetricNoiseIsSymmetric(t *testing.T) {
	n := NewNoiser(randx.NewSeeded(1))
	s := mat.NewSymDense(4, nil)
	n.ReleaseLaplaceSym(s, 1, 1)
	for i := 0; i < 4; i++ {
		for j := 0; j < 4; j++ {
			if s.At(i, j) != s.At(j, i) {
				t.Fatalf("entry (%d,%d) not mirrored", i, j)
			}
		}
		if s.At(i, i) == 0 {
			t.Fatalf("diagonal %d got no noise", i)
		}
	}
}

// TestPermuteAndFlipFrequencies compares the selection frequencies with
// permute-and-flip's exact law, computed by averaging over the 3! visiting
// orders: stop at i with probability p_i = exp(ε(u_i − u*)/(2Δ)).
func TestPermuteAndFlipFrequencies(t *testing.T) {
	src := randx.NewSeeded(3)
	u := []float64{0, 1, 2}
	const eps, runs = 2.0, 30000
	counts := make([]float64, len(u))
	for i := 0; i < runs; i++ {
		k, err := PermuteAndFlip(src, u, 1, eps)
		if err != nil {
			t.Fatal(err)
		}
		counts[k]++
	}
	// Δ + g with g = 2^-20 shrinks the exponent by a factor 1/(1 + 2^-20):
	// invisible at this sample size.
	p := []float64{math.Exp(-2), math.Exp(-1), 1}
	want := make([]float64, len(u))
	for _, order := range [][]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}} {
		reach := 1.0
		for _, i := range order {
			want[i] += reach * p[i] / 6
			reach *= 1 - p[i]
		}
	}
	chi2 := 0.0
	for i := range u {
		exp := runs * want[i]
		chi2 += (counts[i] - exp) * (counts[i] - exp) / exp
	}
	// χ² with 2 degrees of freedom: P(χ² > 18.42) = 1e-4.
	if chi2 > 18.42 {
		t.Fatalf("chi-square %.2f > 18.42 (false-rejection 1e-4); counts %v, want %v", chi2, counts, want)
	}
}

// TestExponentialFrequencies compares the exponential mechanism's
// selection frequencies with its exact law P(i) ∝ exp(ε(u_i − u*)/(2Δ)),
// including a far-behind candidate and a tie, by a chi-square test.
func TestExponentialFrequencies(t *testing.T) {
	src := randx.NewSeeded(5)
	u := []float64{0, 1, 2, 2, -3.5}
	const eps, runs = 2.0, 40000
	counts := make([]float64, len(u))
	for range runs {
		k, err := Exponential(src, u, 1, eps)
		if err != nil {
			t.Fatal(err)
		}
		counts[k]++
	}
	want, total := make([]float64, len(u)), 0.0
	for i, x := range u {
		want[i] = math.Exp(eps * (x - 2) / 2)
		total += want[i]
	}
	chi2 := 0.0
	for i := range u {
		exp := runs * want[i] / total
		chi2 += (counts[i] - exp) * (counts[i] - exp) / exp
	}
	// χ² with 4 degrees of freedom: P(χ² > 23.51) = 1e-4. The last
	// candidate's gap (γ = 5.5) takes five whole e^-1 trials; about 66
	// of the runs are expected to pick it.
	if chi2 > 23.51 {
		t.Fatalf("chi-square %.2f > 23.51 (false-rejection 1e-4); counts %v, want ∝ %v", chi2, counts, want)
	}
}

// TestSelectionRefusesBadArguments: both selections refuse the same
// arguments with errors naming the mechanism.
func TestSelectionRefusesBadArguments(t *testing.T) {
	for _, c := range []struct {
		name      string
		u         []float64
		sens, eps float64
	}{
		{"no candidates", nil, 1, 1},
		{"NaN utility", []float64{0, math.NaN()}, 1, 1},
		{"infinite utility", []float64{math.Inf(1)}, 1, 1},
		{"zero sensitivity", []float64{0, 1}, 0, 1},
		{"negative epsilon", []float64{0, 1}, 1, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := randx.NewSeeded(1)
			if _, err := Exponential(src, c.u, c.sens, c.eps); err == nil {
				t.Error("exponential accepted it")
			}
			if _, err := PermuteAndFlip(src, c.u, c.sens, c.eps); err == nil {
				t.Error("permute-and-flip accepted it")
			}
		})
	}
}

// TestExponentialSpecIsBoundedRangeZCDP: the spec a zCDP accountant
// charges is ε²/8, a quarter of what ε-DP alone would give.
func TestExponentialSpecIsBoundedRangeZCDP(t *testing.T) {
	s := ExponentialSpec(2, 0.4)
	pf, err := SelectionSpec(2, 0.4).Guarantee.ToZCDP()
	if err != nil {
		t.Fatal(err)
	}
	if s.Guarantee.Notion != ZCDP || math.Abs(s.Guarantee.Rho-0.02) > 1e-15 || math.Abs(pf.Rho-4*s.Guarantee.Rho) > 1e-15 {
		t.Fatalf("exponential spec %+v, permute-and-flip in zCDP %+v", s.Guarantee, pf)
	}
}

// TestZCDPEpsilonIsValidAndTight checks the conversion against the exact
// privacy profile of the Gaussian mechanism, which is ρ-zCDP with
// σ = 1/√(2ρ) for Δ = 1: any valid conversion must give an ε at which that
// Gaussian's exact δ (Balle & Wang 2018) is at most the target, and a tight
// one cannot be far above the Gaussian's own ε.
func TestZCDPEpsilonIsValidAndTight(t *testing.T) {
	for _, c := range []struct{ rho, delta float64 }{{0.005, 1e-5}, {0.1, 1e-6}, {0.5, 1e-5}, {2, 1e-9}} {
		t.Run(fmt.Sprintf("rho=%g,delta=%g", c.rho, c.delta), func(t *testing.T) {
			eps := ZCDPEpsilon(c.rho, c.delta)
			sigma := 1 / math.Sqrt(2*c.rho)
			if d := GaussianDelta(sigma, 1, eps); d > c.delta {
				t.Fatalf("ε=%.4f: the ρ-zCDP Gaussian has δ=%.3g > %.3g: conversion invalid", eps, d, c.delta)
			}
			loose := c.rho + 2*math.Sqrt(c.rho*math.Log(1/c.delta))
			exact := bisectGaussianEpsilon(sigma, c.delta)
			if !(eps < loose) || eps > 1.25*exact {
				t.Fatalf("ε=%.4f: want below Bun–Steinke %.4f and within 25%% of the Gaussian's exact %.4f", eps, loose, exact)
			}
		})
	}
}

// bisectGaussianEpsilon is the exact ε of N(0, σ²) on Δ = 1 at δ.
func bisectGaussianEpsilon(sigma, delta float64) float64 {
	lo, hi := 0.0, 100.0
	for range 200 {
		mid := (lo + hi) / 2
		if GaussianDelta(sigma, 1, mid) > delta {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// TestPlansRefuseOrTerminateAtExtremeScales: noise far above the
// sensitivity either plans on a coarse grid or is refused, never loops.
func TestPlansRefuseOrTerminateAtExtremeScales(t *testing.T) {
	cases := []struct {
		name    string
		plan    func() (GridNoise, error)
		refused bool
	}{
		{"gaussian σ = 2^45 Δ", func() (GridNoise, error) { return PlanGaussian(1, 1<<45, 4) }, false},
		{"gaussian σ = 1e70 Δ", func() (GridNoise, error) { return PlanGaussian(1, 1e70, 1) }, true},
		{"laplace d/ε = 2^50", func() (GridNoise, error) { return PlanLaplace(1, 1.0/(1<<40), 1<<10) }, false},
		{"laplace ε = 1e-30", func() (GridNoise, error) { return PlanLaplace(1, 1e-30, 1) }, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := c.plan()
			if c.refused != (err != nil) {
				t.Fatalf("err = %v, want refused %v", err, c.refused)
			}
			if err == nil {
				v := []float64{3}
				NewNoiser(randx.NewSeeded(1)).Release(p, v)
				if k := v[0] / p.Grid; k != math.Round(k) {
					t.Fatalf("release %v off the grid %g", v[0], p.Grid)
				}
			}
		})
	}
}

func TestDefaultDelta(t *testing.T) {
	if d := DefaultDelta(1000); math.Abs(d-1e-6) > 1e-18 {
		t.Fatalf("DefaultDelta(1000) = %v, want 1e-6", d)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("DefaultDelta(0) did not panic")
		}
	}()
	DefaultDelta(0)
}

// Each of dp's words parses as itself (a calibration among those a
// method offers: sound and paper unless it says), and anything else is
// refused by an error quoting it; a noise mode's Check agrees.
func TestVocabularyParses(t *testing.T) {
	testenv.CheckWords(t, ParseMechanism, []Mechanism{MechanismLaplace, MechanismGaussian}, "Laplace")
	testenv.CheckWords(t, func(s string) (Calibration, error) { return ParseCalibration(s) }, []Calibration{CalibrationSound, CalibrationPaper}, "none")
	testenv.CheckWords(t, func(s string) (Calibration, error) { return ParseCalibration(s, CalibrationSound, CalibrationNone) },
		[]Calibration{CalibrationSound, CalibrationNone}, "paper")
	testenv.CheckWords(t, ParseUnit, []Unit{UnitRecord, UnitIndividual, UnitPartyColumns}, "row")
	testenv.CheckWords(t, ParseNoiseMode, []NoiseMode{NoiseInsiderSafe, NoiseExact}, "", "Exact")
	testenv.CheckWords(t, func(s string) (NoiseMode, error) { return NoiseMode(s), NoiseMode(s).Check() }, []NoiseMode{NoiseExact}, "")
}

// TestWordsPrefixAndCheck checks a vocabulary's error names its package
// and lists its words, and that Check agrees with Parse.
func TestWordsPrefixAndCheck(t *testing.T) {
	words := NewWords("colour", NoiseMode("red"), NoiseMode("green")).In("paint")
	for _, c := range []struct {
		w    NoiseMode
		want string // "" for no error
	}{
		{"green", ""},
		{"blue", `paint: unknown colour "blue" (want red or green)`},
		{"", `paint: unknown colour "" (want red or green)`},
	} {
		t.Run(string(c.w), func(t *testing.T) {
			err := words.Check(c.w)
			if (err == nil) != (c.want == "") || (err != nil && err.Error() != c.want) {
				t.Fatalf("Check(%q) = %v, want %q", c.w, err, c.want)
			}
		})
	}
}

// TestEnumNames checks the names of dp's integer enumerations, and that an
// unnamed value (the unused zero of one starting at iota + 1, or one out
// of range) prints as its type and number.
func TestEnumNames(t *testing.T) {
	for _, c := range []struct {
		got  fmt.Stringer
		want string
	}{
		{ZCDP, "zcdp"},
		{Notion(0), "Notion(0)"},
		{Analytic, "analytic"},
		{FromRho, "zcdp"},
		{GaussianCalibration(-1), "GaussianCalibration(-1)"},
		{DiscreteGaussian, "discrete-gaussian"},
		{NoiseKind(0), "NoiseKind(0)"},
		{NoiseKind(3), "NoiseKind(3)"},
	} {
		t.Run(c.want, func(t *testing.T) {
			if s := c.got.String(); s != c.want {
				t.Fatalf("String() = %q, want %q", s, c.want)
			}
		})
	}
}

// TestPlanRefusesBadInputs checks that each grid plan names itself and the
// input it refuses, quoting the bad value.
func TestPlanRefusesBadInputs(t *testing.T) {
	for _, c := range []struct {
		name string
		plan func() (GridNoise, error)
		want string
	}{
		{"laplace sensitivity", func() (GridNoise, error) { return PlanLaplace(0, 1, 1) }, "dp: laplace plan: sensitivity must be positive and finite, got 0"},
		{"laplace epsilon", func() (GridNoise, error) { return PlanLaplace(1, math.NaN(), 1) }, "dp: laplace plan: epsilon must be positive and finite, got NaN"},
		{"gaussian dim", func() (GridNoise, error) { return PlanGaussian(1, 1, 0) }, "dp: gaussian plan: a release needs at least 1 coordinate, got 0"},
		{"integer sigma", func() (GridNoise, error) { return PlanGaussianInteger(1, math.Inf(1), 2) }, "dp: integer gaussian plan: sigma must be positive and finite, got +Inf"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := c.plan(); err == nil || err.Error() != c.want {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
}
