// The privacy report of a one-process synthesis: what the run released, at
// which sensitivities, what its guarantee covers and what it does not.

package synthesize

import (
	"cmp"
	"fmt"
	"math"
	"strings"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/privacy"
)

// spending is what the single owner's ρ paid for beside the engine's
// measurements: choosing bins, the record count (add/remove) and the
// label check.
type spending struct {
	bin, count float64
	check      *LabelCheck
	// oneWays name the attributes whose bins came from their one-way
	// marginal, released at oneWayRho each (the engine's one-way
	// measurement: binPlan.oneWay).
	oneWays   []string
	oneWayRho float64
}

// binsAssumption states how the numeric bins were made when they were
// chosen from the data ("" when they were not): by their own releases
// of binRho in all, by one-way releases (spent.oneWays), or both.
func binsAssumption(o Options, spent spending, countL2 float64) string {
	var parts []string
	if spent.bin > 0 {
		parts = append(parts, fmt.Sprintf("their bins were chosen from a noisy histogram over a public grid of those bounds (discrete Gaussian, L2 sensitivity %.4g, ρ = %.4g in all, %.1f%% of the budget), merged into bins as post-processing; a bin holding one value decodes to it", countL2, spent.bin, 100*spent.bin/o.Parties[0].Rho))
	}
	if len(spent.oneWays) > 0 {
		parts = append(parts, marginal.OneWayAssumption(spent.oneWays, countL2, spent.oneWayRho))
	}
	if len(parts) == 0 {
		return ""
	}
	return "numeric attributes are clamped to the bounds declared in the schema; " + strings.Join(parts, "; ")
}

func report(o Options, auto string, res *marginal.Result, dom *domain.Domain, accts []*privacy.Accountant, n int, spent spending) (*privacy.Report, error) {
	countRho := spent.count
	nb := o.Neighbours.Or()
	records := map[string]int{}
	for _, a := range accts {
		records[a.Party()] = n
	}
	countL1, countL2 := measurement.CountSensitivity(nb)
	scoreSens := measurement.ScoreSensitivity(cmp.Or(o.Score, measurement.IInDif), nb)
	ro := privacy.ReportOptions{
		Method:       "pdp-mvds marginal synthesis (one process; Algorithms 2-3 as in docs/errata.md#pdp-mvds-algorithms, PrivSyn)",
		Calibration:  "sound",
		Randomness:   o.Source.Describe(),
		Seeded:       !o.Source.IsSecure(),
		Composition:  privacy.Single,
		Accountants:  accts,
		Records:      records,
		DeltaForZCDP: o.Delta,
		Assumptions: []string{
			fmt.Sprintf("the record count n = %d is public (replace-one neighbours share it) and is used without noise", n),
			"numeric attributes are clamped to the bounds declared in the schema and cut into equal-width bins over them; bounds, bins and categories are public and do not depend on the data",
			fmt.Sprintf("sensitivities under %s: a count vector moves by L1 %g / L2 %.4g; the pair score by %g", nb, countL1, countL2, scoreSens),
			"Laplace releases are charged ε²/2 in zCDP (Bun & Steinke 2016); each party's spend is also stated as (ε, δ)-DP at δ = " + fmt.Sprintf("%.3g", o.Delta),
		},
		Covered: []string{
			"the noisy one-way marginals, the noisy pair scores and the noisy selected marginals",
			"everything derived from them: the pair selection (Algorithm 2), the combined attribute sets, the post-processed marginals and the synthetic rows (GUM and the uniform draw of numeric values inside their bins are post-processing)",
		},
		NotCovered: []string{fmt.Sprintf("the record count n = %d", n)},
		ThreatModel: []string{
			"one process held every column: it is a trusted curator; the multi-party protocol (secure scalar products, distributed noise) is not used in this mode",
		},
	}
	if o.Method == marginal.MethodAdaptive {
		adaptiveReport(&ro, o, res, nb, countL1, countL2)
	}
	if auto != "" {
		ro.Assumptions = append(ro.Assumptions, auto)
	}
	if b := binsAssumption(o, spent, countL2); b != "" {
		ro.Assumptions[1] = b
	} else if !adaptive(o) {
		ro.Assumptions[1] = "numeric attributes are clamped to the bounds declared in the schema and cut into equal-width bins over them, with the minimum, the maximum and 0 (inside the bounds) each a bin of its own that decodes to that value; bounds, bins and categories are public and do not depend on the data"
	}
	if len(accts) == 1 {
		// One owner chooses the relation; parties of columns have
		// replace-one only, which their report's relation sentence states.
		ro.Neighbours = nb
	}
	if !nb.PublicCount() {
		addRemoveReport(&ro, o, n, countRho)
	}
	if o.Epsilon != 0 {
		ro.Assumptions = append(ro.Assumptions, fmt.Sprintf(
			"the budget was given as (ε, δ) = (%g, %.3g): ρ = %.6g is the largest ρ whose conversion by Canonne, Kamath & Steinke (2020, Cor. 13) gives at most ε at δ", o.Epsilon, o.Delta, o.Rho))
	}
	if len(accts) > 1 {
		ro.Composition = privacy.PersonalisedPerParty
		ro.Assumptions = append(ro.Assumptions,
			"personalised budgets: each party's guarantee covers a change of one record's values in that party's columns; a release over columns of several parties satisfies the strictest of their budgets and is charged to each")
		whole := dp.Concentrated(totalRho(res))
		ro.WholeRecord = &whole
		ro.Warnings = append(ro.Warnings, wholeRecordWarning(whole))
	}
	if c := spent.check; c != nil {
		labelCheckReport(&ro, c)
	}
	for _, w := range []string{marginal.NoiseWarning(res, dom, n), marginal.LabelWarning(res, dom, n, o.Label)} {
		if w != "" {
			ro.Warnings = append(ro.Warnings, w)
		}
	}
	r, err := privacy.NewReport(ro)
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	return r, nil
}

