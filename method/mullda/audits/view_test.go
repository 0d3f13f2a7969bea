package audits

import (
	"math"
	"testing"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/audit/audittest"
	"github.com/dppub/dppub/method/mullda/lda"
)

// The publisher colluding with owner 2 (colluder) or owners 2 and 3
// (coalition) of a Mul-LDA-DP session (M = 3, ε = 2, δ = 1e-3) PASSes
// against the report's collusion guarantee, ε = 3 at δ = 1e-3 (what the
// coalition of the M−1 other owners leaves: owner 1's own N(0, σ²/3));
// at 5,000 runs the bounds were 1.29 and 1.78, the coalition's closer to
// its claim because it is the case the claim is for. Owners that skip
// their own noise (no-own-noise) are caught: the coalition knows every
// share but owner 1's, hence owner 1's too (they sum to zero), and reads
// its statistics exactly, so D and D' separate in every run (5.4 at
// 1,000 runs, the ceiling); the single colluder reads owners 1 and 3's
// sum exactly, which the view's LLR (weighted for the sound noise) uses
// only in part: 2.8 at 1,000 runs, 3.9 at 5,000. Seeded; a sound view
// fails its PASS with probability at most 5% over seeds; without -short
// each VIOLATION is checked again on two more seeds. About 0.35 ms a
// release; -short audits the coalition alone, at 500 runs (ceiling 4.7).
func TestViewMulLDAPassesCollusionClaimCatchesNoOwnNoise(t *testing.T) {
	cases := []struct {
		view    audit.View
		variant string
		runs    int
		want    audit.Verdict
		short   bool
	}{
		{audit.ViewCoalition, audit.VariantSound, 1000, audit.Pass, true},
		{audit.ViewCoalition, VariantNoOwnNoise, 1000, audit.Violation, true},
		{audit.ViewColluder, audit.VariantSound, 1000, audit.Pass, false},
		{audit.ViewColluder, VariantNoOwnNoise, 5000, audit.Violation, false},
	}
	for _, c := range cases {
		if testing.Short() && !c.short {
			continue
		}
		runs := c.runs
		if testing.Short() {
			runs = 500
		}
		t.Run(string(c.view)+"/"+c.variant, func(t *testing.T) {
			m, err := ViewMulLDA(c.view, c.variant, 2, 1e-3)
			r := audittest.MustRun(t, m, err, runs, 61)
			if r.Verdict != c.want {
				t.Errorf("ε_lower %.3f vs claim %.3f: %s, want %s", r.EpsilonLower, r.ClaimedEpsilon, r.Verdict, c.want)
			}
			if c.want == audit.Violation {
				audittest.ViolationOnMoreSeeds(t, m, runs)
			}
		})
	}
}

// The claim is the report's collusion sentence: weaker than the budget,
// and the plan's CollusionEpsilon as the report prints it (4 digits).
func TestViewMulLDAClaimIsTheReports(t *testing.T) {
	m, err := ViewMulLDA(audit.ViewColluder, "", 2, 1e-3)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := lda.NewPlan(lda.PlanOptions{Calibration: lda.Sound, Epsilon: 2, Delta: 1e-3, P: mulLDAP, Classes: mulLDAClasses, Owners: viewMulLDAOwners, Noise: lda.Correlated})
	if err != nil {
		t.Fatal(err)
	}
	if want := plan.CollusionEpsilon(); math.Abs(m.Claim.Epsilon-want) > 5e-4*want || m.Claim.Delta != 1e-3 || !(m.Claim.Epsilon > 2) {
		t.Errorf("claim %v, want (ε=%.4g, δ=0.001), above the budget ε = 2", m.Claim, want)
	}
	for _, bad := range []struct {
		view    audit.View
		variant string
	}{{ViewPublisher, ""}, {audit.ViewColluder, "paper"}} {
		if _, err := ViewMulLDA(bad.view, bad.variant, 2, 1e-3); err == nil {
			t.Errorf("view %q, variant %q accepted", bad.view, bad.variant)
		}
	}
}
