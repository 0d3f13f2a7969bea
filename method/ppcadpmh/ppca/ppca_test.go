package ppca

import (
	"fmt"
	"math"
	"slices"
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
	// Adult's PPCA encoding, as RowBoundsOf gives it (106 columns: 7
	// scalars and 8 one-hot groups).
	adult := RowBounds{P: 106, Groups: []int{1, 8, 1, 16, 1, 7, 14, 6, 5, 2, 1, 1, 1, 41, 1}}
	for _, tc := range []struct {
		name   string
		bounds RowBounds
		eps    float64
		// Scale 2p/ε on both sums; the true sensitivities: Σx and the
		// released upper triangle (every diagonal entry).
		scale, sumL1, outerL1 float64
	}{
		// Rows in [0,1]^20: Σx moves by p = 20 as claimed, the triangle
		// by p(p+1)/2 = 210: ε = 1 + 10.5 (vs 2 claimed).
		{"generic p = 20", GenericBounds(20), 2, 20, 20, 210},
		// Adult's groups: Σx by 7 + 2·8 = 23, the triangle by at most
		// 72 + 112 + 28 = 212: ε = 235/212 = 1.108 (vs 1 claimed; 27.25
		// by the generic bound).
		{"adult groups", adult, 1, 212, 23, 212},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl, err := NewPlan(PlanOptions{Calibration: Paper, Mechanism: Laplace, Epsilon: tc.eps, Bounds: tc.bounds})
			if err != nil {
				t.Fatal(err)
			}
			want := (tc.sumL1 + tc.outerL1) / tc.scale
			// The grid's rounding changes the figure by a relative 2^-20
			// or so (dim·g on the sensitivity, a little more noise).
			got := pl.Actual().Epsilon
			if pl.SumScale != tc.scale || pl.Claimed().Epsilon != tc.eps || math.Abs(got-want) > 1e-4*want {
				t.Fatalf("scale %v claimed %v actual %v, want scale %v, claimed ε=%v, actual ε=%v", pl.SumScale, pl.Claimed(), pl.Actual(), tc.scale, tc.eps, want)
			}
		})
	}
	if _, err := NewPlan(PlanOptions{Calibration: Paper, Mechanism: Gaussian, Epsilon: 1, Delta: 1e-5, Bounds: GenericBounds(3)}); err == nil {
		t.Fatal("paper calibration with Gaussian accepted")
	}
}

// PaperOuterL1 bounds every move of the released triangle: over all pairs
// of rows with scalars on a grid of [0,1] (where interior values can move
// the triangle more than 0/1 ones), and it is within the gap it states of
// the moves seen (h(h+1) + 2hs is attained).
func TestPaperOuterL1BoundsEveryPair(t *testing.T) {
	grid := []float64{0, 0.25, 0.5, 0.75, 1}
	for _, b := range []RowBounds{
		{P: 3, Groups: []int{1, 2}},
		{P: 6, Groups: []int{1, 2, 3}},
		{P: 7, Groups: []int{1, 1, 2, 3}},
		{P: 4, Groups: []int{2, 2}},
		GenericBounds(3),
	} {
		t.Run(fmt.Sprint(b.Groups), func(t *testing.T) {
			rows := gridRows(b, grid)
			most := 0.0
			for _, x := range rows {
				for _, y := range rows {
					ux, uy := upperTriangle(x), upperTriangle(y)
					l1 := 0.0
					for k := range ux {
						l1 += math.Abs(ux[k] - uy[k])
					}
					most = math.Max(most, l1)
				}
			}
			h, s := b.groupKinds()
			bound := b.PaperOuterL1()
			if most > bound+1e-12 || most < math.Min(h*(h+1)+2*h*s, bound)-1e-12 {
				t.Fatalf("largest move %v, bound %v: want it within [h(h+1) + 2hs, bound]", most, bound)
			}
		})
	}
}

// gridRows lists every row of b's groups with its scalars on grid.
func gridRows(b RowBounds, grid []float64) [][]float64 {
	rows := [][]float64{nil}
	for _, g := range b.Groups {
		var next [][]float64
		for _, r := range rows {
			if g == 1 {
				for _, v := range grid {
					next = append(next, append(slices.Clone(r), v))
				}
				continue
			}
			for c := 0; c < g; c++ {
				block := make([]float64, g)
				block[c] = 1
				next = append(next, append(slices.Clone(r), block...))
			}
		}
		rows = next
	}
	return rows
}

// upperTriangle is x_i·x_j for i ≤ j, row by row.
func upperTriangle(x []float64) []float64 {
	var u []float64
	for i := range x {
		for j := i; j < len(x); j++ {
			u = append(u, x[i]*x[j])
		}
	}
	return u
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
