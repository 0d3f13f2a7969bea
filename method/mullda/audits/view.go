package audits

import (
	"cmp"
	"fmt"
	"regexp"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/dp"
	mulldaspec "github.com/dppub/dppub/method/mullda"
	"github.com/dppub/dppub/method/mullda/lda"
	mullda "github.com/dppub/dppub/method/mullda/roles"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// The audit of this file adds to the Mul-LDA-DP publisher's view (the
// mul-lda-dp audit) what colluding owners know of their own noise: the
// dealer's zero-sum share each of them received. Their own discrete
// Gaussian is independent of everything else, so it, and their messages,
// tell nothing more about owner 1; their shares do, because the shares
// sum to zero with owner 1's.

// VariantNoOwnNoise: every owner sends its statistics plus the dealer's
// share only, without its own noise (as if the shares, of variance
// (M−1)σ²/M each, were the noise). The shares cancel in the aggregate,
// and with them everything that hid owner 1 from a coalition that knows
// all shares but owner 1's.
const VariantNoOwnNoise = "no-own-noise"

// addView adds the view audit of the dealer and owner roles.
func addView(fam *audit.Family) {
	name := "view-" + mulldaspec.NameMulti
	fam.Add(audit.Method{Name: name, Summary: "Mul-LDA-DP, real dealer and owner roles, correlated noise: the publisher's view plus the dealer's shares of owner 2 (--view colluder) or of owners 2 and 3 (coalition); M = 3, p = 2, ε = 2, δ = 1e-3; claim: the report's collusion sentence",
		Calibrations: []string{audit.VariantSound, VariantNoOwnNoise}, FastRuns: 2_000, LongRuns: 100_000,
		Build: func(o audit.MethodOptions) (audit.Mechanism, error) {
			return ViewMulLDA(o.View, o.Calibration, cmp.Or(o.Epsilon, 2), cmp.Or(o.Delta, 1e-3))
		}},
		audit.Case{Method: name, Options: audit.MethodOptions{View: audit.ViewCoalition}, Expect: audit.Pass},
		audit.Case{Method: name, Options: audit.MethodOptions{View: audit.ViewColluder}, Expect: audit.Pass, Long: true})
}

// viewMulLDAOwners is M: the smallest coalition short of every other
// owner is then one owner.
const viewMulLDAOwners = 3

// ViewMulLDA audits Mul-LDA-DP (M = 3 owners, sound calibration,
// correlated noise; the pair of MulLDA) against the publisher colluding
// with owner 2 (ViewColluder) or with owners 2 and 3 (ViewCoalition),
// each of whom gives the publisher the share the dealer sent it. The view
// is owner 1's message, the messages of the owners outside the coalition,
// the publisher's share ḡ₀ and the coalition's shares; the statistic is
// its exact Gaussian log-likelihood ratio (the shares' covariance from
// zeroSumCov's construction). The claim is the report's collusion
// sentence, which states the guarantee against the publisher with the
// other M−1 owners (their shares give it owner 1's, leaving owner 1's own
// N(0, σ²/M)): one colluder knows less than two, so its view must also
// pass.
func ViewMulLDA(view audit.View, variant string, eps, delta float64) (audit.Mechanism, error) {
	if view == "" {
		view = audit.ViewColluder
	}
	if variant == "" {
		variant = audit.VariantSound
	}
	colluders := map[audit.View][]int{audit.ViewColluder: {1}, audit.ViewCoalition: {1, 2}}[view]
	if colluders == nil {
		return audit.Mechanism{}, fmt.Errorf("audit: view-%s view must be %s or %s, got %q", mulldaspec.NameMulti, audit.ViewColluder, audit.ViewCoalition, view)
	}
	if variant != audit.VariantSound && variant != VariantNoOwnNoise {
		return audit.Mechanism{}, fmt.Errorf("audit: view-%s has no variant %q (want %s or %s)", mulldaspec.NameMulti, variant, audit.VariantSound, VariantNoOwnNoise)
	}
	s, err := newMulLDASession(MulLDAOptions{Owners: viewMulLDAOwners, Epsilon: eps, Delta: delta, Calibration: lda.Sound, Noise: lda.Correlated})
	if err != nil {
		return audit.Mechanism{}, err
	}
	v := &mulLDAView{s: s, colluders: colluders, plain: variant == VariantNoOwnNoise}
	for owner := range viewMulLDAOwners {
		if !v.colluding(owner) {
			v.messages = append(v.messages, owner)
		}
	}
	claim, err := v.reportedCollusion()
	if err != nil {
		return audit.Mechanism{}, err
	}
	llr, err := v.llr()
	if err != nil {
		return audit.Mechanism{}, err
	}
	if err := audit.CheckRelease(v.release, v.dim()); err != nil {
		return audit.Mechanism{}, err
	}
	return audit.Mechanism{
		Name:      fmt.Sprintf("mul-lda-dp, publisher with owner(s) %v (%s, correlated noise, M=%d, p=%d, ε=%g, δ=%g)", oneBased(colluders), variant, viewMulLDAOwners, mulLDAP, eps, delta),
		Claim:     claim,
		Pair:      s.pairText,
		Dim:       v.dim(),
		Release:   v.release,
		Statistic: llr,
	}, nil
}

func oneBased(xs []int) []int {
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = x + 1
	}
	return out
}

