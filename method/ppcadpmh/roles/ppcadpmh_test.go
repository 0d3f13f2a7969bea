package roles

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/method/ppcadpmh/ppca"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

func params(m, p int, noise NoiseMode, mech ppca.Mechanism) Params {
	owners := make([]string, m)
	for i := range owners {
		owners[i] = "owner-" + string(rune('a'+i))
	}
	return Params{Session: "s", Owners: owners, Curator: "curator", Noise: noise,
		Plan: ppca.PlanOptions{Calibration: ppca.Sound, Mechanism: mech, Epsilon: 1, Delta: 1e-6, Bounds: ppca.GenericBounds(p)},
		Fit:  ppca.FitOptions{K: 1}}
}

func newOwners(t *testing.T, pr Params, rows int, seed uint64) ([]*Owner, []*privacy.Accountant) {
	t.Helper()
	src := randx.NewSeeded(seed)
	var owners []*Owner
	var accts []*privacy.Accountant
	for _, id := range pr.Owners {
		X := mat.NewDense(rows, pr.Plan.Bounds.P, nil)
		for i := range X.RawMatrix().Data {
			X.RawMatrix().Data[i] = src.Float64()
		}
		o, a := newOwner(t, pr, id, X, src)
		owners = append(owners, o)
		accts = append(accts, a)
	}
	return owners, accts
}

// newOwner is owner id of pr holding X, with an accountant of ε = 1 (and
// δ = 1e-6 under the Gaussian mechanism) and a child of src for its
// randomness.
func newOwner(t *testing.T, pr Params, id string, X *mat.Dense, src *randx.Source) (*Owner, *privacy.Accountant) {
	t.Helper()
	budget := dp.Pure(1)
	if pr.Plan.Mechanism == ppca.Gaussian {
		budget = dp.Approx(1, 1e-6)
	}
	a, _ := privacy.NewAccountant(privacy.AccountantOptions{Party: id, Budget: budget})
	o, err := NewOwner(OwnerOptions{ID: id, Params: pr, Data: X, Accountant: a, Source: src.Child()})
	if err != nil {
		t.Fatal(err)
	}
	return o, a
}

// runSession runs the curator (or a role wrapping it) and the owners in
// one process.
func runSession(cur protocol.Role, owners []*Owner) error {
	roles := []protocol.Role{cur}
	for _, o := range owners {
		roles = append(roles, o)
	}
	_, err := protocol.RunLocal(context.Background(), roles...)
	return err
}

// publish runs a whole session of pr's owners, each holding rows random
// rows drawn from seed (newOwners), and returns the curator, its result
// and the owners' accountants.
func publish(t *testing.T, pr Params, rows int, seed uint64) (*Curator, *Result, []*privacy.Accountant) {
	t.Helper()
	owners, accts := newOwners(t, pr, rows, seed)
	cur, err := NewCurator(pr)
	if err != nil {
		t.Fatal(err)
	}
	if err := runSession(cur, owners); err != nil {
		t.Fatal(err)
	}
	res, err := cur.Result()
	if err != nil {
		t.Fatal(err)
	}
	return cur, res, accts
}

