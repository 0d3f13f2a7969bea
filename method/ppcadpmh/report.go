package ppcadpmh

import (
	"fmt"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/method/ppcadpmh/ppca"
	proto "github.com/dppub/dppub/method/ppcadpmh/roles"
	"github.com/dppub/dppub/privacy"
	"math"
)

// ReportOptions is what a PPCA-DP-MH privacy report depends on; the
// in-process pipeline and the networked runner build it the same way, so
// the same session publishes the same report wherever it runs.
type ReportOptions struct {
	Params proto.Params
	// Plan is the noise plan Params calibrate, as the session agreed it
	// (proto.Agreed); nil: calibrated here.
	Plan        *ppca.Plan
	Accountants []*privacy.Accountant
	Counts      map[string]int
	Secure      bool   // randomness from a CSPRNG
	Randomness  string // how the randomness was drawn, for the report
}

// Report builds the privacy report of a PPCA-DP-MH session.
func Report(o ReportOptions) (*privacy.Report, error) {
	params, plan := o.Params, o.Plan
	if plan == nil {
		var err error
		if plan, err = ppca.NewPlan(params.Plan); err != nil {
			return nil, err
		}
	}
	ro := privacy.ReportOptions{
		Method: Name, Calibration: string(params.Plan.Calibration), Randomness: o.Randomness,
		Composition: privacy.ParallelOverOwners, Accountants: o.Accountants, Records: o.Counts, Seeded: !o.Secure,
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
	if params.PaperLatent {
		ro.NotCovered = append(ro.NotCovered, "the synthetic rows: with --paper-latent their latent codes are projections of real records (paper Algorithm 1, steps 15-16), so every published row is derived from a real record")
		ro.NotDP = "with --paper-latent every synthetic row is derived from a real record's latent code"
	} else {
		ro.Covered = append(ro.Covered, "the synthetic rows: latent codes drawn from N(0, I_k), so the rows are post-processing of the DP model")
	}
	if params.Plan.Calibration == ppca.Paper {
		ro.Warnings = append(ro.Warnings,
			"paper calibration: each owner is charged as the paper claims, but its noise on the second-moment matrix is calibrated to sensitivity p instead of p(p+1)/2; the report's actual guarantee is what each owner really gets")
	}
	if w := noiseWarning(params, plan, o.Counts); w != "" {
		ro.Warnings = append(ro.Warnings, w)
	}
	ro.ThreatModel = append(ro.ThreatModel, threatModel(params, plan)...)
	return privacy.NewReport(ro)
}

// threatModel states who sees what. In secure-aggregate mode it also
// states what a curator colluding with the other m−1 owners learns about
// the remaining owner: that owner's own noise share is then all that
// protects its statistics, and the guarantee of that share alone is
// computed from its distribution.
func threatModel(params proto.Params, plan *ppca.Plan) []string {
	if params.Noise != proto.SecureAggregate {
		return []string{"local noise: each owner noises its own statistics before they leave it; the semi-trusted curator and any coalition see only DP statistics"}
	}
	return []string{
		"secure-aggregate noise: owners and curator are honest-but-curious; the curator sees only the masked sum of the owners' statistics, which carries the noise of one centralised release",
		collusionSentence(plan, len(params.Owners), params.Plan),
	}
}

// collusionSentence says what holds for one owner when the curator
// colludes with the other m−1 owners: they remove their masks and noise
// shares, leaving the owner's statistics with its own share only.
func collusionSentence(plan *ppca.Plan, m int, po ppca.PlanOptions) string {
	if m == 1 {
		return "one owner: its share is the whole noise, so its budget holds against the curator"
	}
	lead := fmt.Sprintf("if the curator colludes with the other m−1 = %d owners, they can remove their masks and noise shares, and the remaining owner's statistics are protected by its own share alone", m-1)
	if plan.Mechanism == ppca.Laplace {
		eps, units := shareEpsilon(plan, m)
		return lead + fmt.Sprintf(": per entry a difference of two Pólya NB(1/%d, e^{−1/t}) draws on its block's grid (t, the discrete Laplace scale in grid steps, is %.4g for Σx and %.4g for Σxxᵀ), whose probabilities at neighbouring grid points differ by a factor up to %d·e^{1/t} instead of e^{1/t}: that owner's statistics then keep only ε ≤ %.4g, a vacuous guarantee (treat them as unprotected), instead of its budget ε = %g",
			m, units[0], units[1], m, eps, po.Epsilon)
	}
	full, share := shareRho(plan, 1), shareRho(plan, m)
	s := lead + fmt.Sprintf(": N(0, σ²/%d) per entry, i.e. ρ·m-zCDP where ρ = %.4g is the full noise's: %v for that owner's statistics", m, full.Rho, share)
	if a, err := share.ToApprox(po.Delta); err == nil {
		s += fmt.Sprintf(", ≈ %v", a)
	}
	return s + fmt.Sprintf(", instead of its budget %v", dp.Approx(po.Epsilon, po.Delta))
}

// shareRho is the zCDP guarantee of Gaussian noise σ/√m on every
// release of the plan (one owner's share of m): Δ²·m/(2σ²) per release
// (L2 sensitivity Δ), summed.
func shareRho(plan *ppca.Plan, m int) dp.Guarantee {
	rho := 0.0
	for _, c := range plan.Charges {
		d, sigma := c.Spec.Sensitivity, c.Spec.Scale
		rho += d * d * float64(m) / (2 * sigma * sigma)
	}
	return dp.Concentrated(rho)
}

// shareEpsilon bounds the pure ε that one owner's own Laplace share
// gives its statistics in secure-aggregate mode, when the curator and the
// other m−1 owners have removed everything else; it also returns each
// block's discrete Laplace scale t in grid steps.
//
// Each share is, per entry, the difference of two Pólya NB(1/m, q)
// draws on the block's grid, q = e^{−1/t} (dp.Noiser.Shares). For
// NB(r, q), P(k+1)/P(k) = q(k+r)/(k+1) lies in [qr, q), so the
// difference's probabilities at neighbouring grid points differ by a
// factor at most 1/(qr) = m·e^{1/t}. A change of one record moves the
// rounded block by at most D grid steps in L1, and the plan's t satisfies
// D ≤ ε_b·t (ε_b the block's pure ε: its actual one under the paper
// calibration, which bounds the true D alike). So the share alone is
// D·(1/t + ln m) ≤ ε_b·(1 + t·ln m)-DP, summed over the blocks.
func shareEpsilon(plan *ppca.Plan, m int) (float64, [2]float64) {
	units := [2]float64{plan.SumNoise.Units(), plan.OuterNoise.Units()}
	eps := 0.0
	for i, c := range plan.Charges[:2] {
		g := c.Spec.Guarantee
		if c.Actual != nil {
			g = *c.Actual
		}
		eps += g.Epsilon * (1 + units[i]*math.Log(float64(m)))
	}
	return eps, units
}

// MostlyNoise is the noise level, as a share of an entry's largest
// possible value, above which the report warns that the second moment
// (and so the model and every synthetic row) is mostly noise: the
// standard deviation of the aggregate noise on an entry of Σxxᵀ/n, whose
// entries lie in [0, 1] (a variance is at most 0.25). Adult at ε = 1
// (Laplace, 3 owners) is at 0.024; WDBC's 569 rows at ε = 1 at 4.5.
const MostlyNoise = 0.05

// noiseWarning says when the noise dwarfs the second moment, and what
// would do better; "" otherwise.
func noiseWarning(params proto.Params, plan *ppca.Plan, counts map[string]int) string {
	n := 0
	for _, c := range counts {
		n += c
	}
	if n == 0 {
		return ""
	}
	sd := plan.OuterNoise.Scale()
	if plan.Mechanism == ppca.Laplace {
		sd *= math.Sqrt2 // a Laplace variable of scale b has standard deviation √2·b
	}
	if params.Noise == proto.Local {
		sd *= math.Sqrt(float64(len(params.Owners))) // every owner adds the whole noise
	}
	level := sd / float64(n)
	if level <= MostlyNoise {
		return ""
	}
	return fmt.Sprintf("the output is mostly noise: the noise on each entry of the second moment Σxxᵀ/n has standard deviation %.3g (%d columns, %d records), above %.0f%% of an entry's largest value, so the components and every synthetic row carry little of the data; a larger ε, a δ (the Gaussian mechanism), --noise secure-aggregate, fewer columns, or `dppub synthesize` (noisy marginals) would do better",
		level, params.Plan.Bounds.P, n, 100*MostlyNoise)
}
