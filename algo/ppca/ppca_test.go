package ppca

import (
	"math"
	"testing"

	"github.com/dppub/dppub/linalg"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

func TestSensitivitiesKnownAnswers(t *testing.T) {
	g := GenericBounds(20).Sensitivities()
	if g.SumL1 != 20 || g.OuterL1 != 210 || math.Abs(g.SumL2-math.Sqrt(20)) > 1e-12 || math.Abs(g.OuterL2-math.Sqrt(210)) > 1e-12 {
		t.Fatalf("generic p=20: %+v", g)
	}
	// Two one-hot groups of 5 and one scalar: a = 3, h = 2, s = 1, p = 11;
	// the one-hot diagonal is not released: a² − h + s = 8, √(a² + s).
	s := RowBounds{P: 11, Groups: []int{5, 5, 1}}.Sensitivities()
	if s.SumL1 != 5 || s.OuterL1 != 8 || math.Abs(s.OuterL2-math.Sqrt(10)) > 1e-12 {
		t.Fatalf("structured: %+v, want SumL1 5, OuterL1 8, OuterL2 √10", s)
	}
	if err := (RowBounds{P: 4, Groups: []int{2, 1}}).Validate(); err == nil {
		t.Fatal("groups covering 3 of 4 columns validated")
	}
}

// The structured bound is a true bound on the released entries (the
// one-hot diagonal left out): brute force over every pair of rows of a
// small one-hot + scalar layout.
func TestStructuredSensitivityHoldsByBruteForce(t *testing.T) {
	b := RowBounds{P: 5, Groups: []int{3, 1, 1}}
	s := b.Sensitivities()
	derived := b.OneHotDiagonal()
	var rows [][]float64
	for c := 0; c < 3; c++ {
		for _, u := range []float64{0, 0.5, 1} {
			for _, v := range []float64{0, 1} {
				x := make([]float64, 5)
				x[c], x[3], x[4] = 1, u, v
				rows = append(rows, x)
			}
		}
	}
	for _, x := range rows {
		for _, y := range rows {
			l1, l2, k := 0.0, 0.0, 5
			for i := 0; i < 5; i++ {
				for j := i; j < 5; j++ {
					k++
					if derived[k-1] >= 0 {
						continue
					}
					d := x[i]*x[j] - y[i]*y[j]
					l1 += math.Abs(d)
					l2 += d * d
				}
			}
			if l1 > s.OuterL1+1e-12 || math.Sqrt(l2) > s.OuterL2+1e-12 {
				t.Fatalf("rows %v, %v: L1 %v > %v or L2 %v > %v", x, y, l1, s.OuterL1, math.Sqrt(l2), s.OuterL2)
			}
		}
	}
}

func TestPaperPlanStatesItsTrueGuarantee(t *testing.T) {
	pl, err := NewPlan(PlanOptions{Calibration: Paper, Mechanism: Laplace, Epsilon: 2, Bounds: GenericBounds(20)})
	if err != nil {
		t.Fatal(err)
	}
	// Scale 2p/ε = 20 on the sums; true upper-triangle sensitivity 210 → ε = 10.5 (vs 1 claimed).
	if pl.SumScale != 20 || pl.Claimed().Epsilon != 2 || math.Abs(pl.Actual().Epsilon-11.5) > 1e-12 {
		t.Fatalf("scale %v claimed %v actual %v", pl.SumScale, pl.Claimed(), pl.Actual())
	}
	if _, err := NewPlan(PlanOptions{Calibration: Paper, Mechanism: Gaussian, Epsilon: 1, Delta: 1e-5, Bounds: GenericBounds(3)}); err == nil {
		t.Fatal("paper calibration with Gaussian accepted")
	}
}

func TestFitRecoversPlantedModel(t *testing.T) {
	// Covariance with eigenvalues (4, 1, 0.1, 0.1, 0.1): at c = 0.9 the paper's
	// rule keeps k = 2; σ² = 0.1 and W = U_2 diag(√3.9, √0.9).
	p := 5
	u := mat.NewDense(p, p, nil)
	for i := 0; i < p; i++ {
		u.Set(i, i, 1)
	}
	vals := []float64{4, 1, 0.1, 0.1, 0.1}
	cov := mat.NewSymDense(p, nil)
	for i := 0; i < p; i++ {
		cov.SetSym(i, i, vals[i])
	}
	m, err := Fit(&Estimate{N: 100, Mean: make([]float64, p), Cov: cov}, FitOptions{Contribution: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	if m.K != 2 || math.Abs(m.Sigma2-0.1) > 1e-12 {
		t.Fatalf("k = %d, σ² = %v; want 2, 0.1", m.K, m.Sigma2)
	}
	if w := math.Abs(m.W.At(0, 0)); math.Abs(w-math.Sqrt(3.9)) > 1e-9 {
		t.Fatalf("W[0,0] = %v, want √3.9", w)
	}
	// Samples reproduce the covariance WWᵀ + σ²I = cov. With n = 40000 the
	// sd of a sample variance is ≈ λ√(2/n) (2.8% of λ); 15% is > 5 sd.
	x := m.Sample(40000, randx.NewSeeded(3))
	sum, outer := linalg.Moments(x)
	for i := 0; i < p; i++ {
		mu := sum[i] / 40000
		v := outer.At(i, i)/40000 - mu*mu
		if math.Abs(v/vals[i]-1) > 0.15 {
			t.Errorf("sample variance %d = %.3f, want %.3f", i, v, vals[i])
		}
	}
}

func TestFitClipsNegativeEigenvalues(t *testing.T) {
	cov := mat.NewSymDense(2, []float64{1, 2, 2, 1}) // eigenvalues 3, −1
	m, err := Fit(&Estimate{N: 10, Mean: []float64{0.5, 0.5}, Cov: cov}, FitOptions{K: 1})
	if err != nil {
		t.Fatal(err)
	}
	if m.Eigenvalues[1] != 0 || m.Sigma2 != 0 {
		t.Fatalf("eigenvalues %v σ² %v: negative eigenvalue not clipped", m.Eigenvalues, m.Sigma2)
	}
}

func TestPooledAndPaperAggregateAgreeWithoutNoise(t *testing.T) {
	src := randx.NewSeeded(5)
	var parts []NoisyMoments
	all := mat.NewDense(300, 3, nil)
	for o := 0; o < 3; o++ {
		x := mat.NewDense(100, 3, nil)
		for i := 0; i < 100; i++ {
			for j := 0; j < 3; j++ {
				v := src.Float64()
				x.Set(i, j, v)
				all.Set(o*100+i, j, v)
			}
		}
		s, outer := linalg.Moments(x)
		parts = append(parts, NoisyMoments{N: 100, Sum: s, Outer: outer})
	}
	pooled, _ := Pooled(parts)
	s, outer := linalg.Moments(all)
	want, _ := Pooled([]NoisyMoments{{N: 300, Sum: s, Outer: outer}})
	if !mat.EqualApprox(pooled.Cov, want.Cov, 1e-12) {
		t.Fatal("pooled covariance of parts differs from the covariance of the union")
	}
	// The paper's weighted within-owner covariance differs from the pooled
	// one only by the spread of the owners' means (small for a random split).
	paper, _ := PaperAggregate(parts)
	if !mat.EqualApprox(paper.Cov, want.Cov, 0.01) {
		t.Fatal("paper aggregation far from the pooled covariance on a random split")
	}
}

func TestStructuralZeros(t *testing.T) {
	b := RowBounds{P: 4, Groups: []int{3, 1}}
	z := b.StructuralZeros()
	// Packed: 4 sums, then (0,0) (0,1) (0,2) (0,3) (1,1) (1,2) (1,3) (2,2) (2,3) (3,3).
	want := []bool{false, false, false, false, false, true, true, false, false, true, false, false, false, false}
	for i := range want {
		if z[i] != want[i] {
			t.Fatalf("structural zeros %v, want %v", z, want)
		}
	}
}

// TestOneHotDiagonalIsFilledFromTheSums: the sound plan does not noise the
// diagonal of one-hot columns and fills it from Σx, which it equals.
func TestOneHotDiagonalIsFilledFromTheSums(t *testing.T) {
	b := RowBounds{P: 4, Groups: []int{3, 1}}
	pl, err := NewPlan(PlanOptions{Calibration: Sound, Mechanism: Laplace, Epsilon: 1, Bounds: b})
	if err != nil {
		t.Fatal(err)
	}
	// Packed: Σx (4), then rows 0..3 of the upper triangle (4+3+2+1).
	packed := make([]float64, 4+10)
	copy(packed, []float64{7, 8, 9, 10})
	pl.FillDerived(packed)
	for c, at := range map[int]int{0: 4, 1: 8, 2: 11} {
		if pl.Noised[at] || packed[at] != packed[c] {
			t.Errorf("one-hot diagonal %d: noised %v, value %v, want Σx %v", c, pl.Noised[at], packed[at], packed[c])
		}
	}
	if !pl.Noised[13] || packed[13] != 0 {
		t.Errorf("the scalar column's diagonal must stay released: noised %v value %v", pl.Noised[13], packed[13])
	}
}
