package dp

import (
	"math"
	"testing"

	"github.com/dppub/dppub/randx"
	"github.com/google/differential-privacy/go/v3/noise"
	"gonum.org/v1/gonum/mat"
)

func sources() map[string]*randx.Source {
	return map[string]*randx.Source{"secure": randx.NewSecure(), "seeded": randx.NewSeeded(42)}
}

func TestLaplaceSamplerIsLaplace(t *testing.T) {
	for name, src := range sources() {
		n := NewNoiser(src)
		const b = 2.5
		s := make([]float64, 20000)
		for i := range s {
			s[i] = n.Laplace(b)
		}
		assertKS(t, name+" laplace", s, laplaceCDF(b))
		// Var = 2b²; with n = 20000 the sample variance has relative sd
		// ≈ sqrt(5/n) ≈ 1.6%; 8% is a 5-sigma band (false rejection < 1e-6).
		if _, v := meanVar(s); math.Abs(v/(2*b*b)-1) > 0.08 {
			t.Errorf("%s laplace variance %.3f, want %.3f", name, v, 2*b*b)
		}
	}
}

func TestGaussianSamplerIsGaussian(t *testing.T) {
	for name, src := range sources() {
		n := NewNoiser(src)
		const sigma = 3.0
		s := make([]float64, 20000)
		for i := range s {
			s[i] = n.Gaussian(sigma)
		}
		assertKS(t, name+" gaussian", s, normalCDF(sigma))
		// Relative sd of the sample variance is sqrt(2/n) = 1%: 5% is 5 sigma.
		if _, v := meanVar(s); math.Abs(v/(sigma*sigma)-1) > 0.05 {
			t.Errorf("%s gaussian variance %.3f, want %.3f", name, v, sigma*sigma)
		}
	}
}

func TestGammaSharesSumToLaplace(t *testing.T) {
	n := NewNoiser(randx.NewSeeded(7))
	const b, m = 1.5, 5
	s := make([]float64, 20000)
	for i := range s {
		for j := 0; j < m; j++ {
			s[i] += n.Gamma(1.0/m, b) - n.Gamma(1.0/m, b)
		}
	}
	assertKS(t, "sum of gamma differences", s, laplaceCDF(b))
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
	want := 0.5 + 2*math.Sqrt(0.5*math.Log(1e6))
	if err != nil || math.Abs(a.Epsilon-want) > 1e-12 || a.Delta != 1e-6 {
		t.Fatalf("zcdp 0.5 -> %v, %v; want eps %v", a, err, want)
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
	n.AddLaplaceSym(s, 1)
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

func TestExponentialMechanismFrequencies(t *testing.T) {
	src := randx.NewSeeded(3)
	u := []float64{0, 1, 2}
	const eps, runs = 2.0, 30000
	counts := make([]float64, len(u))
	for i := 0; i < runs; i++ {
		k, err := Exponential(src, u, 1, eps)
		if err != nil {
			t.Fatal(err)
		}
		counts[k]++
	}
	w := []float64{1, math.E, math.E * math.E} // exp(ε u/2) with ε = 2
	total := w[0] + w[1] + w[2]
	chi2 := 0.0
	for i := range u {
		exp := runs * w[i] / total
		chi2 += (counts[i] - exp) * (counts[i] - exp) / exp
	}
	// χ² with 2 degrees of freedom: P(χ² > 18.42) = 1e-4.
	if chi2 > 18.42 {
		t.Fatalf("chi-square %.2f > 18.42 (false-rejection 1e-4); counts %v", chi2, counts)
	}
}