func TestMasksCancelExactly(t *testing.T) {
	pr := params(4, 3, SecureAggregate, ppca.Gaussian)
	owners, _ := newOwners(t, pr, 5, 1)
	// Hand out seeds as the protocol would.
	for _, o := range owners {
		out, err := o.Start()
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range out {
			if e.Type != TypeMaskSeed {
				continue
			}
			for _, peer := range owners {
				if peer.ID() == e.To {
					if _, err := peer.Handle(e); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
	words := []uint64{15, uint64(1) << 40, 0, 3}
	total := make([]uint64, len(words))
	for _, o := range owners {
		for i, w := range o.mask(words) {
			total[i] += w
		}
	}
	for i, w := range total {
		if w != 4*words[i] {
			t.Fatalf("entry %d: masked sum %d, want %d", i, w, 4*words[i])
		}
	}
}

// The noise the curator's aggregate carries: secure aggregation gives the
// centralised σ² for every m; local noise gives m·σ².
func TestAggregateNoiseVariance(t *testing.T) {
	const p = 6
	for _, m := range []int{2, 5, 10} {
		for _, mode := range []NoiseMode{SecureAggregate, Local} {
			for _, mech := range []ppca.Mechanism{ppca.Gaussian, ppca.Laplace} {
				pr := params(m, p, mode, mech)
				owners, _ := newOwners(t, pr, 2, uint64(m))
				plan := owners[0].plan
				var samples []float64
				for rep := 0; len(samples) < 20000; rep++ {
					agg := make([]float64, packedLen(p))
					for _, o := range owners {
						noise := make([]float64, packedLen(p))
						if mode == Local {
							o.release(noise, p)
						} else {
							words, err := o.encode(noise, p)
							if err != nil {
								t.Fatal(err)
							}
							for i, w := range words {
								noise[i] = float64(int64(w)) * plan.BlockNoise(i, p).Grid
							}
						}
						for i, v := range noise {
							agg[i] += v
						}
					}
					for i := p; i < len(agg); i++ { // the Σxxᵀ entries share one scale
						samples = append(samples, agg[i])
					}
				}
				want := plan.OuterNoise.Scale() * plan.OuterNoise.Scale()
				if r := plan.OuterNoise.Scale() / plan.OuterScale; r < 1 || r > 1+1e-3 {
					t.Errorf("m=%d %s: grid scale %v is not just above the calibrated %v", m, mech, plan.OuterNoise.Scale(), plan.OuterScale)
				}
				if mech == ppca.Laplace {
					want *= 2
				}
				if mode == Local {
					want *= float64(m)
				}
				v := 0.0
				for _, s := range samples {
					v += s * s
				}
				v /= float64(len(samples))
				// Relative sd of the variance estimate ≤ √(5/n) ≈ 1.6% (Laplace
				// kurtosis 6); 10% is beyond 6 sd: false rejection < 1e-8 each.
				if math.Abs(v/want-1) > 0.10 {
					t.Errorf("m=%d %s %s: aggregate noise variance %.4g, want %.4g", m, mode, mech, v, want)
				}
			}
		}
	}
}

func TestRunChargesBeforeReleaseAndRefusesOverspend(t *testing.T) {
	pr := params(3, 4, Local, ppca.Laplace)
	owners, accts := newOwners(t, pr, 20, 3)
	// Exhaust owner-b's budget: its statistics must never leave it.
	if err := accts[1].Spend(privacy.Charge{Purpose: "earlier release", Spec: dp.Spec{Guarantee: dp.Pure(0.9)}}); err != nil {
		t.Fatal(err)
	}
	cur, _ := NewCurator(pr)
	err := runSession(cur, owners)
	if err == nil || !strings.Contains(err.Error(), "would exceed its budget") || !strings.Contains(err.Error(), "owner-b") {
		t.Fatalf("want owner-b's overspend refused, got %v", err)
	}
	if _, ok := cur.stats["owner-b"]; ok {
		t.Fatal("the curator received statistics the accountant refused")
	}
}

func TestSecureAggregateRunEndToEndAndReplay(t *testing.T) {
	pr := params(3, 4, SecureAggregate, ppca.Gaussian)
	cur, res, accts := publish(t, pr, 50, 4)
	if r, c := res.Synthetic.Dims(); r != 150 || c != 4 {
		t.Fatalf("synthetic %d×%d, want 150×4", r, c)
	}
	for _, a := range accts {
		if a.Spent().Epsilon != 1 {
			t.Fatalf("%s spent %v, want ε=1", a.Party(), a.Spent())
		}
	}
	// A replayed statistics message after the fit is ignored.
	stat, _ := protocol.Seal("s", "owner-a", "curator", Statistics{N: 50, P: 4, Masked: make([]uint64, packedLen(4))})
	if out, err := cur.Handle(stat); err != nil || out != nil {
		t.Fatalf("replay: out %v err %v", out, err)
	}
}

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

// runRecorded runs a full session whose owners hold gridData (owner 1's
// moved by tweak) and returns what the curator received.
func runRecorded(t *testing.T, pr Params, tweak float64) (*Curator, []protocol.Envelope) {
	t.Helper()
	cur, err := NewCurator(pr)
	if err != nil {
		t.Fatal(err)
	}
	rec := &protocol.Recorder{Role: cur}
	src := randx.NewSeeded(11)
	var owners []*Owner
	for i, id := range pr.Owners {
		tw := 0.0
		if i == 0 {
			tw = tweak
		}
		o, _ := newOwner(t, pr, id, gridData(30, pr.Plan.Bounds.P, uint64(i+1), tw), src)
		owners = append(owners, o)
	}
	if err := runSession(rec, owners); err != nil {
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
			cur, got := runRecorded(t, pr, 0)
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
			_, moved := runRecorded(t, pr, math.Ldexp(1, -40))
			if len(moved) != len(got) {
				t.Fatalf("%s %s: %d messages, then %d", mode, mech, len(got), len(moved))
			}
			for i := range got {
				if got[i].Type != moved[i].Type || !bytes.Equal(got[i].Payload, moved[i].Payload) {
					t.Fatalf("%s %s: message %d (%s from %s) differs after a sub-grid change", mode, mech, i, got[i].Type, got[i].From)
				}
			}
			// A change above the grid does show.
			_, above := runRecorded(t, pr, 1.0/16)
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

func FuzzStatistics(f *testing.F) {
	b, _ := Statistics{N: 3, P: 2, Packed: make([]float64, packedLen(2))}.MarshalBinary()
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		var s Statistics
		if s.UnmarshalBinary(data) != nil {
			return
		}
		if len(s.Packed) != packedLen(s.P) && len(s.Masked) != packedLen(s.P) {
			t.Fatalf("accepted statistics of inconsistent size")
		}
	})
}
