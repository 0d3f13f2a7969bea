package roles

import (
	"context"
	"math"
	"math/big"
	"testing"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/randx"
)

func checkOnGrid(t *testing.T, what string, vals []float64, noise measurement.Noise) {
	t.Helper()
	g, err := NoiseGrid(noise, len(vals))
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vals {
		if v/g != math.Trunc(v/g) {
			t.Fatalf("%s: value %d = %v is not a multiple of the grid %v", what, i, v, g)
		}
	}
}

// Every value the coordinator receives lies on the release's public grid:
// joint marginals and scores in both suites and noise modes, with both
// mechanisms, and a party's local marginal (the coordinator also refuses
// anything else).
func TestReleasesLieOnThePublicGrid(t *testing.T) {
	ctx := context.Background()
	forEachSetup(t, 60, 1e9, 5, func(t *testing.T, f *fixture) {
		for _, mech := range []measurement.Mechanism{measurement.Laplace, measurement.Gaussian} {
			name := string(f.session.Suite) + "/" + string(f.session.Noise) + "/" + string(mech)
			for _, attrs := range [][]int{{0, 3}, {1, 2, 5}, {0, 1}} {
				r := f.release(t, attrs, mech, measurement.CountL1, measurement.CountL2, 0.5)
				got, err := f.m.Marginal(ctx, attrs, r)
				if err != nil {
					t.Fatal(err)
				}
				checkOnGrid(t, name, got, r.Noise)
			}
			q := measurement.ScoreQuery{Kind: measurement.IInDif, A: 0, B: 3, N: 60,
				RefA: []float64{20.3, 19.1, 21.7}, RefB: []float64{14, 16.5, 15.25, 13.9, 0.35}}
			r := f.release(t, []int{0, 3}, mech, measurement.IInDifSensitivity, measurement.IInDifSensitivity, 0.5)
			s, err := f.m.Score(ctx, q, r)
			if err != nil {
				t.Fatal(err)
			}
			checkOnGrid(t, name+" score", []float64{s}, r.Noise)
		}
	})
}

// The coordinator refuses released values off the grid.
func TestCoordinatorRefusesOffGridValues(t *testing.T) {
	noise, _ := measurement.Calibrate(measurement.Gaussian, measurement.CountL1, measurement.CountL2, 1)
	g, _ := NoiseGrid(noise, 2)
	if err := onGrid([]float64{3 * g, -g}, g); err != nil {
		t.Fatal(err)
	}
	if err := onGrid([]float64{3 * g, g / 2}, g); err == nil {
		t.Fatal("a value off the grid was accepted")
	}
}

// A count is carried exactly as c/G and the shares as integers: the ring
// holds c/G + ΣK exactly, which decodes to G·(c/G + ΣK). A score's
// statistic x (finer than the grid) decodes to ⌊(x + U)/step⌋ + ΣK grid
// steps: for every dither U, statistics that differ below the grid step
// decode to the same value unless U falls in a window of their
// difference (the stochastic rounding), and the decoded value is always
// within one step of x/G.
func TestEncodingIsExactOnTheGrid(t *testing.T) {
	s := Session{Parties: 2, Records: 100, Sizes: []int{3, 4}, Owners: []int{0, 1}}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	noise, _ := measurement.Calibrate(measurement.Laplace, measurement.CountL1, measurement.CountL2, 0.5)
	pl, err := s.plan(&Request{Kind: KindMarginal, Attrs: []int{0, 1}, Release: measurement.Release{Purpose: "t", Parties: []int{0, 1}, Noise: noise}})
	if err != nil {
		t.Fatal(err)
	}
	e := pl.enc
	if math.Ldexp(1, -int(e.countShift)) != e.plan.Grid {
		t.Fatalf("count multiplier 2^%d for grid %v", e.countShift, e.plan.Grid)
	}
	nz := dp.NewNoiser(randx.NewSeeded(1))
	sp, _ := s.shareSpec(noise, pl.values, len(pl.contributors))
	for c := int64(0); c < 50; c += 7 {
		k := sp.draw(nz, 1)
		words, err := e.noiseWords(k, KindMarginal, len(pl.contributors))
		if err != nil {
			t.Fatal(err)
		}
		ring := uint64(c)<<e.countShift + words[0]
		if got, want := e.decode(big.NewInt(int64(ring)), KindMarginal), (float64(c)/e.plan.Grid+float64(k[0]))*e.plan.Grid; got != want {
			t.Fatalf("count %d with share %d decodes to %v, want %v", c, k[0], got, want)
		}
	}

	snoise, _ := measurement.Calibrate(measurement.Gaussian, measurement.IInDifSensitivity, measurement.IInDifSensitivity, 0.5)
	spl, err := s.plan(&Request{Kind: KindScore, Attrs: []int{0, 1}, RefA: []float64{30, 30, 40}, RefB: []float64{25, 25, 25, 25},
		Release: measurement.Release{Purpose: "t", Parties: []int{0, 1}, Noise: snoise}})
	if err != nil {
		t.Fatal(err)
	}
	se := spl.enc
	step := se.step.Int64()
	if step <= 1 {
		t.Fatalf("score step %d", step)
	}
	src := randx.NewSeeded(2)
	x := 37*step + step/3 // a statistic one third of a step past a grid point
	differ := 0
	for range 2000 {
		u := se.dither(src).Int64()
		a := se.decode(big.NewInt(x+u), KindScore) / se.plan.Grid
		b := se.decode(big.NewInt(x+1+u), KindScore) / se.plan.Grid // one ring unit more
		if a != 37 && a != 38 {
			t.Fatalf("statistic 37⅓ steps rounds to %v", a)
		}
		if a != b {
			differ++
		}
	}
	// A one-unit change flips the rounding only when U lands in a window of
	// one unit out of step: expected 2000/step ≪ 1.
	if differ > 2 {
		t.Fatalf("a change of one ring unit (of %d per grid step) changed %d of 2000 releases", step, differ)
	}
}

