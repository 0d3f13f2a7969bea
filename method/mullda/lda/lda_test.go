package lda

import (
	"math"
	"testing"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

func TestComputeStatsKnownAnswer(t *testing.T) {
	X := mat.NewDense(3, 2, []float64{1, 0, 0.6, 0.8, 0, 1})
	s, err := ComputeStats(X, []int{0, 1, 1}, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1, 0, 0.6, 1.8}
	if !equal(s.SumsVector(), want, 1e-15) || !equal(s.Counts, []float64{1, 2}, 0) {
		t.Fatalf("sums %v counts %v, want %v and [1 2]", s.SumsVector(), s.Counts, want)
	}
	// Σxxᵀ = [1+0.36, 0.48; 0.48, 0.64+1].
	if !equal(s.SecondUpper(), []float64{1.36, 0.48, 1.64}, 1e-15) {
		t.Fatalf("second moment %v", s.SecondUpper())
	}
	if _, err := ComputeStats(mat.NewDense(1, 2, []float64{1, 0.1}), []int{0}, 2); err == nil {
		t.Fatal("a row of norm > 1 was accepted")
	}
	if _, err := ComputeStats(X, []int{0, 2, 1}, 2); err == nil {
		t.Fatal("label 2 of 2 classes was accepted")
	}
}

func TestStatsVectorsRoundTrip(t *testing.T) {
	X := mat.NewDense(2, 3, []float64{0.6, 0, 0.8, 0, 1, 0})
	s, _ := ComputeStats(X, []int{1, 0}, 2)
	back, err := StatsFromVectors(2, 3, s.SumsVector(), s.Counts, s.SecondUpper())
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(back.Sums, s.Sums) || !mat.Equal(back.Second, s.Second) || !equal(back.Counts, s.Counts, 0) {
		t.Fatal("statistics changed in a round trip")
	}
	if _, err := StatsFromVectors(2, 3, s.SumsVector(), s.Counts, []float64{1}); err == nil {
		t.Fatal("short second moment accepted")
	}
}

// A hand-solved two-class problem in the plane.
func TestFisherKnownAnswer(t *testing.T) {
	// Class 0: (0.6, 0), (0, 0.6); class 1: (0.8, 0.6), (0.6, 0.8).
	X := mat.NewDense(4, 2, []float64{0.6, 0, 0, 0.6, 0.8, 0.6, 0.6, 0.8})
	s, _ := ComputeStats(X, []int{0, 0, 1, 1}, 2)
	e, err := NewEstimate(s)
	if err != nil {
		t.Fatal(err)
	}
	// μ0 = (0.3, 0.3), μ1 = (0.7, 0.7); S0 = [[.18,-.18],[-.18,.18]],
	// S1 = [[.02,-.02],[-.02,.02]] → S_w = 0.2·[[1,-1],[-1,1]] (singular):
	// the direction μ1 − μ0 = (0.4, 0.4) lies in its null space, so the
	// ridge solve returns (1, 1)/√2.
	want := []float64{1 / math.Sqrt2, 1 / math.Sqrt2}
	if !equal(mat.DenseCopyOf(e.Within).RawMatrix().Data, []float64{0.2, -0.2, -0.2, 0.2}, 1e-12) {
		t.Fatalf("S_w = %v", mat.Formatted(e.Within))
	}
	w, err := e.Fisher(SolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !equal(w, want, 1e-9) {
		t.Fatalf("w = %v, want %v", w, want)
	}
	// A full-rank case: S_w = [[2,1],[1,1]], d = (1, 0) → S_w⁻¹d = (1, −1).
	e2 := &Estimate{Means: mat.NewDense(2, 2, []float64{0, 0, 1, 0}), Counts: []float64{10, 10},
		Within: mat.NewSymDense(2, []float64{2, 1, 1, 1})}
	w2, err := e2.Fisher(SolveOptions{Ridge: 1e-12})
	if err != nil {
		t.Fatal(err)
	}
	if !equal(w2, []float64{1 / math.Sqrt2, -1 / math.Sqrt2}, 1e-9) {
		t.Fatalf("w = %v, want (1, −1)/√2", w2)
	}
}

func TestDirectionsTwoClassesIsFisher(t *testing.T) {
	X, y := gaussianClasses(t, 2, 6, 400, 1)
	s, _ := ComputeStats(X, y, 2)
	e, _ := NewEstimate(s)
	w, err := e.Fisher(SolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	W, err := e.Directions(SolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !equal(mat.Col(nil, 0, W), w, 1e-8) {
		t.Fatalf("Directions %v ≠ Fisher %v", mat.Col(nil, 0, W), w)
	}
}

// The C−1 directions solve S_b v = λ (S_w + ridge) v, and with the class
// means differing in two coordinates only they span those coordinates.
func TestDirectionsMulticlassGeneralisedEigen(t *testing.T) {
	X, y := gaussianClasses(t, 3, 5, 600, 2)
	s, _ := ComputeStats(X, y, 3)
	e, _ := NewEstimate(s)
	opts := SolveOptions{Ridge: 1e-3}
	W, err := e.Directions(opts)
	if err != nil {
		t.Fatal(err)
	}
	if r, c := W.Dims(); r != 5 || c != 2 {
		t.Fatalf("directions %d×%d, want 5×2", r, c)
	}
	sw, _, _ := e.Regularised(opts)
	d := e.centredMeans()
	var sb mat.Dense
	sb.Mul(d, d.T())
	for j := 0; j < 2; j++ {
		v := mat.NewVecDense(5, mat.Col(nil, j, W))
		var a, b mat.VecDense
		a.MulVec(&sb, v)
		b.MulVec(sw, v)
		lambda := mat.Dot(v, &a) / mat.Dot(v, &b)
		b.ScaleVec(lambda, &b)
		a.SubVec(&a, &b)
		if res := mat.Norm(&a, 2) / mat.Norm(&b, 2); res > 1e-8 {
			t.Fatalf("direction %d: relative residual of S_b v = λ S_w v is %v", j, res)
		}
	}
	// Means differ in coordinates 0 and 1 only (gaussianClasses), and the
	// within-class covariance is isotropic: the directions live there.
	for j := 0; j < 2; j++ {
		col := mat.Col(nil, j, W)
		off := col[2]*col[2] + col[3]*col[3] + col[4]*col[4]
		if off > 0.05 {
			t.Fatalf("direction %d = %v has %.3f of its mass outside the mean plane", j, col, off)
		}
	}
}

func TestPaperSigmasKnownAnswers(t *testing.T) {
	// Eq. 15 and 19 by hand for p = 4, ε = 1, δ = 0.01: ln(2/(π·10⁻⁴)) =
	// 8.7587, √ = 2.9595; σ1 = (23.676 + √(23.676² + 2))/1 = 47.3945;
	// σ2 = (14.798 + √(14.798² + 4))/2 = 14.8649.
	s1, _ := PaperSumSigma(4, 1, 0.01)
	s2, _ := PaperScatterSigma(4, 1, 0.01)
	if math.Abs(s1-47.39451636970602) > 1e-9 || math.Abs(s2-14.864871881439338) > 1e-9 {
		t.Fatalf("σ1 = %v, σ2 = %v", s1, s2)
	}
	if _, err := PaperSumSigma(4, 1, 0.9); err == nil {
		t.Fatal("δ ≥ √(2/π) accepted")
	}
}

// The sound plan makes the block-scaled release exactly (ε, δ): the
// effective unit σ 1/√(4/σ_s,eff² + 2/σ_B,eff²) reaches δ at ε.
func TestSoundPlanIsExactlyCalibrated(t *testing.T) {
	for _, m := range []int{1, 2, 5} {
		pl, err := NewPlan(PlanOptions{Calibration: Sound, Epsilon: 0.5, Delta: 1e-3, P: 10, Classes: 2, Owners: m})
		if err != nil {
			t.Fatal(err)
		}
		r := pl.ViewFactor
		mu := math.Sqrt(4/math.Pow(r*pl.SumSigma, 2) + 2/math.Pow(r*pl.SecondSigma, 2))
		if d := dp.GaussianDelta(1/mu, 1, 0.5); math.Abs(d/1e-3-1) > 1e-6 {
			t.Fatalf("M=%d: the publisher's view is (0.5, %v)-DP, want δ = 1e-3", m, d)
		}
		if pl.CountSigma != pl.SumSigma || len(pl.SecondCharges) != 0 || pl.Claimed().Epsilon != 0.5 {
			t.Fatalf("M=%d: plan %+v", m, pl)
		}
	}
	one, _ := NewPlan(PlanOptions{Calibration: Sound, Epsilon: 0.5, Delta: 1e-3, P: 10, Classes: 2})
	s, _ := dp.AnalyticGaussianSigma(1, 0.5, 1e-3)
	if math.Abs(one.SumSigma-2*math.Sqrt2*s) > 1e-9 || math.Abs(one.SecondSigma-2*s) > 1e-9 {
		t.Fatalf("one owner: σ_s = %v, σ_B = %v; want 2√2·s and 2s with s = %v", one.SumSigma, one.SecondSigma, s)
	}
}

func TestPaperPlanStatesTrueGuarantee(t *testing.T) {
	pl, err := NewPlan(PlanOptions{Calibration: Paper, Epsilon: 0.2, Delta: 1e-3, P: 15, Classes: 2, Owners: 3})
	if err != nil {
		t.Fatal(err)
	}
	s1, _ := PaperSumSigma(15, 0.1, 5e-4)
	if pl.SumSigma != s1 || pl.CountSigma != 0 || !pl.Options.PublicCounts {
		t.Fatalf("paper plan %+v", pl)
	}
	c, a := pl.Claimed(), pl.Actual()
	if c.Epsilon != 0.2 || c.Delta != 1e-3 || a.Epsilon != 0.2 || !(a.Delta < c.Delta) {
		t.Fatalf("claimed %v, actual %v: the paper over-noises, so the true δ must be below the claim", c, a)
	}
}

// r(M) against a direct Schur complement on the covariance of the
// publisher's view (n_1..n_M, ḡ_0), and r(2) = √(5/7) by hand.
func TestViewFactorMatchesSchurComplement(t *testing.T) {
	if math.Abs(ViewFactor(2)-math.Sqrt(5.0/7)) > 1e-12 || ViewFactor(1) != 1 {
		t.Fatalf("r(2) = %v, want √(5/7); r(1) = %v", ViewFactor(2), ViewFactor(1))
	}
	for m := 2; m <= 10; m++ {
		fm := float64(m)
		tau2, v := 1/fm, (fm-1)/fm
		c := -v / fm
		// Variables: n_1..n_M (own + share), then ḡ_0.
		cov := mat.NewSymDense(m+1, nil)
		for i := 0; i <= m; i++ {
			for j := i; j <= m; j++ {
				switch {
				case i == j && i < m:
					cov.SetSym(i, j, tau2+v)
				case i == j:
					cov.SetSym(i, j, v)
				default:
					cov.SetSym(i, j, c)
				}
			}
		}
		// Var(n_0 | rest) = 1/(Σ⁻¹)_00; computed by a Cholesky solve.
		var chol mat.Cholesky
		if !chol.Factorize(cov) {
			t.Fatalf("M=%d: covariance not positive definite", m)
		}
		e0 := mat.NewVecDense(m+1, nil)
		e0.SetVec(0, 1)
		var x mat.VecDense
		if err := chol.SolveVecTo(&x, e0); err != nil {
			t.Fatal(err)
		}
		want := math.Sqrt(1 / x.AtVec(0))
		if math.Abs(ViewFactor(m)-want) > 1e-10 {
			t.Fatalf("M=%d: r = %v, Schur complement gives %v", m, ViewFactor(m), want)
		}
	}
}

// Shares are integers that sum to exactly zero, each with the plan's
// variance s² (in grid steps²) and pairwise covariance −s²/(P−1), the
// covariance of the real-valued construction (iid minus their mean). The
// variance check is a two-sided χ² bound at z = 5 per share on K = 20000
// draws (sd of s²/σ² ≈ √(2/K) = 1%, tolerance 5·1% = 5%): false-rejection
// probability < 6e-7 per share, < 1e-5 for the test; the covariance of
// shares 0 and 1 is checked to 5 standard errors (≈ √(1+ρ²)/√K·s²).
func TestZeroSumShares(t *testing.T) {
	const k = 20000
	n := dp.NewNoiser(randx.NewSeeded(7))
	plan, err := dp.PlanGaussian(1, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	s2 := plan.Units() * plan.Units()
	for _, parties := range []int{3, 6, 11} {
		sh := ZeroSumShares(n, plan, parties, k)
		cov := 0.0
		for j := 0; j < k; j++ {
			var sum int64
			for i := range sh {
				sum += sh[i][j]
			}
			if sum != 0 {
				t.Fatalf("%d parties: shares of entry %d sum to %d", parties, j, sum)
			}
			cov += float64(sh[0][j]) * float64(sh[1][j])
		}
		cov /= k
		for i := range sh {
			f := make([]float64, k)
			for j, v := range sh[i] {
				f[j] = float64(v)
			}
			if v := variance(f); math.Abs(v/s2-1) > 5*math.Sqrt(2.0/k) {
				t.Fatalf("%d parties: share %d has variance %v, want %v", parties, i, v, s2)
			}
		}
		want := -s2 / float64(parties-1)
		if math.Abs(cov-want) > 5*s2*math.Sqrt(2.0/k) {
			t.Fatalf("%d parties: share covariance %v, want %v", parties, cov, want)
		}
	}
}

// A block's noise on its grid: without shares the owner's own noise is the
// plan's (κσ); with shares own plus share have κ²σ² together, κ ≥ 1 the
// rounding's price, and everything lies on one grid.
func TestBlockNoise(t *testing.T) {
	for _, m := range []int{1, 2, 5} {
		b, err := NewBlockNoise(Correlated, m, math.Sqrt2, 3, 10)
		if err != nil {
			t.Fatal(err)
		}
		own := b.Plan.Scale() * b.Plan.Scale() / float64(b.OwnParts)
		total := own
		if b.Shared {
			total += b.Plan.Scale() * b.Plan.Scale()
		}
		if k2 := total / 9; k2 < 1 || k2 > 1+1e-3 {
			t.Fatalf("M=%d: message variance %v for σ=3", m, total)
		}
		if m >= 2 && math.Abs(own/total-1/float64(m)) > 1e-9 {
			t.Fatalf("M=%d: own noise is %v of the message's", m, own/total)
		}
		v := []float64{0.1, 1.7, 2.5}
		var share []int64
		if b.Shared {
			share = []int64{3, -4, 1}
		}
		b.Release(dp.NewNoiser(randx.NewSeeded(1)), v, share)
		for _, x := range v {
			if x/b.Plan.Grid != math.Trunc(x/b.Plan.Grid) {
				t.Fatalf("M=%d: released %v is off the grid %v", m, x, b.Plan.Grid)
			}
		}
	}
}

func TestModelSampleMatchesMoments(t *testing.T) {
	e := &Estimate{Means: mat.NewDense(2, 2, []float64{0, 0, 1, 0}), Counts: []float64{30000.4, 10000},
		Within: mat.NewSymDense(2, []float64{4000, 0, 0, 4000})}
	W := mat.NewDense(2, 1, []float64{0.6, 0.8})
	m, err := e.Model(W)
	if err != nil {
		t.Fatal(err)
	}
	// Projected means 0 and 0.6; variance 4000/(40000.4 − 2) ≈ 0.1.
	if m.Counts[0] != 30000 || math.Abs(m.Means.At(1, 0)-0.6) > 1e-12 || math.Abs(m.Cov.At(0, 0)-4000/39998.4) > 1e-12 {
		t.Fatalf("model %+v", m)
	}
	z, y, err := m.Sample(randx.NewSeeded(3))
	if err != nil {
		t.Fatal(err)
	}
	var v1 []float64
	for i, c := range y {
		if c == 1 {
			v1 = append(v1, z.At(i, 0))
		}
	}
	// 10000 draws of N(0.6, 0.1) clamped at 1 (1.26 sd, 10% clamped): the
	// mean moves to ≈ 0.5897; its sd is 0.003, so 0.015 is 5 sd.
	if len(v1) != 10000 || math.Abs(mean(v1)-0.5897) > 0.015 {
		t.Fatalf("class 1: %d rows, mean %v", len(v1), mean(v1))
	}
	for _, v := range z.RawMatrix().Data {
		if v < -1 || v > 1 {
			t.Fatalf("sample %v outside [−1, 1]", v)
		}
	}
}

func TestGaussianEpsilonInvertsDelta(t *testing.T) {
	for _, s := range []float64{0.5, 2, 10} {
		eps := GaussianEpsilon(s, 1e-5)
		if d := dp.GaussianDelta(s, 1, eps); math.Abs(d/1e-5-1) > 1e-6 {
			t.Fatalf("s=%v: ε=%v gives δ=%v", s, eps, d)
		}
	}
}

func TestCollusionWeakensTheGuarantee(t *testing.T) {
	pl, _ := NewPlan(PlanOptions{Calibration: Sound, Epsilon: 1, Delta: 1e-5, P: 10, Classes: 2, Owners: 4})
	// The view is calibrated at unit σ s = AnalyticGaussianSigma(1, 1, 1e-5)
	// with r(4)·σ; the colluders leave σ/√4, so the unit σ becomes
	// s·(1/2)/r(4) ≈ 0.64·s, and ε grows to about 1.64.
	s, _ := dp.AnalyticGaussianSigma(1, 1, 1e-5)
	want := GaussianEpsilon(s*0.5/ViewFactor(4), 1e-5)
	if e := pl.CollusionEpsilon(); math.Abs(e-want) > 1e-6 || !(e > 1.5) {
		t.Fatalf("collusion ε = %v, want %v (> 1.5)", e, want)
	}
	ind, _ := NewPlan(PlanOptions{Calibration: Sound, Epsilon: 1, Delta: 1e-5, P: 10, Classes: 2, Owners: 4, Noise: Independent})
	if e := ind.CollusionEpsilon(); math.Abs(e-1) > 1e-6 {
		t.Fatalf("independent noise: collusion ε = %v, want 1", e)
	}
}

// gaussianClasses draws n rows per class in [0,1]-ish, normalised into the
// unit ball: class k has mean 0.3 + 0.2·(k in coordinate k mod 2 …).
func gaussianClasses(t testing.TB, classes, p, n int, seed uint64) (*mat.Dense, []int) {
	t.Helper()
	src := randx.NewSeeded(seed)
	X := mat.NewDense(classes*n, p, nil)
	var y []int
	for k := 0; k < classes; k++ {
		for i := 0; i < n; i++ {
			row := X.RawRowView(k*n + i)
			for j := range row {
				row[j] = 0.05 * src.NormFloat64()
			}
			switch k {
			case 1:
				row[0] += 0.3
			case 2:
				row[1] += 0.3
			}
			y = append(y, k)
		}
	}
	for i := 0; i < classes*n; i++ {
		row := X.RawRowView(i)
		if nr := math.Sqrt(dot(row, row)); nr > 1 {
			for j := range row {
				row[j] /= nr
			}
		}
	}
	return X, y
}

func equal(a, b []float64, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol {
			return false
		}
	}
	return true
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

func variance(v []float64) float64 {
	m := mean(v)
	s := 0.0
	for _, x := range v {
		s += (x - m) * (x - m)
	}
	return s / float64(len(v)-1)
}
