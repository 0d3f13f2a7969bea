package roles

import (
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
		budget := dp.Pure(1)
		if pr.Plan.Mechanism == ppca.Gaussian {
			budget = dp.Approx(1, 1e-6)
		}
		a, _ := privacy.NewAccountant(privacy.AccountantOptions{Party: id, Budget: budget})
		o, err := NewOwner(OwnerOptions{ID: id, Params: pr, Data: X, Accountant: a, Source: src.Child()})
		if err != nil {
			t.Fatal(err)
		}
		owners = append(owners, o)
		accts = append(accts, a)
	}
	return owners, accts
}

// runSession runs the curator and the owners in one process.
func runSession(cur *Curator, owners []*Owner) error {
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
