package audits

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/dp"
	mppca "github.com/dppub/dppub/method/ppcadpmh"
	"github.com/dppub/dppub/method/ppcadpmh/ppca"
	ppcadpmh "github.com/dppub/dppub/method/ppcadpmh/roles"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// The audits of this file look at a multi-party run from inside: what
// the coordinator receives, and what an owner colluding with it knows (its
// own mask seeds, noise share and data, plus the coordinator's
// transcript), and compare it with what the privacy report states for
// that view. The messages are captured by wrapping the real roles in
// protocol.Recorder and running them with protocol.RunLocal.

// Claims a view audit compares with (the Calibration of its options).
const (
	// ClaimReport is the guarantee the privacy report states for the
	// view: the owner's budget for the coordinator, the threat model's
	// collusion sentence for colluders.
	ClaimReport = "report"
	// ClaimBudget is the owner's budget whatever the view: colluding
	// views are expected to exceed it, as the report warns.
	ClaimBudget = "budget"
)

// addView adds the audit of the real roles' messages.
func addView(fam *audit.Family) {
	fam.Add(audit.Method{Name: "view-ppca-dp-mh", Summary: "PPCA-DP-MH secure-aggregate, the real roles' messages as seen by the curator (--view coordinator), by the curator with owner 2 (colluder) or with owners 2 and 3 (coalition); 3 owners, p = 3, Gaussian (ε = 2, δ = 1e-5); claim: the report's sentence for that view, or the budget",
		Calibrations: []string{ClaimReport, ClaimBudget}, FastRuns: 1_000, LongRuns: 20_000,
		Build: func(o audit.MethodOptions) (audit.Mechanism, error) {
			return ViewPPCA(o.View, o.Calibration, cmp.Or(o.Epsilon, 2), cmp.Or(o.Delta, 1e-5))
		}},
		audit.Case{Method: "view-ppca-dp-mh", Options: audit.MethodOptions{View: audit.ViewCoordinator}, Expect: audit.Pass},
		audit.Case{Method: "view-ppca-dp-mh", Options: audit.MethodOptions{View: audit.ViewColluder}, Expect: audit.Pass},
		audit.Case{Method: "view-ppca-dp-mh", Options: audit.MethodOptions{View: audit.ViewCoalition}, Expect: audit.Pass})
}

// viewPPCAP is the number of columns of the view audits: small, so a full
// protocol run (masks, fit and synthetic rows) costs well under a
// millisecond.
const viewPPCAP = 3

// viewOtherRows is the number of rows of owners 2 and 3 each.
const viewOtherRows = 200

// ViewPPCA audits PPCA-DP-MH in secure-aggregate mode from the inside:
// three real protocol owners and the real curator run the whole protocol
// (mask seeds, masked statistics, model, synthetic rows), each wrapped in
// protocol.Recorder. Owner 1 holds the pair of PPCADPMH (p = 3, its
// all-zeros row replaced by all u ≈ 1, off every grid), owners 2 and 3 fixed rows.
//
// What each view can compute about owner 1 from its transcript:
//   - coordinator: the unmasked sum of the three owners' words, one noise
//     draw of the full plan (the shares add up to it);
//   - colluder (curator + owner 2): that sum minus owner 2's own word,
//     which owner 2 recovers from its own message and its mask seeds, so
//     two shares (2/3 of the noise variance) remain;
//   - coalition (curator + owners 2 and 3): owner 1's word alone, its own
//     share (1/3 of the variance).
//
// The statistic is the Gaussian LLR over Σx and Σxxᵀ at the remaining
// noise. The claim is the owner's budget (coordinator, or with
// ClaimBudget), else the guarantee the report's collusion sentence states
// (for m − 1 colluders: a single colluder knows less, so it must also
// pass).
func ViewPPCA(view audit.View, claimKind string, eps, delta float64) (audit.Mechanism, error) {
	if view == "" {
		view = audit.ViewCoordinator
	}
	if claimKind == "" {
		claimKind = ClaimReport
	}
	removed := map[audit.View]int{audit.ViewCoordinator: 0, audit.ViewColluder: 1, audit.ViewCoalition: 2}
	k, ok := removed[view]
	if !ok {
		return audit.Mechanism{}, fmt.Errorf("audit: view-ppca-dp-mh view must be %s, %s or %s, got %q", audit.ViewCoordinator, audit.ViewColluder, audit.ViewCoalition, view)
	}
	if claimKind != ClaimReport && claimKind != ClaimBudget {
		return audit.Mechanism{}, fmt.Errorf("audit: view-ppca-dp-mh claim must be %s or %s, got %q", ClaimReport, ClaimBudget, claimKind)
	}
	v, err := newPPCAView(eps, delta)
	if err != nil {
		return audit.Mechanism{}, err
	}
	claim := v.plan.Claimed()
	if view != audit.ViewCoordinator && claimKind == ClaimReport {
		if claim, err = v.reportedCollusion(); err != nil {
			return audit.Mechanism{}, err
		}
	}
	release := func(side audit.Side, src *randx.Source, out []float64) error { return v.release(side, k, src, out) }
	if err := release(audit.DPrime, randx.NewSeeded(0), make([]float64, packedLen(viewPPCAP))); err != nil {
		return audit.Mechanism{}, fmt.Errorf("audit: %w", err)
	}
	return audit.Mechanism{
		Name:      fmt.Sprintf("ppca-dp-mh secure-aggregate, %s's view (3 owners, p=%d, gaussian, ε=%g), claim: %s", view, viewPPCAP, eps, claimKind),
		Claim:     claim,
		Pair:      "owner 1: " + pairDescription(PPCAOptions{}) + "; owners 2 and 3 hold fixed rows",
		Dim:       packedLen(viewPPCAP),
		Release:   release,
		Statistic: v.llr(k),
	}, nil
}

