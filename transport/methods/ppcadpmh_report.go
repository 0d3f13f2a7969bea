package methods

import (
	"fmt"

	"github.com/dppub/dppub/algo/ppca"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol/ppcadpmh"
)

// ppcaReport states what publish.PPCADPMH's report states, word for word:
// the networked run publishes the same artifact under the same guarantee.
// It mirrors the unexported report builder of publish/ppcadpmh.go (which
// this package cannot call); TestNetworkMatchesOneProcess in package
// transport compares the two reports byte for byte, so they cannot drift
// apart unnoticed.
func ppcaReport(st PPCASettings, params ppcadpmh.Params, accts []*privacy.Accountant, counts map[string]int, secure bool, randomness string) (*privacy.Report, error) {
	ro := privacy.ReportOptions{
		Method: "ppca-dp-mh", Calibration: st.Calibration, Randomness: randomness,
		Composition: privacy.ParallelOverOwners, Accountants: accts, Records: counts,
		Assumptions: []string{
			"each owner's record count n_i is public (as in the paper) and is released without noise",
			"numeric attributes are clamped to the bounds declared in the schema; the bounds are public",
			"rows with a missing value are dropped before the release, as in the papers",
		},
		Covered: []string{"the DP mean and second-moment sums, the principal components, the PPCA model and everything derived from them"},
		NotCovered: []string{
			"the owners' record counts n_i and the total n (released exactly)",
		},
	}
	if st.PaperLatent {
		ro.NotCovered = append(ro.NotCovered, "the synthetic rows: with --paper-latent their latent codes are projections of real records (paper Algorithm 1, steps 15-16), so every published row is derived from a real record")
	} else {
		ro.Covered = append(ro.Covered, "the synthetic rows: latent codes drawn from N(0, I_k), so the rows are post-processing of the DP model")
	}
	if st.Calibration == string(ppca.Paper) {
		plan, err := ppca.NewPlan(params.Plan)
		if err != nil {
			return nil, err
		}
		ro.Warnings = append(ro.Warnings, fmt.Sprintf(
			"paper calibration: each owner is charged %v as the paper claims, but its noise on the second-moment matrix is calibrated to sensitivity p instead of p(p+1)/2; the true guarantee per owner is only %v",
			plan.Claimed(), plan.Actual()))
	}
	if st.Noise == string(ppcadpmh.SecureAggregate) {
		ro.ThreatModel = append(ro.ThreatModel,
			"secure-aggregate noise: owners and curator are honest-but-curious; the curator sees only the masked sum of the owners' statistics, which carries the noise of one centralised release",
			"if the curator colludes with all other owners, they can remove one owner's masks and the other noise shares, leaving that owner's statistics protected by only its 1/m share of the noise")
	} else {
		ro.ThreatModel = append(ro.ThreatModel, "local noise: each owner noises its own statistics before they leave it; the semi-trusted curator and any coalition see only DP statistics")
	}
	if !secure {
		ro.Warnings = append(ro.Warnings, "randomness is SEEDED and predictable: this output is for tests and experiments only and carries no privacy guarantee")
	}
	return privacy.NewReport(ro)
}
