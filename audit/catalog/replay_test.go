package catalog

import (
	"math"
	"testing"

	rowsynth "github.com/dppub/dppub/method/rowsynth/audits"
	synthesize "github.com/dppub/dppub/method/synthesize/audits"

	"github.com/dppub/dppub/audit"
	rowsynthspec "github.com/dppub/dppub/method/rowsynth"
	"github.com/dppub/dppub/randx"
)

// Same seed on D and D': every release of the sound pipelines moves by at
// most its charge's sensitivity (a count marginal holding both changed
// cells moves by exactly √2, its bound up to the grid's rounding), and
// the duplicated variant — record 0 read over record 1 too, so that every
// release moves by twice the sensitivity it declares — is caught on the
// first pair (2√2 against √2). The replay compares true differences, so
// it has no false alarms; the only randomness is which pairs diverge
// (choices on noisy values: the paper method's pair selection parts 0–5 %
// of pairs here, the adaptive method's private selections up to 30 %; a
// selection is compared by its outcome). About 3 ms a synthesize pair and
// 7 ms a synthesize-rows pair; -short replays the default options and the
// paper method only.
func TestReplaySoundWithinDuplicatedExceeds(t *testing.T) {
	exact := string(rowsynthspec.NoiseExact)
	cases := []struct {
		name, option string
		build        func(variant, option string) (audit.Mechanism, error)
		pairs        int
		short        bool
		// diverged is how many pairs may part ways: the default, auto, runs
		// the adaptive method on the canary tables, whose private
		// selections see the data (12 of 40 pairs on the duplicated table,
		// where the paper's fixed plan parts in 1).
		diverged int
	}{
		{"synthesize", "", synthesize.ReplaySynthesize, 40, true, 20},
		{"synthesize", "paper", synthesize.ReplaySynthesize, 40, true, 10},
		{"synthesize", "indif", synthesize.ReplaySynthesize, 40, false, 10},
		{"synthesize", "laplace-one-way", synthesize.ReplaySynthesize, 40, false, 10},
		{"synthesize-rows", "", rowsynth.ReplayRows, 20, true, 5},
		{"synthesize-rows", exact, rowsynth.ReplayRows, 20, false, 5},
	}
	for _, c := range cases {
		if testing.Short() && !c.short {
			continue
		}
		for _, variant := range audit.ReplayVariants {
			t.Run(c.name+"/"+c.option+"/"+variant, func(t *testing.T) {
				m, err := c.build(variant, c.option)
				if err != nil {
					t.Fatal(err)
				}
				r, err := audit.ReplayPairs(m, c.pairs, 2, randx.NewSeeded(51))
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%s: worst %s moved %.6g in ℓ%g, bound %.6g; %d releases compared, %d of %d pairs diverged", m.Name, r.Worst, r.MaxDiff, r.Norm, r.Bound, r.Releases, r.Diverged, r.Runs)
				if r.Releases < 5*c.pairs || r.Diverged > c.diverged {
					t.Errorf("%d releases compared, %d of %d pairs diverged: want at least the one-way marginals and scores of every pair", r.Releases, r.Diverged, c.pairs)
				}
				if variant == audit.VariantSound {
					if r.Exceeded || r.MaxDiff < math.Sqrt2*(1-1e-9) {
						t.Errorf("sound: worst move %.6g against %.6g (%s): want within the bound, some release moving by √2", r.MaxDiff, r.Bound, r.Worst)
					}
					return
				}
				if !r.Exceeded || math.Abs(r.MaxDiff-2*math.Sqrt2) > 1e-6 {
					t.Errorf("duplicated: worst move %.6g against %.6g (%s): want 2√2, exceeded", r.MaxDiff, r.Bound, r.Worst)
				}
			})
		}
	}
}