type ppcaView struct {
	params ppcadpmh.Params
	plan   *ppca.Plan
	data   [2]*mat.Dense
	other  *mat.Dense
}

func newPPCAView(eps, delta float64) (*ppcaView, error) {
	d, d2, err := ppcaPair(PPCAOptions{P: viewPPCAP})
	if err != nil {
		return nil, err
	}
	// The other owners' rows: spread over [0, 1] so that the curator's
	// fit has a component above the noise in every run.
	other := mat.NewDense(viewOtherRows, viewPPCAP, nil)
	for r := range viewOtherRows {
		for j := range viewPPCAP {
			other.Set(r, j, float64((r*7+j*3)%10)/10+0.05)
		}
	}
	params := ppcadpmh.Params{
		Session: "audit", Owners: []string{"owner-1", "owner-2", "owner-3"}, Curator: "curator", Noise: ppcadpmh.SecureAggregate,
		Fit:  ppca.FitOptions{K: 1},
		Plan: ppca.PlanOptions{Calibration: ppca.Sound, Mechanism: ppca.Gaussian, Epsilon: eps, Delta: delta, Bounds: ppca.GenericBounds(viewPPCAP)},
	}
	if err := params.Validate(); err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	plan, err := ppca.NewPlan(params.Plan)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	return &ppcaView{params: params, plan: plan, data: [2]*mat.Dense{audit.D: d, audit.DPrime: d2}, other: other}, nil
}

// reportedCollusion reads the guarantee the session's privacy report
// states for owner 1 against the curator colluding with the other owners
// (its threat-model sentence "… ≈ (ε=…, δ=…), instead of its budget …").
func (v *ppcaView) reportedCollusion() (dp.Guarantee, error) {
	var accts []*privacy.Accountant
	counts := map[string]int{}
	for _, name := range v.params.Owners {
		a, err := privacy.NewAccountant(privacy.AccountantOptions{Party: name, Budget: v.plan.Claimed()})
		if err != nil {
			return dp.Guarantee{}, err
		}
		accts, counts[name] = append(accts, a), 2
	}
	r, err := mppca.Report(mppca.ReportOptions{Params: v.params, Accountants: accts, Counts: counts, Secure: true, Randomness: "audit"})
	if err != nil {
		return dp.Guarantee{}, fmt.Errorf("audit: %w", err)
	}
	return collusionClaim(r.ThreatModel)
}

var approxPattern = regexp.MustCompile(`≈ \(ε=([0-9.e+-]+), δ=([0-9.e+-]+)\)`)

// collusionClaim finds the (ε, δ) a threat-model sentence about collusion
// states.
func collusionClaim(sentences []string) (dp.Guarantee, error) {
	g, ok, err := audit.ReportedGuarantee(approxPattern, "collude", sentences)
	if err == nil && !ok {
		err = fmt.Errorf("audit: the report states no (ε, δ) for colluders: %q", sentences)
	}
	return g, err
}

