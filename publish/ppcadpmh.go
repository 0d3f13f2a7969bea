package publish

import (
	"context"
	"fmt"
	"time"

	"github.com/dppub/dppub/algo/ppca"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/protocol/ppcadpmh"
	"github.com/dppub/dppub/randx"
)

// PPCAOptions configure a PPCA-DP-MH publication.
type PPCAOptions struct {
	// Owners are the owners' tables, all with the same schema.
	Owners []*data.Table
	// Epsilon (and Delta for the Gaussian mechanism) is each owner's budget.
	Epsilon, Delta float64
	Calibration    ppca.Calibration // default sound
	Mechanism      ppca.Mechanism   // default laplace
	Noise          ppcadpmh.NoiseMode
	Contribution   float64 // default 0.85 when K is 0
	K              int
	PaperLatent    bool
	// GenericBounds ignores the one-hot structure of the encoding and
	// calibrates to rows in [0,1]^p (the paper's setting).
	GenericBounds bool
	Source        *randx.Source
}

// PPCAResult is the published output and what it cost.
type PPCAResult struct {
	Synthetic *data.Table
	Report    *privacy.Report
	Model     *ppca.Model
	Encoder   *data.Encoder
	Clamped   int // values clamped to declared bounds (not private: local use only)
	Traffic   *protocol.Stats
	Elapsed   time.Duration
}

func (o *PPCAOptions) defaults() {
	if o.Calibration == "" {
		o.Calibration = ppca.Sound
	}
	if o.Mechanism == "" {
		o.Mechanism = ppca.Laplace
	}
	if o.Noise == "" {
		o.Noise = ppcadpmh.Local
	}
	if o.K == 0 && o.Contribution == 0 {
		o.Contribution = 0.85
	}
	if o.Source == nil {
		o.Source = randx.NewSecure()
	}
}

// PPCADPMH publishes a synthetic table from the owners' tables.
func PPCADPMH(ctx context.Context, o PPCAOptions) (*PPCAResult, error) {
	o.defaults()
	if len(o.Owners) == 0 {
		return nil, fmt.Errorf("publish: ppca-dp-mh needs at least one owner")
	}
	schema := o.Owners[0].Schema
	enc, err := data.NewEncoder(schema, data.EncoderOptions{})
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	bounds, err := RowBoundsOf(enc)
	if err != nil {
		return nil, err
	}
	if o.GenericBounds {
		bounds = ppca.GenericBounds(enc.Dim())
	}
	budget := dp.Pure(o.Epsilon)
	if o.Mechanism == ppca.Gaussian {
		budget = dp.Approx(o.Epsilon, o.Delta)
	}
	params := ppcadpmh.Params{
		Session: fmt.Sprintf("ppca-dp-mh-%016x", o.Source.Uint64()),
		Curator: "curator",
		Plan: ppca.PlanOptions{Calibration: o.Calibration, Mechanism: o.Mechanism,
			Epsilon: o.Epsilon, Delta: o.Delta, Bounds: bounds},
		Noise: o.Noise, Fit: ppca.FitOptions{Contribution: o.Contribution, K: o.K},
		PaperLatent: o.PaperLatent,
	}
	roles := []protocol.Role{}
	var accts []*privacy.Accountant
	clamped := 0
	for i, t := range o.Owners {
		id := fmt.Sprintf("owner-%d", i+1)
		params.Owners = append(params.Owners, id)
		if !t.Schema.Equal(schema) {
			return nil, fmt.Errorf("publish: %s's schema differs from owner-1's", id)
		}
	}
	for i, t := range o.Owners {
		id := params.Owners[i]
		X, st, err := enc.Encode(t)
		if err != nil {
			return nil, fmt.Errorf("publish: %s: %w", id, err)
		}
		clamped += st.Clamped
		acct, err := privacy.NewAccountant(privacy.AccountantOptions{Party: id, Budget: budget})
		if err != nil {
			return nil, fmt.Errorf("publish: %w", err)
		}
		owner, err := ppcadpmh.NewOwner(ppcadpmh.OwnerOptions{ID: id, Params: params, Data: X,
			Accountant: acct, Source: o.Source.Child()})
		if err != nil {
			return nil, fmt.Errorf("publish: %w", err)
		}
		roles = append(roles, owner)
		accts = append(accts, acct)
	}
	curator, err := ppcadpmh.NewCurator(params)
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	start := time.Now()
	traffic, err := protocol.RunLocal(ctx, append(roles, curator)...)
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	res, err := curator.Result()
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	report, err := PPCAReport(PPCAReportOptions{Params: params, Accountants: accts, Counts: res.Counts,
		Secure: o.Source.IsSecure(), Randomness: o.Source.Describe()})
	if err != nil {
		return nil, err
	}
	return &PPCAResult{Synthetic: enc.Decode(res.Synthetic), Report: report, Model: res.Model, Encoder: enc,
		Clamped: clamped, Traffic: traffic, Elapsed: time.Since(start)}, nil
}

