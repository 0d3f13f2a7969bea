package roles

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/protocol"
)

// A hostile coordinator's score requests, built from the real request
// type: references no honest engine sends (its NormSub keeps them
// non-negative and summing to n) are refused by every party before it
// charges anything. The old code charged the release first, then (one
// party's pair) panicked on the non-finite score 1e200·1e200 or (a joint
// pair) failed in the fixed point, the charge recorded either way; it
// accepted references of a sum far beyond n.
func TestHostileScoreReferencesAreRefusedBeforeAnyCharge(t *testing.T) {
	huge := func(k int) []float64 {
		out := make([]float64, k)
		for i := range out {
			out[i] = 1e200
		}
		return out
	}
	flat := func(k int, v float64) []float64 {
		out := make([]float64, k)
		for i := range out {
			out[i] = v
		}
		return out
	}
	const n = 60
	for _, tc := range []struct {
		name       string
		a, b       int // the pair: 0 and 1 are party 1's, 3 is party 2's
		refA, refB []float64
		want       string
	}{
		{"one party's pair, overflowing product", 0, 1, huge(3), huge(4), "outside ±2n"},
		{"joint pair, overflowing product", 0, 3, huge(3), huge(5), "outside ±2n"},
		{"joint pair, NaN", 0, 3, []float64{math.NaN(), 20, 20}, flat(5, 12), "outside ±2n"},
		{"joint pair, references 1e15", 0, 3, flat(3, 1e15), flat(5, 1e15), "outside ±2n"},
		{"joint pair, references summing to 5n", 0, 3, flat(3, 100), flat(5, 60), "beyond (2n)²"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, SuiteCommodity, NoiseInsiderSafe, n, 10, 3)
			q := measurement.ScoreQuery{Kind: measurement.IInDif, A: tc.a, B: tc.b, N: n, RefA: tc.refA, RefB: tc.refB}
			r := f.release(t, []int{tc.a, tc.b}, measurement.Gaussian, measurement.IInDifSensitivity, measurement.IInDifSensitivity, 0.5)
			_, err := f.m.Score(context.Background(), q, r)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got error %v, want a refusal saying %q", err, tc.want)
			}
			for k, a := range f.accts {
				if c := a.Charges(); len(c) != 0 {
					t.Errorf("party %d was charged %d times for a refused request", k+1, len(c))
				}
			}
		})
	}
	t.Run("honest references still measure", func(t *testing.T) {
		f := newFixture(t, SuiteCommodity, NoiseInsiderSafe, n, 10, 3)
		q := measurement.ScoreQuery{Kind: measurement.IInDif, A: 0, B: 3, N: n, RefA: []float64{20.5, 19.5, 20}, RefB: []float64{14, 16, 15, 13, 2}}
		r := f.release(t, []int{0, 3}, measurement.Gaussian, measurement.IInDifSensitivity, measurement.IInDifSensitivity, 0.5)
		if _, err := f.m.Score(context.Background(), q, r); err != nil {
			t.Fatal(err)
		}
		if c := f.accts[0].Charges(); len(c) != 1 {
			t.Fatalf("party 1 holds %d charges, want 1", len(c))
		}
	})
}

// A second setup request would replace a party's pair and mask seeds
// under requests already answered; a party refuses it (the old code
// opened a second setup job).
func TestSecondSetupIsRefused(t *testing.T) {
	f := newFixture(t, SuiteCommodity, NoiseInsiderSafe, 40, 10, 5)
	e, err := protocol.Seal("", CoordinatorID, PartyID(0), &Request{ID: 99, Kind: KindSetup})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.parties[0].Handle(e); err == nil || !strings.Contains(err.Error(), "setup requested again") {
		t.Fatalf("got %v, want the second setup refused", err)
	}
}