type mulLDAView struct {
	s         *mulLDASession
	colluders []int // owner indices (from 0) whose shares the publisher learns
	messages  []int // owners whose messages are in the view (owner 1 first)
	plain     bool  // VariantNoOwnNoise
}

func (v *mulLDAView) colluding(owner int) bool {
	for _, c := range v.colluders {
		if c == owner {
			return true
		}
	}
	return false
}

// parts of the view, each one party's entries: the messages, ḡ₀, then
// the colluders' shares.
func (v *mulLDAView) parts() int { return len(v.messages) + 1 + len(v.colluders) }

func (v *mulLDAView) dim() int { return v.parts() * len(v.s.sigma) }

var collusionPattern = regexp.MustCompile(`degrades to \(ε=([0-9.e+-]+), δ=([0-9.e+-]+)\)`)

// reportedCollusion reads the guarantee the session's privacy report
// states for one owner against the publisher colluding with the other
// owners.
func (v *mulLDAView) reportedCollusion() (dp.Guarantee, error) {
	plan := v.s.plan
	var accts []*privacy.Accountant
	for _, name := range v.s.params.Owners {
		a, err := privacy.NewAccountant(privacy.AccountantOptions{Party: name, Budget: plan.Claimed()})
		if err != nil {
			return dp.Guarantee{}, err
		}
		accts = append(accts, a)
	}
	o := plan.Options
	r, err := mulldaspec.Report(mulldaspec.ReportInput{Method: mulldaspec.NameMulti, Owners: o.Owners, Calibration: o.Calibration, Noise: o.Noise, Delta: o.Delta, Secure: true, Randomness: "audit"}, plan, accts, 0)
	if err != nil {
		return dp.Guarantee{}, fmt.Errorf("audit: %w", err)
	}
	g, ok, err := audit.ReportedGuarantee(collusionPattern, "", r.ThreatModel)
	if err == nil && !ok {
		err = fmt.Errorf("audit: the report states no guarantee against colluders: %q", r.ThreatModel)
	}
	return g, err
}

