package dppca

import (
	"math"
	"strings"
	"testing"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/learn"
	"github.com/dppub/dppub/method/methodtest"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// upperDiff returns the L1 and L2 norms of the upper triangle of
// xxᵀ − x'x'ᵀ (n·ΔA).
func upperDiff(x, xp []float64) (l1, l2 float64) {
	for i := range x {
		for j := i; j < len(x); j++ {
			d := x[i]*x[j] - xp[i]*xp[j]
			l1 += math.Abs(d)
			l2 += d * d
		}
	}
	return l1, math.Sqrt(l2)
}

func unitRandom(src *randx.Source, d int, radius float64) []float64 {
	x := make([]float64, d)
	for j := range x {
		x[j] = src.NormFloat64()
	}
	floats.Scale(radius/floats.Norm(x, 2), x)
	return x
}

func TestSensitivityBounds(t *testing.T) {
	const n, d = 100, 12
	l1, l2 := UpperTriangleL1(n, d), UpperTriangleL2(n)
	if l1 != 13.0/100 || math.Abs(l2-math.Sqrt2/100) > 1e-15 {
		t.Fatalf("sensitivities %v, %v; want 0.13 and √2/100", l1, l2)
	}
	// Known pairs: ones/√d against e₁ gives L1 (d+3)/2 − 2/d; e₁ against
	// e₂ attains the L2 bound √2.
	ones := make([]float64, d)
	for j := range ones {
		ones[j] = 1 / math.Sqrt(d)
	}
	e1, e2 := make([]float64, d), make([]float64, d)
	e1[0], e2[1] = 1, 1
	if got, _ := upperDiff(ones, e1); math.Abs(got-(float64(d+3)/2-2.0/d)) > 1e-12 {
		t.Errorf("ones vs e1: L1 %v, want %v", got, float64(d+3)/2-2.0/d)
	}
	if _, got := upperDiff(e1, e2); math.Abs(got-math.Sqrt2) > 1e-15 {
		t.Errorf("e1 vs e2: L2 %v, want √2", got)
	}
	// No pair of rows in the unit ball exceeds n times either bound.
	src := randx.NewSeeded(1)
	for trial := 0; trial < 2000; trial++ {
		x := unitRandom(src, d, math.Sqrt(src.Float64()))
		xp := unitRandom(src, d, 1)
		if trial%2 == 0 {
			for j := range xp { // same signs as x, the hardest case for L1
				xp[j] = math.Abs(xp[j]) * math.Copysign(1, -x[j])
			}
		}
		a, b := upperDiff(x, xp)
		if a > l1*n+1e-12 || b > l2*n+1e-12 {
			t.Fatalf("trial %d: upper-triangle change L1 %v > %v or L2 %v > %v", trial, a, l1*n, b, l2*n)
		}
	}
	if UpperTriangleL1(n, d) > 2*float64(d)/n {
		t.Error("the sound L1 sensitivity exceeds the paper's 2d/n")
	}
}

func TestPlanMatrixNoise(t *testing.T) {
	const n, d, eps, delta = 5000, 20, 0.5, 1e-8
	plan := func(m Method, c Calibration) *NoisePlan {
		t.Helper()
		p, err := PlanMatrixNoise(PlanOptions{Method: m, Calibration: c, N: n, D: d, Epsilon: eps, Delta: delta})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if p := plan(DPPCASVM, Sound); p.Mechanism != "laplace" || math.Abs(p.Scale-21.0/(n*eps)) > 1e-15 ||
		p.Charge.Spec.Guarantee != dp.Pure(eps) || p.Charge.Actual != nil {
		t.Errorf("dppca sound: %+v", p)
	}
	if p := plan(DPPCASVM, Paper); math.Abs(p.Scale-PaperLaplaceScale(n, d, eps)) > 1e-15 || p.Scale != 40.0/(n*eps) ||
		!strings.Contains(p.Charge.Note, "ε=0.2625-DP") {
		t.Errorf("dppca paper: scale %v, note %q", p.Scale, p.Charge.Note)
	}
	// Analytic Gaussian: σ is the smallest with δ(σ) ≤ δ for sensitivity √2/n.
	ag := plan(AGSVM, Sound)
	if got := dp.GaussianDelta(ag.Scale, math.Sqrt2/n, eps); got > delta || got < 0.99*delta {
		t.Errorf("ag sound: δ at σ=%v is %v, want just below %v", ag.Scale, got, delta)
	}
	// The paper's AG uses the add/remove sensitivity 1/n, so under
	// replacement it gives less than it claims.
	agp := plan(AGSVM, Paper)
	if agp.Scale != PaperAGSigma(n, eps, delta) || agp.Charge.Actual == nil || !(agp.Charge.Actual.Delta > delta) {
		t.Errorf("ag paper: scale %v actual %v", agp.Scale, agp.Charge.Actual)
	}
	if agp.Scale >= ag.Scale {
		t.Errorf("paper AG σ %v should be below the sound %v", agp.Scale, ag.Scale)
	}
	// MOD-SuLQ's β (≈ d/(nε)·√(2 ln(d²/δ))) is far above what (ε, δ) needs.
	ms := plan(ModSuLQSVM, Sound)
	wantBeta := 21.0/(n*eps)*math.Sqrt(2*math.Log(420/(2*math.Sqrt(2*math.Pi)*delta))) + 1/(n*math.Sqrt(eps))
	if math.Abs(ms.Scale-wantBeta) > 1e-15 || ms.Scale < 5*ag.Scale || ms.Charge.Actual != nil {
		t.Errorf("mod-sulq: β %v (want %v, ≫ %v), actual %v", ms.Scale, wantBeta, ag.Scale, ms.Charge.Actual)
	}
	for _, bad := range []PlanOptions{
		{Method: PCADPSVM, Calibration: Sound, N: n, D: d, Epsilon: eps},
		{Method: "pca", Calibration: Sound, N: n, D: d, Epsilon: eps},
		{Method: DPPCASVM, Calibration: "loose", N: n, D: d, Epsilon: eps},
		{Method: DPPCASVM, Calibration: Sound, N: n, D: d, Epsilon: 0},
		{Method: AGSVM, Calibration: Sound, N: n, D: d, Epsilon: eps},
		{Method: DPPCASVM, Calibration: Sound, N: 0, D: d, Epsilon: eps},
	} {
		if _, err := PlanMatrixNoise(bad); err == nil || !strings.HasPrefix(err.Error(), "dppca: ") {
			t.Errorf("%+v: error %v, want a dppca error", bad, err)
		}
	}
}

// The noise added to A is symmetric with Laplace(b) or N(0, σ²) entries.
// With 1830 upper-triangle draws, mean|E| of Laplace(b) has sd
// b/√1830 ≈ 0.023b and the sample variance of N(0, σ²) has relative sd
// √(2/1830) ≈ 0.033; 5 sd bounds reject a correct sampler with
// probability below 1e-6 each.
func TestPerturbDistribution(t *testing.T) {
	const d = 60
	m := float64(d * (d + 1) / 2)
	for _, c := range []struct {
		plan  NoisePlan
		check func(absMean, variance float64) bool
	}{
		{NoisePlan{Mechanism: "laplace", Scale: 0.3, Charge: privacy.Charge{Spec: dp.Spec{Sensitivity: 0.03}}}, func(a, _ float64) bool { return math.Abs(a-0.3) < 5*0.3/math.Sqrt(m) }},
		{NoisePlan{Mechanism: "gaussian", Scale: 0.2, Charge: privacy.Charge{Spec: dp.Spec{Sensitivity: 0.05}}}, func(_, v float64) bool { return math.Abs(v/0.04-1) < 5*math.Sqrt(2/m) }},
	} {
		a := mat.NewSymDense(d, nil)
		c.plan.Perturb(a, randx.NewSeeded(3))
		var abs, sq float64
		for i := 0; i < d; i++ {
			for j := i; j < d; j++ {
				if a.At(i, j) != a.At(j, i) {
					t.Fatal("noisy matrix is not symmetric")
				}
				abs += math.Abs(a.At(i, j))
				sq += a.At(i, j) * a.At(i, j)
			}
		}
		if !c.check(abs/m, sq/m) {
			t.Errorf("%s noise: mean |e| %.4f, variance %.4f do not match scale %v", c.plan.Mechanism, abs/m, sq/m, c.plan.Scale)
		}
	}
}

func TestChooseK(t *testing.T) {
	for _, c := range []struct {
		vals  []float64
		alpha float64
		want  int
	}{
		{[]float64{4, 3, 2, 1}, 0.7, 2},
		{[]float64{4, 3, 2, 1}, 0.71, 3},
		{[]float64{4, 3, 2, 1}, 1, 4},
		{[]float64{4, 3, -2, -5}, 0.85, 2}, // negatives count as 0: 4/7, 7/7
		{[]float64{-1, -2}, 0.85, 1},
		{[]float64{1, 0, 0}, 0.85, 1},
	} {
		if got := ChooseK(c.vals, c.alpha); got != c.want {
			t.Errorf("ChooseK(%v, %v) = %d, want %d", c.vals, c.alpha, got, c.want)
		}
	}
}

func TestTopKAndProject(t *testing.T) {
	// A = Q diag(5, 3, 1, 0.5) Qᵀ for a rotation Q in the plane of
	// columns 0 and 1: the top two eigenvectors are Q's first columns.
	c, s := math.Cos(0.3), math.Sin(0.3)
	q := mat.NewDense(4, 4, []float64{c, -s, 0, 0, s, c, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1})
	var a mat.Dense
	a.Mul(q, mat.NewDiagDense(4, []float64{5, 3, 1, 0.5}))
	a.Mul(&a, q.T())
	sym := mat.NewSymDense(4, nil)
	for i := 0; i < 4; i++ {
		for j := i; j < 4; j++ {
			sym.SetSym(i, j, a.At(i, j))
		}
	}
	comps, err := TopK(sym, SelectOptions{Contribution: 0.85})
	if err != nil {
		t.Fatal(err)
	}
	// (5+3)/9.5 = 0.842 < 0.85 ≤ 9/9.5, so k = 3.
	if comps.K != 3 || math.Abs(comps.Eigenvalues[0]-5) > 1e-12 || math.Abs(comps.Eigenvalues[3]-0.5) > 1e-12 {
		t.Fatalf("k = %d, eigenvalues %v", comps.K, comps.Eigenvalues)
	}
	for j := 0; j < 2; j++ {
		if dot := math.Abs(mat.Dot(comps.Vectors.ColView(j), q.ColView(j))); math.Abs(dot-1) > 1e-12 {
			t.Errorf("component %d has |cos| %v with the true eigenvector", j, dot)
		}
	}
	X := mat.NewDense(2, 4, []float64{1, 0, 0, 0, 0.5, 0.5, 0.5, 0.5})
	Y := comps.Project(X)
	if r, k := Y.Dims(); r != 2 || k != 3 {
		t.Fatalf("projection is %d×%d", r, k)
	}
	if math.Abs(Y.At(0, 0)-math.Abs(c)*sign(comps.Vectors.At(0, 0))) > 1e-12 {
		t.Errorf("y[0][0] = %v, want ±cos 0.3", Y.At(0, 0))
	}
	if norm := floats.Norm(Y.RawRowView(1), 2); norm > 1+1e-12 {
		t.Errorf("projected norm %v > 1", norm)
	}
	if _, err := TopK(sym, SelectOptions{K: 5}); err == nil {
		t.Error("k = 5 > d accepted")
	}
}

func sign(x float64) float64 { return math.Copysign(1, x) }

// blobs: n rows in the unit ball of dimension d, class c centred on
// 0.5·e_c plus N(0, 0.05²) noise per coordinate.
func blobs(n, d, classes int, src *randx.Source) (*mat.Dense, []int) {
	X := mat.NewDense(n, d, nil)
	y := make([]int, n)
	for i := range n {
		c := i % classes
		y[i] = c
		row := X.RawRowView(i)
		for j := range row {
			row[j] = 0.05 * src.NormFloat64()
		}
		row[c] += 0.5
	}
	ClipRows(X)
	return X, y
}

// accountant is a fresh accountant of budget g.
func accountant(t *testing.T, g dp.Guarantee) *privacy.Accountant {
	t.Helper()
	return methodtest.Accountant(t, "owner", g)
}

func TestTrainChargesAndSeparates(t *testing.T) {
	X, y := blobs(3000, 10, 3, randx.NewSeeded(5))
	for _, c := range []struct {
		m      Method
		cal    Calibration
		budget dp.Guarantee
		// charges: 1 matrix + 3 DP SVMs for sound input perturbation.
		charges int
		svmEps  float64
	}{
		{DPPCASVM, Sound, dp.Pure(20), 4, 10},
		{DPPCASVM, Paper, dp.Pure(20), 1, 0},
		{AGSVM, Sound, dp.Approx(20, 1e-7), 4, 10},
		{ModSuLQSVM, Paper, dp.Approx(20, 1e-7), 1, 0},
		{PCADPSVM, Sound, dp.Pure(20), 3, 20},
		{PCADPSVM, Paper, dp.Pure(20), 1, 20},
	} {
		acct := accountant(t, c.budget)
		res, err := Train(X, y, 3, Options{Method: c.m, Calibration: c.cal, Epsilon: 20, Delta: 1e-7,
			Select: SelectOptions{K: 3}, Accountant: acct, Source: randx.NewSeeded(6)})
		if err != nil {
			t.Fatalf("%s %s: %v", c.m, c.cal, err)
		}
		charges := acct.Charges()
		if len(charges) != c.charges || res.SVMEpsilon != c.svmEps || res.BinaryModels != 3 {
			t.Errorf("%s %s: %d charges, SVM ε %v; want %d and %v", c.m, c.cal, len(charges), res.SVMEpsilon, c.charges, c.svmEps)
		}
		if spent := acct.Spent(); math.Abs(spent.Epsilon-20) > 1e-9 {
			t.Errorf("%s %s: spent %v, want ε = 20", c.m, c.cal, spent)
		}
		acc := learn.Accuracy(res.Classifier.PredictAll(res.Components.Project(X)), y)
		// Well-separated blobs at ε = 20: every method but the paper's
		// PCA-DPSVM (noise 2Cnd/ε ≈ 3000 on w) classifies them well.
		if c.m == PCADPSVM && c.cal == Paper {
			if res.WeightScale != 2*3000*10/20.0 {
				t.Errorf("paper pca-dpsvm: weight scale %v, want 3000", res.WeightScale)
			}
			if a := charges[0].Actual; a == nil || a.Epsilon != 60 {
				t.Errorf("paper pca-dpsvm: actual %v, want ε = 60 for 3 noised models", a)
			}
			continue
		}
		if acc < 0.95 {
			t.Errorf("%s %s: training accuracy %.3f on separated blobs", c.m, c.cal, acc)
		}
	}
}

func TestTrainRefusesOverspending(t *testing.T) {
	X, y := blobs(200, 5, 2, randx.NewSeeded(7))
	acct := accountant(t, dp.Pure(0.5))
	_, err := Train(X, y, 2, Options{Method: DPPCASVM, Calibration: Sound, Epsilon: 1, Accountant: acct, Source: randx.NewSeeded(8)})
	if err == nil || !strings.Contains(err.Error(), "only ε=0.5 left") {
		t.Fatalf("overspending: error %v", err)
	}
	if len(acct.Charges()) != 0 {
		t.Errorf("a refused release recorded %d charges", len(acct.Charges()))
	}
}

func TestTrainValidates(t *testing.T) {
	X, y := blobs(50, 4, 2, randx.NewSeeded(9))
	big := mat.DenseCopyOf(X)
	big.Set(3, 0, 2)
	acct := accountant(t, dp.Pure(10))
	ok := Options{Method: DPPCASVM, Calibration: Sound, Epsilon: 1, Accountant: acct}
	for name, c := range map[string]struct {
		X       *mat.Dense
		y       []int
		classes int
		o       func(Options) Options
		want    string
	}{
		"row norm":      {big, y, 2, func(o Options) Options { return o }, "row 3 has L2 norm"},
		"label range":   {X, append([]int{5}, y[1:]...), 2, func(o Options) Options { return o }, "label 5"},
		"one class":     {X, y, 1, func(o Options) Options { return o }, "at least 2 classes"},
		"no accountant": {X, y, 2, func(o Options) Options { o.Accountant = nil; return o }, "accountant"},
		"epsilon":       {X, y, 2, func(o Options) Options { o.Epsilon = -1; return o }, "epsilon"},
		"share":         {X, y, 2, func(o Options) Options { o.ComponentShare = 1; return o }, "component share"},
		"k":             {X, y, 2, func(o Options) Options { o.Select.K = 9; return o }, "k = 9"},
		"method":        {X, y, 2, func(o Options) Options { o.Method = "svm"; return o }, `"svm"`},
	} {
		_, err := Train(c.X, c.y, c.classes, c.o(ok))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "dppca: ") {
			t.Errorf("%s: error %v, want one containing %q", name, err, c.want)
		}
	}
}

// primal is ½‖w̃‖² + C Σ max(0, 1 − yᵢ w̃·x̃ᵢ)².
func primal(X *mat.Dense, y []int, m *learn.LinearModel, c float64) float64 {
	f := 0.5 * (floats.Dot(m.W, m.W) + m.B*m.B)
	n, _ := X.Dims()
	for i := range n {
		s := float64(2*y[i] - 1)
		if v := 1 - s*m.Score(X.RawRowView(i)); v > 0 {
			f += c * v * v
		}
	}
	return f
}

// Newton and a tightly converged dual coordinate descent minimise the same
// objective: their optima agree to 1e-6 relative, both with the
// row-by-row Hessian (d = 6) and the blocked one (d = 12 > smallDim).
func TestNewtonMatchesDualSolver(t *testing.T) {
	for _, d := range []int{6, 12} {
		src := randx.NewSeeded(10)
		X, y := blobs(600, d, 2, src)
		for i := 0; i < 60; i++ { // label noise, so many margins are active
			y[i] = 1 - y[i]
		}
		so := learn.DefaultSVMOptions()
		newton, err := NonPrivateSVM(X, y, 2, so, src)
		if err != nil {
			t.Fatal(err)
		}
		tight := so
		tight.Tol, tight.MaxIter = 1e-8, 100000
		dual, err := learn.TrainBinarySVM(X, y, tight, src)
		if err != nil {
			t.Fatal(err)
		}
		fn, fd := primal(X, y, newton.Models[0], so.C), primal(X, y, dual, so.C)
		if math.Abs(fn-fd) > 1e-6*fd {
			t.Errorf("d = %d: Newton objective %.10g, dual %.10g", d, fn, fd)
		}
	}
}

func TestNonPrivateSVMAbsentClass(t *testing.T) {
	X, y := blobs(90, 4, 3, randx.NewSeeded(11))
	c, err := NonPrivateSVM(X, y, 4, learn.DefaultSVMOptions(), randx.NewSeeded(12))
	if err != nil {
		t.Fatal(err)
	}
	if m := c.Models[3]; m.B != -1 || floats.Norm(m.W, 2) != 0 {
		t.Errorf("absent class model %+v, want W = 0, B = −1", m)
	}
	if acc := learn.Accuracy(c.PredictAll(X), y); acc < 0.99 {
		t.Errorf("accuracy %.3f on separated blobs", acc)
	}
}