// RowBoundsOf reads the column groups of an encoder: one group per
// attribute (a one-hot block or a single scalar column).
func RowBoundsOf(enc *data.Encoder) (ppca.RowBounds, error) {
	b := ppca.RowBounds{P: enc.Dim()}
	next := 0
	for _, a := range enc.Attributes() {
		cols, err := enc.Columns(a)
		if err != nil {
			return b, fmt.Errorf("publish: %w", err)
		}
		for k, c := range cols {
			if c != next+k {
				return b, fmt.Errorf("publish: encoder columns of %q are not contiguous", a)
			}
		}
		next += len(cols)
		b.Groups = append(b.Groups, len(cols))
	}
	return b, b.Validate()
}

// PPCAReportOptions is what a PPCA-DP-MH privacy report depends on; the
// in-process pipeline and the networked runner build it the same way, so
// the same session publishes the same report wherever it runs.
type PPCAReportOptions struct {
	Params      ppcadpmh.Params
	Accountants []*privacy.Accountant
	Counts      map[string]int
	Secure      bool   // randomness from a CSPRNG
	Randomness  string // how the randomness was drawn, for the report
}

// PPCAReport builds the privacy report of a PPCA-DP-MH session.
func PPCAReport(o PPCAReportOptions) (*privacy.Report, error) {
	params := o.Params
	ro := privacy.ReportOptions{
		Method: "ppca-dp-mh", Calibration: string(params.Plan.Calibration), Randomness: o.Randomness,
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
	threats, err := ppcaThreatModel(params)
	if err != nil {
		return nil, err
	}
	ro.ThreatModel = append(ro.ThreatModel, threats...)
	return privacy.NewReport(ro)
}

// ppcaThreatModel states who sees what. In secure-aggregate mode it also
// states what a curator colluding with the other m−1 owners learns about
// the remaining owner: that owner's own noise share is then all that
// protects its statistics, and the guarantee of that share alone is
// computed from its distribution.
func ppcaThreatModel(params ppcadpmh.Params) ([]string, error) {
	if params.Noise != ppcadpmh.SecureAggregate {
		return []string{"local noise: each owner noises its own statistics before they leave it; the semi-trusted curator and any coalition see only DP statistics"}, nil
	}
	plan, err := ppca.NewPlan(params.Plan)
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	return []string{
		"secure-aggregate noise: owners and curator are honest-but-curious; the curator sees only the masked sum of the owners' statistics, which carries the noise of one centralised release",
		collusionSentence(plan, len(params.Owners), params.Plan),
	}, nil
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
		eps, units := ppcaShareEpsilon(plan, m)
		return lead + fmt.Sprintf(": per entry a difference of two Pólya NB(1/%d, e^{−1/t}) draws on its block's grid (t, the discrete Laplace scale in grid steps, is %.4g for Σx and %.4g for Σxxᵀ), whose probabilities at neighbouring grid points differ by a factor up to %d·e^{1/t} instead of e^{1/t}: that owner's statistics then keep only ε ≤ %.4g, a vacuous guarantee (treat them as unprotected), instead of its budget ε = %g",
			m, units[0], units[1], m, eps, po.Epsilon)
	}
	full, share := ppcaShareRho(plan, 1), ppcaShareRho(plan, m)
	s := lead + fmt.Sprintf(": N(0, σ²/%d) per entry, i.e. ρ·m-zCDP where ρ = %.4g is the full noise's: %v for that owner's statistics", m, full.Rho, share)
	if a, err := share.ToApprox(po.Delta); err == nil {
		s += fmt.Sprintf(", ≈ %v", a)
	}
	return s + fmt.Sprintf(", instead of its budget %v", dp.Approx(po.Epsilon, po.Delta))
}

// ppcaShareRho is the zCDP guarantee of Gaussian noise σ/√m on every
// release of the plan (one owner's share of m): Δ²·m/(2σ²) per release
// (L2 sensitivity Δ), summed.
func ppcaShareRho(plan *ppca.Plan, m int) dp.Guarantee {
	rho := 0.0
	for _, c := range plan.Charges {
		d, sigma := c.Spec.Sensitivity, c.Spec.Scale
		rho += d * d * float64(m) / (2 * sigma * sigma)
	}
	return dp.Concentrated(rho)
}
