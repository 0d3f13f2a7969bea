package audits

import (
	"testing"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/engine/marginal"
	proto "github.com/dppub/dppub/method/rowsynth/roles"
	"github.com/dppub/dppub/randx"
)

// selectReplay replays the select releases alone of a same-seed pair of
// adaptive runs (tables of variant, noise mode mode): their moves against
// their bounds, as the replay audit compares them, up to the first
// select whose offer differs.
func selectReplay(t *testing.T, variant, mode string, seed uint64) (audit.PairReplay, int) {
	t.Helper()
	tables, err := audit.ReplayTables(variant)
	if err != nil {
		t.Fatal(err)
	}
	h, err := newRowsHarness(proto.NoiseMode(mode), audit.PipelineRho, tables, audit.PipelineOwners)
	if err != nil {
		t.Fatal(err)
	}
	h.method = marginal.MethodAdaptive
	var trs [2]*rowsTrace
	var rel [2][]audit.Replayed
	for _, side := range []audit.Side{audit.D, audit.DPrime} {
		if trs[side], err = h.run(side, randx.NewSeeded(seed), nil); err != nil {
			t.Fatal(err)
		}
		if rel[side], err = trs[side].releases(); err != nil {
			t.Fatal(err)
		}
	}
	if err := alignSelects(trs[audit.D], trs[audit.DPrime], rel[audit.DPrime]); err != nil {
		t.Fatal(err)
	}
	var sel [2][]audit.Replayed
	var at [2][]int
	for _, side := range []audit.Side{audit.D, audit.DPrime} {
		for i, q := range trs[side].requests {
			if q.Kind == proto.KindSelect {
				sel[side], at[side] = append(sel[side], rel[side][i]), append(at[side], i)
			}
		}
	}
	pr, err := audit.CompareRuns(sel[audit.D], sel[audit.DPrime], func(j int) (float64, error) {
		return rowsScoreMove(trs[audit.D], trs[audit.DPrime], at[audit.D][j])
	})
	if err != nil {
		t.Fatal(err)
	}
	return pr, len(sel[audit.D])
}

// The replay of an adaptive session compares the owners' select scores:
// every sound select moves within 2√C plus its references' move, and a
// record read twice (VariantDuplicated) pushes some select beyond it.
func TestReplayAdaptiveComparesSelects(t *testing.T) {
	for _, variant := range audit.ReplayVariants {
		t.Run(variant, func(t *testing.T) {
			exceeded, compared := 0, 0
			for seed := uint64(1); seed <= 5; seed++ {
				pr, n := selectReplay(t, variant, "", seed)
				t.Logf("seed %d: %d selects, %d compared (diverged %v), worst %v", seed, n, pr.Compared, pr.Diverged, pr.Worst)
				compared += pr.Compared
				if pr.Compared > 0 && pr.Worst.Exceeded() {
					exceeded++
				}
			}
			if compared == 0 {
				t.Fatal("no select release compared")
			}
			if want := variant != audit.VariantSound; (exceeded > 0) != want {
				t.Errorf("%d of 5 pairs exceeded a select's bound, want exceeded = %v", exceeded, want)
			}
		})
	}
}

// The registered replay of the adaptive path (replay-synthesize-rows-
// adaptive) replays whole sessions, selects included: sound within every
// bound, a record read twice beyond one (the one-way marginals' 2√2
// against √2 at the latest). 20 pairs, deterministic given the seed.
func TestReplayRowsAdaptive(t *testing.T) {
	meth, err := Audits().Lookup("replay-synthesize-rows-adaptive")
	if err != nil {
		t.Fatal(err)
	}
	for _, variant := range audit.ReplayVariants {
		t.Run(variant, func(t *testing.T) {
			m, err := meth.Mechanism(audit.MethodOptions{Calibration: variant})
			if err != nil {
				t.Fatal(err)
			}
			r, err := audit.ReplayPairs(m, 20, 2, randx.NewSeeded(51))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: worst %s moved %.6g in ℓ%g, bound %.6g; %d releases compared, %d of %d pairs diverged", m.Name, r.Worst, r.MaxDiff, r.Norm, r.Bound, r.Releases, r.Diverged, r.Runs)
			if want := variant != audit.VariantSound; r.Exceeded != want {
				t.Errorf("exceeded %v, want %v", r.Exceeded, want)
			}
		})
	}
}