// release runs the whole protocol on side and writes the view that owners
// 2..removed+1 and the curator have of owner 1: the decoded sum of the
// words they cannot unmask.
func (v *ppcaView) release(side audit.Side, removed int, src *randx.Source, out []float64) error {
	curator, err := ppcadpmh.NewCurator(v.params)
	if err != nil {
		return err
	}
	recs := []*protocol.Recorder{{Role: curator}}
	for i, name := range v.params.Owners {
		x := v.other
		if i == 0 {
			x = v.data[side]
		}
		acct, err := privacy.NewAccountant(privacy.AccountantOptions{Party: name, Budget: v.plan.Claimed()})
		if err != nil {
			return err
		}
		w, err := ppcadpmh.NewOwner(ppcadpmh.OwnerOptions{ID: name, Params: v.params, Data: x, Accountant: acct, Source: src.Child()})
		if err != nil {
			return err
		}
		recs = append(recs, &protocol.Recorder{Role: w})
	}
	roles := make([]protocol.Role, len(recs))
	for i, r := range recs {
		roles[i] = r
	}
	if _, err := protocol.RunLocal(context.Background(), roles...); err != nil {
		return err
	}
	stats, seeds, err := transcript(recs)
	if err != nil {
		return err
	}
	for _, owner := range v.params.Owners[1 : 1+removed] {
		word, err := v.unmask(owner, stats[owner], seeds)
		if err != nil {
			return err
		}
		neg := make([]uint64, len(word))
		for i, w := range word {
			neg[i] = -w
		}
		stats["minus "+owner] = ppcadpmh.Statistics{Masked: neg}
	}
	var all []ppcadpmh.Statistics
	for _, s := range stats {
		all = append(all, s)
	}
	agg, err := ppcadpmh.Aggregate(v.params, all)
	if err != nil {
		return err
	}
	copy(out, agg)
	return nil
}

// transcript collects the statistics the curator received (by owner) and
// every mask seed any owner received (by sender and receiver).
func transcript(recs []*protocol.Recorder) (map[string]ppcadpmh.Statistics, map[[2]string][]byte, error) {
	stats := map[string]ppcadpmh.Statistics{}
	seeds := map[[2]string][]byte{}
	for _, r := range recs {
		for _, e := range r.Received {
			switch e.Type {
			case ppcadpmh.TypeStatistics:
				var s ppcadpmh.Statistics
				if err := s.UnmarshalBinary(e.Payload); err != nil {
					return nil, nil, err
				}
				stats[e.From] = s
			case ppcadpmh.TypeMaskSeed:
				var m ppcadpmh.MaskSeed
				if err := m.UnmarshalBinary(e.Payload); err != nil {
					return nil, nil, err
				}
				seeds[[2]string{e.From, e.To}] = m.Seed
			}
		}
	}
	return stats, seeds, nil
}

// unmask is what owner learns of its own word: its masked statistics
// minus the masks it shares with every peer (it drew or received each
// seed). The mask expansion follows the protocol's (ChaCha8 keyed by the
// seed, + towards later owners, − towards earlier); a word outside the
// fixed-point range would mean the expansion drifted from it, and is an
// error, not a silent wrong view.
func (v *ppcaView) unmask(owner string, s ppcadpmh.Statistics, seeds map[[2]string][]byte) ([]uint64, error) {
	idx := indexOf(v.params.Owners, owner)
	word := append([]uint64(nil), s.Masked...)
	for j, peer := range v.params.Owners {
		if j == idx {
			continue
		}
		seed, ok := seeds[[2]string{owner, peer}]
		if !ok {
			seed, ok = seeds[[2]string{peer, owner}]
		}
		if !ok {
			return nil, fmt.Errorf("audit: no mask seed between %s and %s in the transcript", owner, peer)
		}
		var key [32]byte
		copy(key[:], seed)
		g := rand.NewChaCha8(key)
		for i := range word {
			if m := g.Uint64(); j > idx {
				word[i] -= m
			} else {
				word[i] += m
			}
		}
	}
	for i, w := range word {
		if x := int64(w); x > 1<<61 || x < -(1<<61) {
			return nil, fmt.Errorf("audit: %s's unmasked word %d is %d: the audit's mask expansion differs from the protocol's", owner, i, x)
		}
	}
	return word, nil
}

func indexOf(xs []string, x string) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}

// llr is the Gaussian LLR of owner 1's pair for the view that removed
// `removed` of the three owners' words: the exact sums of the remaining
// owners, the noise σ·√((3 − removed)/3) of the remaining shares.
func (v *ppcaView) llr(removed int) func([]float64) float64 {
	var f [2][]float64
	for _, side := range []audit.Side{audit.D, audit.DPrime} {
		f[side] = packMoments(v.data[side])
		o := packMoments(v.other)
		for i := range f[side] {
			f[side][i] += float64(2-removed) * o[i]
		}
	}
	shrink := math.Sqrt(float64(3-removed) / 3)
	scale := make([]float64, len(f[audit.D]))
	for i := range scale {
		scale[i] = v.plan.OuterScale * shrink
		if i < viewPPCAP {
			scale[i] = v.plan.SumScale * shrink
		}
	}
	return audit.GaussianLLR(f[audit.D], f[audit.DPrime], scale)
}