// A change of the score's statistic below the grid step leaves the
// released score unchanged under the same seed (commodity suite: one
// reference moves by 2^-f, which moves the fixed-point statistic Σ|t| by
// at most 60 units of 1/(n·2^f), far below a grid step of 2^12·n units;
// the stochastic rounding flips with probability below 2^-12), while a
// change of many steps shows.
func TestScoreIgnoresSubGridChanges(t *testing.T) {
	ctx := context.Background()
	frac := (&Session{Records: 60}).signFrac()
	run := func(delta float64) (released float64, stat int64) {
		f := newFixture(t, SuiteCommodity, NoiseInsiderSafe, 60, 1e9, 8)
		refA := []float64{20, 19, 21}
		refB := []float64{14, 16, 15, 13, 2}
		refB[4] += delta // moves Σ|t| by ±20 ± 19 ± 21 ≠ 0 units
		q := measurement.ScoreQuery{Kind: measurement.IInDif, A: 0, B: 3, N: 60, RefA: refA, RefB: refB}
		r := f.release(t, []int{0, 3}, measurement.Laplace, measurement.IInDifSensitivity, measurement.IInDifSensitivity, 0.5)
		s, err := f.m.Score(ctx, q, r)
		if err != nil {
			t.Fatal(err)
		}
		// The statistic as the protocol computes it: Σ|Â − n·2^f·N|.
		ab, _ := domain.Count(f.data, []int{0, 3})
		for c, nc := range ab.Counts {
			a, _ := fixedWord(refA[c/len(refB)]*refB[c%len(refB)], frac)
			t := int64(a) - int64(60*nc)<<frac
			stat += max(t, -t)
		}
		return s, stat
	}
	base, x0 := run(0)
	moved, x1 := run(math.Ldexp(1, -frac))
	if x0 == x1 {
		t.Fatal("the sub-grid change left the statistic unchanged: the test is vacuous")
	}
	g, _ := NoiseGrid(measurement.Noise{Mechanism: measurement.Laplace, Sensitivity: 2, Scale: 2, Rho: 0.5}, 1)
	if d := math.Abs(float64(x1-x0)) / math.Ldexp(60, frac); d >= g/1000 {
		t.Fatalf("the statistic moved by %v, not far below the grid %v", d, g)
	}
	if base != moved {
		t.Fatalf("a sub-grid change of the statistic changed the released score: %v → %v", base, moved)
	}
	above, x2 := run(3)
	if d := math.Abs(float64(x2-x0)) / math.Ldexp(60, frac); d < 10*g {
		t.Fatalf("the statistic moved by only %v", d)
	}
	if above == base {
		t.Fatalf("a change of the statistic by many grid steps left the released score at %v", base)
	}
}
