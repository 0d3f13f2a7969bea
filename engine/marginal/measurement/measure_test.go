package measurement

import (
	"context"
	"math"
	"testing"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/internal/domaintest"
	"github.com/dppub/dppub/internal/testenv"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

func TestCalibrate(t *testing.T) {
	// ρ = 0.5: Laplace at ε = 1, b = Δ₁/ε = 2; Gaussian σ = √2/√1.
	l, err := Calibrate(Laplace, CountL1, CountL2, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(l.Scale-2) > 1e-12 || math.Abs(l.Epsilon()-1) > 1e-12 || math.Abs(l.Variance()-8) > 1e-9 {
		t.Errorf("laplace: %+v, ε %v, variance %v", l, l.Epsilon(), l.Variance())
	}
	g, err := Calibrate(Gaussian, CountL1, CountL2, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(g.Scale-math.Sqrt2) > 1e-12 || math.Abs(g.Variance()-2) > 1e-12 {
		t.Errorf("gaussian: %+v", g)
	}
	// Both cost exactly ρ in a zCDP accountant (Laplace as ε²/2).
	for _, n := range []Noise{l, g} {
		a := domaintest.Accountant(t, "p", 0.5)
		if err := a.Spend(privacy.Charge{Purpose: "x", Spec: n.Spec()}); err != nil {
			t.Fatalf("%s: %v", n.Mechanism, err)
		}
		if math.Abs(a.Spent().Rho-0.5) > 1e-12 {
			t.Errorf("%s costs ρ = %v, want 0.5", n.Mechanism, a.Spent().Rho)
		}
	}
	for _, bad := range []float64{0, -1, math.Inf(1), math.NaN()} {
		if _, err := Calibrate(Gaussian, 2, 1, bad); err == nil {
			t.Errorf("rho %v: no error", bad)
		}
	}
	if _, err := Calibrate("uniform", 2, 1, 1); err == nil {
		t.Error("unknown mechanism: no error")
	}
}

// The paper's IInDif and PrivSyn's InDif on a hand-computed table.
func TestExactScores(t *testing.T) {
	// 12 records over 3×3: (0,0)×6, (0,1)×2, (1,0)×3, (2,2)×1.
	ds := pairDataset([][2]int{{0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 1}, {0, 1}, {1, 0}, {1, 0}, {1, 0}, {2, 2}})
	// InDif = Σ|N_ij − N_i M_j/12| with N_a = (8,3,1), M_b = (9,2,1):
	// 0 + 2/3 + 2/3 + 3/4 + 1/2 + 1/4 + 3/4 + 1/6 + 11/12 = 14/3.
	got, err := ExactScore(ds, ScoreQuery{Kind: InDif, A: 0, B: 1})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got-14.0/3) > 1e-12 {
		t.Errorf("InDif = %v, want 14/3", got)
	}
	// IInDif against uniform references (4,4,4): every expected cell is
	// 4·4/12 = 4/3; Σ|4/3 − N_ij| = (6−4/3)+(2−4/3)+(3−4/3)+(1−4/3)·(−1)
	// + 5 empty cells · 4/3 = 14/3+2/3+5/3+1/3+20/3 = 14.
	ref := []float64{4, 4, 4}
	got, err = ExactScore(ds, ScoreQuery{Kind: IInDif, A: 0, B: 1, RefA: ref, RefB: ref, N: 12})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got-14) > 1e-12 {
		t.Errorf("IInDif = %v, want 14", got)
	}
	if _, err := ExactScore(ds, ScoreQuery{Kind: IInDif, A: 0, B: 1, RefA: ref[:2], RefB: ref, N: 12}); err == nil {
		t.Error("IInDif with a short reference: no error")
	}
	if _, err := ExactScore(ds, ScoreQuery{Kind: InDif, A: 1, B: 0}); err == nil {
		t.Error("pair out of order: no error")
	}
}

func pairDataset(recs [][2]int) *domain.Dataset {
	ds := domain.NewDataset([]int{3, 3}, len(recs))
	for i, r := range recs {
		ds.Cols[0][i], ds.Cols[1][i] = uint16(r[0]), uint16(r[1])
	}
	return ds
}

// PrivSyn's sensitivity 4 for InDif does not hold under replace-one: these
// neighbours (record 0 replaced) have InDif 0 and 14/3. Our bound 6 holds.
func TestInDifSensitivityExceedsFour(t *testing.T) {
	recs := [][2]int{{1, 1}, {0, 0}, {0, 1}, {0, 0}, {0, 0}, {1, 0}, {0, 0}, {0, 1}, {0, 0}, {1, 0}, {0, 0}, {1, 0}}
	a, _ := ExactScore(pairDataset(recs), ScoreQuery{Kind: InDif, A: 0, B: 1})
	recs[0] = [2]int{2, 2}
	b, _ := ExactScore(pairDataset(recs), ScoreQuery{Kind: InDif, A: 0, B: 1})
	if d := math.Abs(a - b); d <= 4 || d > InDifSensitivity {
		t.Errorf("|InDif(D) − InDif(D')| = %v (%v vs %v), want in (4, 6]", d, a, b)
	}
}

// Random replace-one neighbours never move IInDif by more than 2 nor InDif
// by more than 6.
func TestScoreSensitivities(t *testing.T) {
	src := randx.NewSeeded(3)
	ref := []float64{5, 1, 0.5, 3.5}
	for trial := range 2000 {
		n := 2 + src.IntN(30)
		ds := domain.NewDataset([]int{4, 3}, n)
		skew := src.IntN(2) == 0
		for i := range n {
			ds.Cols[0][i], ds.Cols[1][i] = uint16(src.IntN(4)), uint16(src.IntN(3))
			if skew && src.IntN(2) == 0 {
				ds.Cols[0][i], ds.Cols[1][i] = 0, 0
			}
		}
		q := ScoreQuery{Kind: IInDif, A: 0, B: 1, RefA: ref, RefB: ref[:3], N: n}
		i1, _ := ExactScore(ds, q)
		d1, _ := ExactScore(ds, ScoreQuery{Kind: InDif, A: 0, B: 1})
		r := src.IntN(n)
		ds.Cols[0][r], ds.Cols[1][r] = uint16(src.IntN(4)), uint16(src.IntN(3))
		i2, _ := ExactScore(ds, q)
		d2, _ := ExactScore(ds, ScoreQuery{Kind: InDif, A: 0, B: 1})
		if math.Abs(i1-i2) > IInDifSensitivity+1e-9 || math.Abs(d1-d2) > InDifSensitivity+1e-9 {
			t.Fatalf("trial %d: IInDif moved %v, InDif %v", trial, math.Abs(i1-i2), math.Abs(d1-d2))
		}
	}
}

// The local measurer charges every party named before releasing, refuses
// (charging nobody) when one party cannot afford it, and its Gaussian noise
// has the calibrated variance.
func TestLocalMeasurerChargesAndNoise(t *testing.T) {
	ds := domaintest.RandomDataset([]int{4, 5}, 500, 0.5, randx.NewSeeded(4))
	a, b := domaintest.Accountant(t, "a", 1), domaintest.Accountant(t, "b", 0.1)
	m, err := NewLocalMeasurer(LocalOptions{Data: ds, Accountants: []*privacy.Accountant{a, b}, Source: randx.NewSeeded(5)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	noise, _ := Calibrate(Gaussian, CountL1, CountL2, 0.05)
	exact, _ := domain.Count(ds, []int{0, 1})
	// 40 releases of 20 cells: 800 draws of N(0, 20). The sample variance
	// of 800 normal draws has relative s.d. √(2/799) ≈ 0.05; a ±20% band
	// is 4 s.d., false rejection < 1e-4.
	ss, k := 0.0, 0
	// release makes n releases of the pair charged to parties and adds
	// up their squared errors.
	release := func(n int, parties []int) {
		for range n {
			got, err := m.Marginal(ctx, []int{0, 1}, Release{Purpose: "pair", Parties: parties, Noise: noise})
			if err != nil {
				t.Fatal(err)
			}
			for c := range got {
				d := got[c] - exact.Counts[c]
				ss += d * d
				k++
			}
		}
	}
	release(2, []int{0, 1})
	if math.Abs(a.Spent().Rho-0.1) > 1e-12 || math.Abs(b.Spent().Rho-0.1) > 1e-12 {
		t.Fatalf("spent %v and %v, want 0.1 each", a.Spent(), b.Spent())
	}
	// b is exhausted: a further release charged to both must fail and
	// charge neither.
	if _, err := m.Marginal(ctx, []int{0}, Release{Purpose: "more", Parties: []int{0, 1}, Noise: noise}); err == nil {
		t.Fatal("overspending release succeeded")
	}
	if math.Abs(a.Spent().Rho-0.1) > 1e-12 {
		t.Errorf("refused release still charged a: %v", a.Spent())
	}
	// Party a alone can pay for 18 more: use them to test the variance.
	release(18, []int{0})
	if v := ss / float64(k); math.Abs(v/noise.Variance()-1) > 0.2 {
		t.Errorf("noise variance %v over %d draws, want %v ± 20%%", v, k, noise.Variance())
	}
	if _, err := m.Marginal(ctx, []int{0}, Release{Purpose: "nobody", Noise: noise}); err == nil {
		t.Error("release charging no party: no error")
	}
	if _, err := m.Marginal(ctx, []int{0}, Release{Purpose: "stranger", Parties: []int{2}, Noise: noise}); err == nil {
		t.Error("release charging an unknown party: no error")
	}
}

func TestNewLocalMeasurerErrors(t *testing.T) {
	ds := domaintest.RandomDataset([]int{2}, 10, 0, randx.NewSeeded(1))
	pure, _ := privacy.NewAccountant(privacy.AccountantOptions{Party: "p", Budget: dp.Pure(1)})
	for name, o := range map[string]LocalOptions{
		"no data":         {Accountants: []*privacy.Accountant{domaintest.Accountant(t, "p", 1)}},
		"no accountants":  {Data: ds},
		"nil accountant":  {Data: ds, Accountants: []*privacy.Accountant{nil}},
		"pure-dp account": {Data: ds, Accountants: []*privacy.Accountant{pure}},
	} {
		if _, err := NewLocalMeasurer(o); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// parseSelectMechanism accepts the two names and quotes anything else.
func TestParseSelectMechanism(t *testing.T) {
	testenv.CheckWords(t, parseSelectMechanism, []SelectMechanism{SelectExponential, SelectPermuteAndFlip}, "gumbel", "")
}
