package roles

import (
	"bytes"
	"context"
	"math"
	"testing"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/method/ppcadpmh/ppca"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// gridData is rows of multiples of 1/16 (so every moment is on any grid
// finer than 2^-8), with entry (0, 0) moved by tweak.
func gridData(rows, p int, seed uint64, tweak float64) *mat.Dense {
	src := randx.NewSeeded(seed)
	X := mat.NewDense(rows, p, nil)
	for i := range X.RawMatrix().Data {
		X.RawMatrix().Data[i] = float64(1+src.Uint64N(14)) / 16
	}
	X.Set(0, 0, X.At(0, 0)+tweak)
	return X
}

// run runs a full session and returns what the curator received.
func run(t *testing.T, pr Params, tweak float64) (*Curator, []protocol.Envelope) {
	t.Helper()
	cur, err := NewCurator(pr)
	if err != nil {
		t.Fatal(err)
	}
	rec := &protocol.Recorder{Role: cur}
	roles := []protocol.Role{rec}
	src := randx.NewSeeded(11)
	for i, id := range pr.Owners {
		budget := dp.Pure(1)
		if pr.Plan.Mechanism == ppca.Gaussian {
			budget = dp.Approx(1, 1e-6)
		}
		a, _ := privacy.NewAccountant(privacy.AccountantOptions{Party: id, Budget: budget})
		tw := 0.0
		if i == 0 {
			tw = tweak
		}
		o, err := NewOwner(OwnerOptions{ID: id, Params: pr, Data: gridData(30, pr.Plan.Bounds.P, uint64(i+1), tw), Accountant: a, Source: src.Child()})
		if err != nil {
			t.Fatal(err)
		}
		roles = append(roles, o)
	}
	if _, err := protocol.RunLocal(context.Background(), roles...); err != nil {
		t.Fatal(err)
	}
	return cur, rec.Received
}

// The curator receives only values on the plan's public grids: local
// statistics are integer multiples of their block's grid step, and the
// secure aggregate decodes to integer multiples too. An owner's input
// moved below the grid step (2^-40 on one entry, grids ≈ 2^-20) leaves
// every message the curator receives byte for byte unchanged under the
// same seed: nothing below the grid reaches it.
func TestCuratorSeesOnlyGridValues(t *testing.T) {
	const p = 4
	for _, mode := range []NoiseMode{Local, SecureAggregate} {
		for _, mech := range []ppca.Mechanism{ppca.Laplace, ppca.Gaussian} {
			pr := params(3, p, mode, mech)
			plan, err := ppca.NewPlan(pr.Plan)
			if err != nil {
				t.Fatal(err)
			}
			if g := plan.SumNoise.Grid; g != math.Ldexp(1, -20) || plan.OuterNoise.Grid > math.Ldexp(1, -19) {
				t.Fatalf("grids %v, %v", g, plan.OuterNoise.Grid)
			}
			cur, got := run(t, pr, 0)
			var stats []Statistics
			for _, e := range got {
				if e.Type == TypeStatistics {
					var s Statistics
					if err := s.UnmarshalBinary(e.Payload); err != nil {
						t.Fatal(err)
					}
					stats = append(stats, s)
				}
			}
			if len(stats) != 3 {
				t.Fatalf("%s %s: %d statistics", mode, mech, len(stats))
			}
			check := func(vals []float64) {
				for i, v := range vals {
					g := plan.BlockNoise(i, p).Grid
					if v/g != math.Trunc(v/g) {
						t.Fatalf("%s %s: entry %d = %v is not a multiple of %v", mode, mech, i, v, g)
					}
				}
			}
			if mode == Local {
				for _, s := range stats {
					check(s.Packed)
				}
			} else {
				agg, err := Aggregate(pr, stats)
				if err != nil {
					t.Fatal(err)
				}
				check(agg)
				if cur.est == nil {
					t.Fatal("no estimate")
				}
			}
			_, moved := run(t, pr, math.Ldexp(1, -40))
			if len(moved) != len(got) {
				t.Fatalf("%s %s: %d messages, then %d", mode, mech, len(got), len(moved))
			}
			for i := range got {
				if got[i].Type != moved[i].Type || !bytes.Equal(got[i].Payload, moved[i].Payload) {
					t.Fatalf("%s %s: message %d (%s from %s) differs after a sub-grid change", mode, mech, i, got[i].Type, got[i].From)
				}
			}
			// A change above the grid does show.
			_, above := run(t, pr, 1.0/16)
			same := true
			for i := range got {
				same = same && bytes.Equal(got[i].Payload, above[i].Payload)
			}
			if same {
				t.Fatalf("%s %s: a change of 1/16 left every message unchanged", mode, mech)
			}
		}
	}
}

// Secure aggregation refuses owners whose statistics could overflow the
// fixed-point words.
func TestSecureAggregateRefusesOutOfRange(t *testing.T) {
	pr := params(2, 2, SecureAggregate, ppca.Laplace)
	plan, _ := ppca.NewPlan(pr.Plan)
	if err := checkFixedRange(plan, 1000, 2); err != nil {
		t.Fatal(err)
	}
	if err := checkFixedRange(plan, 1<<41, 2); err == nil {
		t.Fatal("2^41 rows at grid 2^-20 accepted")
	}
}