// labelCheckReport states the label check's release, what it covers and,
// when the check's accuracy falls below the majority class, its warning.
func labelCheckReport(ro *privacy.ReportOptions, c *LabelCheck) {
	ro.Assumptions = append(ro.Assumptions, c.String())
	ro.Covered = append(ro.Covered, "the label check's noisy count of correct predictions on the real records")
	if w := c.Warning(); w != "" {
		ro.Warnings = append(ro.Warnings, w)
	}
}

// adaptiveReport states what the adaptive method releases and derives
// (its selections, sensitivities and model) in place of the paper
// method's sentences.
func adaptiveReport(ro *privacy.ReportOptions, o Options, res *marginal.Result, nb dp.Neighbours, countL1, countL2 float64) {
	ro.Method = "adaptive marginal synthesis (one owner; workload-adaptive rounds after AIM, graphical-model inference after Private-PGM)"
	ro.Assumptions[2] = fmt.Sprintf("sensitivities under %s: a count vector moves by L2 %.4g; a selection utility w·(‖M(D) − estimate‖₁ − penalty) by %g·w, w the largest workload weight offered; the penalty is %s", nb, countL2, countL1, cmp.Or(o.Penalty, marginal.DefaultPenalty).Describe())
	ro.Assumptions = append(ro.Assumptions,
		fmt.Sprintf("each round's selection is %s; each measurement is the discrete Gaussian on a public grid at ρ_t; the rounds' costs sum to the budget exactly", cmp.Or(o.Selection, measurement.SelectExponential).Describe()))
	ro.Covered = []string{
		"the noisy one-way and selected marginals and every selection",
		fmt.Sprintf("everything derived from them: the graphical model fitted to the noisy marginals (%s), the synthetic rows sampled from it, the uniform draw of numeric values inside their bins (post-processing)", marginal.OptimizerReason(o.Optimizer, res.Optimizer)),
	}
}

// addRemoveReport states what add/remove neighbours change in the
// report: the record count is released (covered, no longer "public"),
// and what the guarantee means for a replaced record.
func addRemoveReport(ro *privacy.ReportOptions, o Options, n int, countRho float64) {
	sigma := 1 / math.Sqrt(2*countRho)
	ro.Assumptions[0] = fmt.Sprintf("the record count is private under add/remove neighbours: it was released first as %d, with discrete Gaussian noise on the integer grid (L2 sensitivity 1, σ = %.3g, ρ = %.4g, %.0f%% of the budget), and that noisy count stands for n everywhere after (normalisations, the model's total, the default number of synthetic rows)", n, sigma, countRho, 100*countRho/o.Parties[0].Rho)
	ro.Assumptions = append(ro.Assumptions,
		fmt.Sprintf("the guarantee holds for neighbours that differ by one added or removed record; a replaced record (one removal and one addition) is covered at 4ρ = %.4g zCDP (group privacy of two)", 4*o.Parties[0].Rho))
	ro.Assumptions = append(ro.Assumptions, fmt.Sprintf("δ = %.3g, at which ρ is stated as (ε, δ), is public (given, or the constant %g with --rho): under add/remove n is private, so δ does not default to 1/n²", o.Delta, dp.MaxDefaultDelta))
	ro.Covered = append([]string{"the noisy record count"}, ro.Covered...)
	ro.NotCovered = nil
}

// wholeRecordWarning explains the report's whole-record guarantee, which
// the headline states.
func wholeRecordWarning(whole dp.Guarantee) string {
	return fmt.Sprintf("a person whose values change in every party's columns is protected only at the sum over distinct releases, %v (the report's whole_record guarantee), not at the largest party budget", whole)
}

// totalRho sums every distinct release once: the guarantee of a change to
// a whole record.
func totalRho(res *marginal.Result) float64 {
	s := 0.0
	for _, p := range res.Plan {
		s += p.Release.Noise.Rho
	}
	return s
}
