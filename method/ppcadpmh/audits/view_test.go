package audits

import (
	"testing"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/audit/audittest"
	"github.com/dppub/dppub/dp"
)

// The three views of a PPCA-DP-MH secure-aggregate run PASS against what
// the report states for them: the budget (ε = 2, δ = 1e-5) for the
// curator, the collusion sentence's (ε ≈ 2.8, δ = 1e-5) for colluders.
// The colluders' claim is read off the real report and must be weaker
// than the budget. Each release reruns the whole protocol and recovers
// the colluders' words from their own messages and mask seeds, which
// fails loudly if the audit's mask expansion drifts from the protocol's.
// With 5,000 runs the bounds were 0.47, 0.63 and 0.90 (the remaining
// noise shrinks as owners collude); at 300 runs here they are lower. A
// sound implementation fails with probability at most 5% per view over
// seeds (fixed seed). Each run allocates the owners' synthetic rows, so a
// view costs about 8 s at 300 runs on 2 busy cores: -short audits only
// the coalition's view (the one with the least noise left) at 150.
func TestViewPPCAPassesReportedClaims(t *testing.T) {
	views, runs := []audit.View{audit.ViewCoordinator, audit.ViewColluder, audit.ViewCoalition}, 300
	if testing.Short() {
		views, runs = views[2:], 150
	}
	for _, view := range views {
		t.Run(string(view), func(t *testing.T) {
			m, err := ViewPPCA(view, ClaimReport, 2, 1e-5)
			r := audittest.MustRun(t, m, err, runs, 31)
			if r.Verdict != audit.Pass {
				t.Errorf("ε_lower %.3f > claim %.3f, want PASS", r.EpsilonLower, r.ClaimedEpsilon)
			}
			wantBudget := view == audit.ViewCoordinator
			if (m.Claim == dp.Approx(2, 1e-5)) != wantBudget || !(m.Claim.Epsilon >= 2) {
				t.Errorf("claim %v: want the budget (ε=2, δ=1e-05) for the coordinator only, a weaker one for colluders", m.Claim)
			}
		})
	}
	if _, err := ViewPPCA("dealer", ClaimReport, 2, 1e-5); err == nil {
		t.Error("unknown view accepted")
	}
}

func TestCollusionClaimParsesReportSentence(t *testing.T) {
	g, err := collusionClaim([]string{"local noise", "if the curator colludes with the other m−1 = 2 owners, …: ρ=0.3 (zCDP) for that owner's statistics, ≈ (ε=2.805, δ=1e-05), instead of its budget (ε=2, δ=1e-05)"})
	if err != nil || g != dp.Approx(2.805, 1e-5) {
		t.Errorf("got %v, %v", g, err)
	}
	if _, err := collusionClaim([]string{"no collusion sentence"}); err == nil {
		t.Error("a report without a collusion sentence gave a claim")
	}
}
