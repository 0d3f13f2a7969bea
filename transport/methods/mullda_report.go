package methods

import (
	"fmt"

	"github.com/dppub/dppub/algo/lda"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol/mullda"
)

// ldaReportInput is what the LDA report depends on.
type ldaReportInput struct {
	method       string
	owners       int
	calibration  lda.Calibration
	noise        lda.NoiseMode
	publicCounts bool
	output       mullda.Output
	delta        float64
	secure       bool
	randomness   string
}

// ldaReport states what publish's LDA report states, word for word (the
// networked session has no publishing ledger attached). It mirrors the
// unexported builder in publish/lda.go; TestNetworkMatchesOneProcess
// compares the two reports byte for byte.
func ldaReport(o ldaReportInput, plan *lda.Plan, accts []*privacy.Accountant, ridge float64) (*privacy.Report, error) {
	counts := o.publicCounts || o.calibration == lda.Paper
	ro := privacy.ReportOptions{
		Method: o.method, Calibration: string(o.calibration), Randomness: o.randomness,
		Composition: privacy.ParallelOverOwners, Accountants: accts,
		Assumptions: []string{
			"features are encoded into [0,1] with the public schema bounds and every row is scaled to unit L2 norm; replacing one record (label included) moves the class sums by at most 2, the class counts by √2 and Σxxᵀ by √2 (L2)",
			fmt.Sprintf("the ridge %.4g added to S_w before solving depends only on public quantities (σ and p)", ridge),
			"rows with a missing value are dropped before the release, as in the papers",
		},
		Covered: []string{"the DP class means and class counts, the pooled within-class scatter S_w, the discriminant direction(s) W, and everything computed from them"},
	}
	if counts {
		ro.Assumptions = append(ro.Assumptions, "the class counts N^(k) are public: the guarantee holds for replacements that keep every class count (a record may change, its class may not)")
		ro.NotCovered = append(ro.NotCovered, "the class counts N^(k) (and each owner's N_m^(k)) are released exactly")
	}
	if o.output == mullda.RealProjections {
		ro.NotCovered = append(ro.NotCovered,
			"the published projections X·W: every row is the projection of a real record with its real label (the paper's Algorithm 1 step 9 / Algorithm 2 step 17); the paper's 'underdetermined system' argument is not a differential-privacy argument, so these rows are NOT covered by DP",
			"the number of records of each owner (one projection per record)")
	} else {
		ro.Covered = append(ro.Covered, "the published labelled projections: drawn from the DP class-conditional Gaussians N(Wᵀμ_k, WᵀΣW) with Σ = S_w/(N − C), as many per class as the DP count says (post-processing)")
	}
	ro.ThreatModel = ldaThreatModel(o, plan)
	if o.calibration == lda.Paper {
		ro.Warnings = append(ro.Warnings, fmt.Sprintf(
			"paper calibration: each owner is charged %v as the paper claims; its σ on the class sums (%.4g) and on Σxxᵀ (%.4g) are far above what that budget needs, so the true guarantee against the publisher's view is %v, but the class counts are released exactly",
			plan.Claimed(), plan.SumSigma, plan.SecondSigma, plan.Actual()))
	}
	if !o.secure {
		ro.Warnings = append(ro.Warnings, "randomness is SEEDED and predictable: this output is for tests and experiments only and carries no privacy guarantee")
	}
	return privacy.NewReport(ro)
}

func ldaThreatModel(o ldaReportInput, plan *lda.Plan) []string {
	m := o.owners
	if m == 1 {
		return []string{"one owner: it noises its statistics itself; the publisher and everyone else see only DP statistics"}
	}
	if o.noise == lda.Independent {
		return []string{
			"independent noise: each owner adds the full noise to its own statistics, so every message, and any coalition of the other parties, sees that owner only through a DP release; the aggregate carries M times the centralised noise variance",
		}
	}
	paid := "; the paper's Theorems 7–8 overlook this, and the charges' actual guarantees account for it"
	if o.calibration == lda.Sound {
		paid = "; the sound calibration sets σ so that this view is (ε, δ)-DP"
	}
	return []string{
		"honest-but-curious owners, noise dealer and publisher; the dealer's shares travel on private channels",
		fmt.Sprintf("correlated noise (the paper's scheme): each owner's message carries N(0, σ²), and the aggregate exactly N(0, σ²) because the dealer's shares cancel; but the publisher sees every message and its own share, which together protect one owner with only %.3f·σ (M = %d)%s",
			plan.ViewFactor, m, paid),
		fmt.Sprintf("if the publisher colludes with the dealer, or with the other %d owners, it can remove an owner's share, leaving that owner's statistics with only its own N(0, σ²/%d): the guarantee per owner then degrades to (ε=%.4g, δ=%g)",
			m-1, m, plan.CollusionEpsilon(), o.delta),
	}
}
