package rowsynth

import (
	"fmt"
	"math"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/engine/marginal/measurement"
	proto "github.com/dppub/dppub/method/rowsynth/roles"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// Report is the privacy report of a synthesize-rows publication.
func Report(st Settings, res *Result, owners []string, accts []*privacy.Accountant, src *randx.Source) (*privacy.Report, error) {
	records := map[string]int{}
	for k, o := range owners {
		if k < len(res.Records) {
			records[o] = res.Records[k]
		}
	}
	n := res.N
	delta := st.Delta
	if delta == 0 {
		delta = 1 / float64(n) / float64(n)
	}
	ro := privacy.ReportOptions{
		Method:       Name + " (the marginal engine over owners of rows: Algorithms 2-3 of PDP-MVDS as in docs/errata.md#pdp-mvds-algorithms, PrivSyn's consistency and GUM)",
		Calibration:  "sound",
		Randomness:   src.Describe(),
		Seeded:       !src.IsSecure(),
		Composition:  privacy.ParallelOverOwners,
		Accountants:  accts,
		Records:      records,
		DeltaForZCDP: delta,
		Neighbours:   st.Neighbours.Or(),
		Assumptions: []string{
			fmt.Sprintf("each owner's record count is public (they sum to n = %d) and is used without noise; replace-one neighbours within an owner share it", n),
			fmt.Sprintf("sensitivities under replace-one: every release but the pair scores is a count vector over the pooled records, L1 %g / L2 %.4g; a pair score is a sum of the owners' own IInDif scores against the public noisy one-way marginals, sensitivity %g; a record changes one owner's counts and score only", measurement.CountL1, measurement.CountL2, measurement.IInDifSensitivity),
			"every release is the discrete Gaussian on a public grid; the owners' integer shares (plus the coordinator's in insider-safe mode) are added to their exact counts in grid steps, so the sum has the central release's law (Kairouz, Liu & Steinke 2021 for the sum of discrete Gaussians)",
			"pair scores are computed inside the protocol: each owner computes the paper's IInDif score of its own records against the public noisy one-way marginals (scaled to its record count) and the coordinator learns only the noisy sum, at least the pooled score (the owners' sampling deviations add up)",
			"numeric attributes are clamped to the bounds declared in the schema; bounds and categories are public",
		},
		Covered: []string{
			"the noisy pooled histograms that chose the numeric bins, the noisy one-way marginals, the noisy pair scores and the noisy selected marginals",
			"everything derived from them: the bins, the pair selection, the combined attribute sets, the post-processed marginals and the synthetic rows (GUM and the draw of numeric values inside their bins are post-processing)",
		},
		NotCovered: []string{fmt.Sprintf("the owners' record counts (total n = %d)", n)},
		ThreatModel: []string{
			"the coordinator runs the engine and holds no data, and nothing it declares is trusted for privacy: each owner calibrates every release itself (the declared noise must equal its own calibration, else the request is refused before any charge), answers each request ID once and only for its session, draws each request's masks from the digest of the whole request, and checks every other owner's X25519 key by that owner's signature with its consortium identity (channels authenticated by mutual TLS over the network); a coordinator that departs from the protocol can deny service or choose what is measured within each owner's budget, not weaken the noise",
			"each owner sends, per release, its counts (for a pair score, its own score) plus its noise share plus pairwise masks that cancel in the sum (Bonawitz et al., CCS 2017): the coordinator learns only the noisy pooled release, never an owner's counts or score",
			"the score requests carry the noisy pooled one-way marginals to the owners (post-processing of charged releases); an owner learns no other release during the run",
			"an owner that drops out aborts the session: nothing is published and the charges already made stay charged",
		},
	}
	if res.Method == marginal.MethodAdaptive {
		adaptiveReport(&ro, res)
	}
	if !st.Neighbours.PublicCount() {
		addRemoveReport(&ro, res, delta)
	}
	if res.Auto != "" {
		ro.Assumptions = append(ro.Assumptions, res.Auto)
	}
	if st.Noise == proto.NoiseInsiderSafe {
		ro.ThreatModel = append(ro.ThreatModel, fmt.Sprintf(
			"insider-safe noise: the %d owners and the coordinator each add a share, any %d of which make up the calibrated noise, so the guarantee holds against the coordinator and against any single owner that knows its own share (noise variance %d/%d of the central release's)",
			len(owners), len(owners), len(owners)+1, len(owners)))
	} else {
		ro.ThreatModel = append(ro.ThreatModel,
			"exact noise: the owners' shares sum to the central release's noise; against an owner that knows its own share (and sees the release) the guarantee is weaker (Gaussian: ρ·K/(K−1))")
	}
	if st.Epsilon != 0 {
		ro.Assumptions = append(ro.Assumptions, fmt.Sprintf(
			"the budget was given as (ε, δ) = (%g, %.3g): ρ = %.6g is the largest ρ whose conversion by Canonne, Kamath & Steinke (2020, Cor. 13) gives at most ε at δ", st.Epsilon, st.Delta, res.Rho))
	}
	if res.BinRho > 0 {
		ro.Assumptions = append(ro.Assumptions, fmt.Sprintf(
			"numeric bins were chosen from noisy pooled histograms over a public grid of the declared bounds (ρ = %.4g in all, %.1f%% of the budget), merged as post-processing; a bin holding one value decodes to it", res.BinRho, 100*res.BinRho/res.Rho))
	}
	if len(res.OneWays) > 0 {
		_, l2 := measurement.CountSensitivity(st.Neighbours.Or())
		ro.Assumptions = append(ro.Assumptions, marginal.OneWayAssumption(res.OneWays, l2, res.OneWayRho))
	}
	if w := marginal.NoiseWarning(res.Engine, res.Domain, n); w != "" {
		ro.Warnings = append(ro.Warnings, w)
	}
	return privacy.NewReport(ro)
}

// adaptiveReport states what the adaptive method releases across owners
// instead of the paper method's pair scores.
func adaptiveReport(ro *privacy.ReportOptions, res *Result) {
	ro.Method = Name + " (the marginal engine over owners of rows: the adaptive method, AIM-style rounds after McKenna et al., VLDB 2022, with a graphical model fitted to the noisy marginals)"
	most, rounds, rho := 0, 0, 0.0
	pooled, pooledRho := 0, 0.0
	for _, r := range res.Selections {
		if r.Pooled {
			pooled, pooledRho = r.Offered, pooledRho+r.Rho
			continue
		}
		most, rounds, rho = max(most, r.Scored), rounds+1, rho+r.Rho
	}
	ro.Assumptions[1] = fmt.Sprintf("sensitivities under replace-one: every release but the candidate scores is a count vector over the pooled records, L1 %g / L2 %.4g; a round's candidate scores are, per candidate, a sum of the owners' own L1 errors ‖M_r(D_k) − (n_k/n)·M_r(p̂)‖₁ against the model's public estimate p̂, each of sensitivity 2, so C scores have L1 2C / L2 2√C; a record changes one owner's counts and scores only", measurement.CountL1, measurement.CountL2)
	ro.Assumptions[3] = fmt.Sprintf("selection is computed inside the protocol: each of the %d rounds asks the owners to score at most %d candidates (kept by a public filter: not covered by a measured set, half by the largest earlier noisy utility, half least recently scored), and the coordinator learns every kept candidate's noisy summed score (discrete Gaussian at the round's selection ρ, ρ = %.4g in all over the rounds), not only the winner: this costs the ρ the curator's exponential mechanism is charged at √C times its noise, and the coordinator's choice of the largest weighted utility is post-processing", rounds, most, rho)
	if pooled > 0 {
		ro.Assumptions[3] += fmt.Sprintf("; the spanning tree of pairs that starts the rounds came from one release of all %d joining pairs' noisy summed scores (discrete Gaussian, ρ = %.4g, the tree's selections' budget together), the tree being the pairs of largest noisy utility that join two components (post-processing)", pooled, pooledRho)
	}
	ro.Covered[0] = "the noisy pooled histograms that chose the numeric bins, the noisy one-way marginals, every round's noisy candidate scores and the noisy selected marginals"
	ro.Covered[1] = "everything derived from them: the bins, each round's choice, the graphical model and the synthetic rows sampled from it (post-processing)"
	ro.ThreatModel[2] = "the select requests carry the model's estimate of each candidate's marginal to the owners (post-processing of charged releases); an owner learns no other release during the run"
}

// addRemoveReport states what add/remove neighbours change: the owners'
// record counts are private (never sent; their total released first, and
// covered), every count's sensitivity is 1, and the owners' summed
// scores have the sensitivity each owner computed from its reference
// (roles.AddRemoveScoreSensitivity).
func addRemoveReport(ro *privacy.ReportOptions, res *Result, delta float64) {
	sigma := 1 / math.Sqrt(2*res.CountRho)
	ro.Records = nil
	ro.Assumptions[0] = fmt.Sprintf("the owners' record counts are private under add/remove neighbours and never leave them: their total was released first as %d by secure aggregation (each owner's count, masked, plus its share of discrete Gaussian noise; L1 / L2 sensitivity 1, σ = %.3g of the central release, ρ = %.4g, %.0f%% of each owner's budget, charged by every owner before it answered), and that noisy total stands for n everywhere after (normalisations, the bins, method auto's choice, the model's total, the number of synthetic rows)", res.N, sigma, res.CountRho, 100*res.CountRho/res.Rho)
	score := "a pair score is a sum of the owners' own IInDif scores ‖N_k − n_k·f̃‖₁ against the public frequencies f̃ = N*_i·N*_j/ñ² rounded to 2^-24"
	if res.Method == marginal.MethodAdaptive {
		score = "a round's candidate score is a sum of the owners' own errors ‖M_r(D_k) − n_k·f̃_r‖₁ against the model's public frequencies f̃_r rounded to 2^-24, the scores of C candidates L1 Σ s_r / L2 √(Σ s_r²)"
	}
	ro.Assumptions[1] = fmt.Sprintf("sensitivities under add/remove: every count vector (and the record count) moves by L1 %g / L2 %g; %s, of sensitivity s = 1 + ‖f̃‖₁ (about 2: adding a record to owner k moves its counts by 1 and its reference n_k·f̃ by f̃; each owner computes s from the reference it is sent and refuses a request calibrated otherwise or to another relation); a record changes one owner's counts, n_k and scores only", measurement.CountL1AddRemove, measurement.CountL2AddRemove, score)
	ro.Assumptions = append(ro.Assumptions,
		fmt.Sprintf("the guarantee holds for neighbours that differ by one added or removed record; a replaced record (one removal and one addition) is covered at 4ρ = %.4g zCDP (group privacy of two)", 4*res.Rho),
		fmt.Sprintf("δ = %.3g, at which ρ is stated as (ε, δ), is public (given, or the constant %g with --rho): under add/remove n is private, so δ does not default to 1/n²", delta, dp.MaxDefaultDelta))
	ro.Covered = append([]string{"the noisy record count"}, ro.Covered...)
	ro.NotCovered = nil
}