// release runs the dealer and every owner up to their last statistics
// message and writes the view: the messages, ḡ₀, the colluders' shares.
func (v *mulLDAView) release(side audit.Side, src *randx.Source, out []float64) error {
	s := v.s
	e := len(s.sigma)
	dealer, err := mullda.NewNoiseDealer(mullda.DealerOptions{Params: s.params, Source: src})
	if err != nil {
		return err
	}
	shares, err := dealer.Start()
	if err != nil {
		return err
	}
	share := func(party int) ([]float64, error) {
		var g mullda.Shares
		if err := g.UnmarshalBinary(shares[party].Payload); err != nil {
			return nil, err
		}
		return s.shareValues(g)
	}
	means, err := protocol.Seal(s.params.Session, s.params.Publisher, "", mullda.Means{Classes: mulLDAClasses, P: mulLDAP,
		Means: make([]float64, mulLDAClasses*mulLDAP), Counts: make([]float64, mulLDAClasses)})
	if err != nil {
		return err
	}
	at := 0
	put := func(part []float64) {
		copy(out[at*e:(at+1)*e], part)
		at++
	}
	for owner, id := range s.params.Owners {
		part, err := s.runOwner(owner, id, side, src, shares, means)
		if err != nil {
			return err
		}
		if v.colluding(owner) {
			continue
		}
		if v.plain {
			if part, err = v.withoutOwnNoise(side, owner, share); err != nil {
				return err
			}
		}
		put(part)
	}
	g0, err := share(0)
	if err != nil {
		return err
	}
	put(g0)
	for _, c := range v.colluders {
		g, err := share(c + 1)
		if err != nil {
			return err
		}
		put(g)
	}
	return nil
}

// withoutOwnNoise is VariantNoOwnNoise's message of an owner: its
// statistics on their blocks' grids plus its share.
func (v *mulLDAView) withoutOwnNoise(side audit.Side, owner int, share func(int) ([]float64, error)) ([]float64, error) {
	s := v.s
	g, err := share(owner + 1)
	if err != nil {
		return nil, err
	}
	var grids [][]float64
	for _, block := range []func() (lda.BlockNoise, error){s.plan.SumsNoise, s.plan.CountsNoise, s.plan.SecondNoise} {
		bn, err := block()
		if err != nil {
			return nil, err
		}
		grids = append(grids, []float64{bn.Plan.Grid})
	}
	sums, counts, upper := mulLDAClasses*mulLDAP, mulLDAClasses, lda.UpperLen(mulLDAP)
	grid := s.entries(audit.Fill(sums, grids[0][0]), audit.Fill(counts, grids[1][0]), audit.Fill(upper, grids[2][0]))
	out := make([]float64, len(g))
	for k, x := range s.exact[side][owner] {
		out[k] = audit.SnapToGrid(x, grid[k]) + g[k]
	}
	return out, nil
}

// llr is the exact log-likelihood ratio of the view: entries are
// independent across statistics; across the view's parts entry k has
// covariance σ_k²·C (viewCov), and only owner 1's message moves, by Δ_k,
// so LLR = Σ_k (Δ_k/σ_k²) Σ_j (C⁻¹)_{0j} (v_jk − mid_jk).
func (v *mulLDAView) llr() (func([]float64) float64, error) {
	w, err := firstInverseColumn(v.viewCov())
	if err != nil {
		return nil, err
	}
	return v.s.linearLLR(w, v.messages), nil
}

// viewCov is the view's noise covariance for σ = 1: share parties 0 (the
// publisher) to M (owner m is party m+1) with Cov(ḡ_i, ḡ_j) =
// s²(δ_ij − 1/(M+1)), s² = (M²−1)/M² (zeroSumCov's construction), plus
// 1/M, an owner's own noise, on a message's variance.
func (v *mulLDAView) viewCov() *mat.SymDense {
	type part struct {
		party int
		msg   bool
	}
	var parts []part
	for _, owner := range v.messages {
		parts = append(parts, part{owner + 1, true})
	}
	parts = append(parts, part{0, false})
	for _, c := range v.colluders {
		parts = append(parts, part{c + 1, false})
	}
	m := float64(viewMulLDAOwners)
	s2 := (m*m - 1) / (m * m)
	cov := mat.NewSymDense(len(parts), nil)
	for i, a := range parts {
		for j := i; j < len(parts); j++ {
			b := parts[j]
			c := -s2 / (m + 1)
			if a.party == b.party {
				c += s2
				if a.msg && b.msg {
					c += 1 / m
				}
			}
			cov.SetSym(i, j, c)
		}
	}
	return cov
}
