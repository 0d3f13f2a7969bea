package roles

import (
	"context"
	"math"
	"testing"

	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/measurement"
)

// TestCountsMatchPlaintext measures marginals over one, two and three
// parties, with single attributes and composites on either side, at a
// budget so large that the noise is below 1e-3, and compares them with
// the exact counts, for both suites and both noise modes.
func TestCountsMatchPlaintext(t *testing.T) {
	sets := [][]int{{0, 1}, {0, 2}, {1, 3}, {0, 1, 3}, {2, 3, 5}, {0, 3, 5}, {1, 4, 6}, {0, 1, 2, 3, 5}, {4, 5, 6}}
	forEachSetup(t, 200, 1e30, 11, func(t *testing.T, f *fixture) {
		for _, attrs := range sets {
			for _, mech := range []measurement.Mechanism{measurement.Gaussian, measurement.Laplace} {
				if f.session.Noise == NoiseExact && mech == measurement.Laplace && len(attrs) > 3 {
					continue // DLPA per cell is slow at this size; covered by the smaller sets
				}
				r := f.release(t, attrs, mech, measurement.CountL1, measurement.CountL2, 1e16)
				got, err := f.m.Marginal(context.Background(), attrs, r)
				if err != nil {
					t.Fatalf("%v %s: %v", attrs, mech, err)
				}
				want, err := domain.Count(f.data, attrs)
				if err != nil {
					t.Fatal(err)
				}
				for c := range want.Counts {
					if math.Abs(got[c]-want.Counts[c]) > 1e-3 {
						t.Fatalf("%v %s: cell %d = %v, want %v", attrs, mech, c, got[c], want.Counts[c])
					}
				}
			}
		}
	})
}

// TestScoresMatchPlaintext checks Algorithm 1 (and the local path) against
// the exact IInDif score with noise below 1e-3.
func TestScoresMatchPlaintext(t *testing.T) {
	forEachSetup(t, 200, 1e30, 12, func(t *testing.T, f *fixture) {
		n := f.session.Records
		for _, pair := range [][2]int{{0, 1}, {0, 2}, {1, 6}, {3, 5}, {2, 4}} {
			a, b := pair[0], pair[1]
			ref := func(j int) []float64 {
				m, _ := domain.Count(f.data, []int{j})
				out := make([]float64, len(m.Counts))
				for i, c := range m.Counts {
					out[i] = c + 0.37*float64(i%3) - 0.2 // noisy-looking, non-integer references
				}
				return out
			}
			q := measurement.ScoreQuery{Kind: measurement.IInDif, A: a, B: b, RefA: ref(a), RefB: ref(b), N: n}
			for _, mech := range []measurement.Mechanism{measurement.Gaussian, measurement.Laplace} {
				r := f.release(t, []int{a, b}, mech, measurement.IInDifSensitivity, measurement.IInDifSensitivity, 1e16)
				got, err := f.m.Score(context.Background(), q, r)
				if err != nil {
					t.Fatalf("%v %s: %v", pair, mech, err)
				}
				want, err := measurement.ExactScore(f.data, q)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(got-want) > 1e-3 {
					t.Fatalf("%v %s: score %v, want %v", pair, mech, got, want)
				}
			}
		}
	})
}
