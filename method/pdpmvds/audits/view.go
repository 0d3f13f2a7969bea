package audits

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/method"
	pdpspec "github.com/dppub/dppub/method/pdpmvds"
	proto "github.com/dppub/dppub/method/pdpmvds/roles"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// The audits of this file look at a PDP-MVDS run (commodity suite, the
// setup of pipeline-pdp-mvds: two parties of columns a1 | a2 a3 at
// ρ = 0.04 each) from inside, as the view audits of method/ppcadpmh/audits and method/rowsynth/audits do for other
// methods: the real roles of the method (method.BuildLocal, Join,
// Coordinate) run under protocol.RunLocal, each wrapped in
// protocol.Recorder. The canary changes party 1's column only (record 0's
// a1 becomes the rare category), so the claim is party 1's personalised
// budget as the report states it for the viewer.

// Views of a PDP-MVDS run.
const (
	// ViewThirdParty is what S receives.
	ViewThirdParty audit.View = "third-party"
)

// VariantNoiseFree: the parties send the coordinator their shares of the
// statistic without noise (every "totals" and local "result" of a
// marginal rewritten at the coordinator's door into the exact counts),
// as a protocol that trusted the coordinator would. Built by rewriting
// messages in the audit, not in the protocol.
const VariantNoiseFree = "noise-free"

// VariantSignUnmasked: the pair of a score sends S its sign queries
// without the random sign s, i.e. shares of r·t + r' instead of
// s·(r·t + r'), so S learns the sign of every t_ij (whether a cell's
// joint count lies below or above what its reference counts predict),
// which the protocol's mask hides from it. Built at S's door: the sum of
// the two queries V becomes sign(t)·|V| (t from the exact counts and the
// request's references), and S's reply is put back to the bits of the
// sound V, so that the parties, the release and the report are the sound
// run's and only S's view changes.
const VariantSignUnmasked = "sign-unmasked"

const viewPDPMVDS = "view-pdp-mvds"

// addView adds the audit of a PDP-MVDS run from inside.
func addView(fam *audit.Family) {
	fam.Add(audit.Method{Name: viewPDPMVDS, Summary: fmt.Sprintf("PDP-MVDS from inside (%d parties of columns a1 | a2 a3, ρ = %g each, commodity suite, canary in party 1's column): every release the coordinator receives (--view coordinator), the signs of the masked sign queries S receives (third-party), or the coordinator's releases minus party 2's own noise shares (colluder); --mechanism exact for the exact noise mode; --calibration noise-free|sign-unmasked for broken parties; claim: the report's guarantee for that viewer",
		audit.PipelineParties, audit.PipelineRho),
		Calibrations: []string{audit.VariantSound, VariantNoiseFree, VariantSignUnmasked}, FastRuns: 300, LongRuns: 5_000,
		Build: func(o audit.MethodOptions) (audit.Mechanism, error) {
			return ViewPDPMVDS(o.View, o.Mechanism, o.Calibration)
		}},
		audit.Case{Method: viewPDPMVDS, Options: audit.MethodOptions{View: audit.ViewCoordinator}, Expect: audit.Pass},
		audit.Case{Method: viewPDPMVDS, Options: audit.MethodOptions{View: ViewThirdParty}, Expect: audit.Pass, Long: true},
		audit.Case{Method: viewPDPMVDS, Options: audit.MethodOptions{View: audit.ViewColluder, Mechanism: string(proto.NoiseExact)}, Expect: audit.Pass, Long: true})
}

// ViewPDPMVDS audits PDP-MVDS from the view named, in noise mode mode (""
// for insider-safe, or "exact") and variant (VariantSound,
// VariantNoiseFree or VariantSignUnmasked).
//
// Views, distinguishers and claims (method/pdpmvds/report.go):
//   - coordinator (honest-but-curious; a MALICIOUS one is not covered,
//     as the report says): every marginal release it assembles, from the
//     totals of the holders or a party's local result. The statistic is
//     the log-likelihood ratio of party 1's pair summed over the
//     marginals over a1 (the adaptive run's likelihood factorises over
//     its releases): Laplace for the local one-way of a1, Gaussian at
//     variance σ²·(K+1)/K (insider-safe, K = 2) or σ² (exact) across
//     parties. Pair scores are left out of the statistic (a valid, less
//     powerful distinguisher). Claim: party 1's spent budget.
//   - third-party (S): in the commodity suite S receives the requests
//     (whose references are post-processed noisy one-way counts, covered
//     by the releases' DP) and, per cross-party score, one sign query
//     from each of the pair. Each query alone is uniform in Z_{2^64} (a
//     random additive share times the pair's mask); their sum V =
//     s·(r·t + r') tells S |r·t + r'|, which the report lists as NOT
//     covered, and by design nothing else: given |V| ≠ 0 the sign of V is
//     the pair's coin s, independent of the data. So the statistic is
//     that part of the view the claim covers and the magnitude does not
//     determine: Σ_c Δ_c·sign(V_c) over the score requests about a1 and
//     the cells the canary moves (Δ_c = N_c(D') − N_c(D) ∈ {−1, +1};
//     sign 0 where V = 0, a fact of the magnitude). Sound, it has the
//     same law on D and D' exactly; if S saw the sign of t
//     (VariantSignUnmasked), it would follow the canary's move. Claim:
//     party 1's spent budget (insider-safe and exact both hold against
//     S).
//   - colluder: party 2 hosting the coordinator (Algorithm 3's P_x). It
//     knows its own noise share of every joint release (the role hands it
//     to its owner through Party.ObserveOwnShares) and subtracts it: the
//     statistic is the coordinator's LLR on the releases minus party 2's
//     share, at the noise left, σ² insider-safe (party 1's and S's
//     shares, any K of the K+1 making up the calibrated noise) and
//     σ²·(K−1)/K exact (party 1's share only). The sign bits the pair
//     learns are NOT covered and left out. Claim: the report's sentence
//     for a single party: the spent budget insider-safe, ρ·m/(m−1)
//     (m = 2) in exact mode.
//
// Every claim is read off the report of a sound run at construction and
// tested as (ε, δ) at the session's δ and by the Rényi test.
func ViewPDPMVDS(view audit.View, mode, variant string) (audit.Mechanism, error) {
	return viewPDPMVDSAt(view, mode, variant, audit.PipelineRho)
}

// viewPDPMVDSAt is ViewPDPMVDS with each party's budget rho: the tests
// raise it to compare views whose privacy loss at PipelineRho is far
// below what a few hundred runs resolve.
func viewPDPMVDSAt(view audit.View, mode, variant string, rho float64) (audit.Mechanism, error) {
	if view == "" {
		view = audit.ViewCoordinator
	}
	if variant == "" {
		variant = audit.VariantSound
	}
	if view != audit.ViewCoordinator && view != ViewThirdParty && view != audit.ViewColluder {
		return audit.Mechanism{}, fmt.Errorf("audit: %s view must be %s, %s or %s, got %q", viewPDPMVDS, audit.ViewCoordinator, ViewThirdParty, audit.ViewColluder, view)
	}
	if mode == "" {
		mode = string(proto.NoiseInsiderSafe)
	}
	if mode != string(proto.NoiseInsiderSafe) && mode != string(proto.NoiseExact) {
		return audit.Mechanism{}, fmt.Errorf("audit: %s has no noise mode %q (want %s or %s)", viewPDPMVDS, mode, proto.NoiseInsiderSafe, proto.NoiseExact)
	}
	if variant != audit.VariantSound && variant != VariantNoiseFree && variant != VariantSignUnmasked {
		return audit.Mechanism{}, fmt.Errorf("audit: %s has no variant %q (want %s, %s or %s)", viewPDPMVDS, variant, audit.VariantSound, VariantNoiseFree, VariantSignUnmasked)
	}
	h, err := newPDPHarness(proto.NoiseMode(mode), rho)
	if err != nil {
		return audit.Mechanism{}, err
	}
	sound, err := h.run(audit.D, randx.NewSeeded(0), audit.VariantSound)
	if err != nil {
		return audit.Mechanism{}, fmt.Errorf("audit: %s: %w", viewPDPMVDS, err)
	}
	claim, err := pdpClaim(sound.report, view)
	if err != nil {
		return audit.Mechanism{}, err
	}
	if _, err = claim.ToApprox(h.delta); err != nil {
		return audit.Mechanism{}, fmt.Errorf("audit: %s: %w", viewPDPMVDS, err)
	}
	stat := func(tr *pdpTrace) (float64, error) { return tr.marginalLLR(false) }
	switch view {
	case ViewThirdParty:
		stat = (*pdpTrace).thirdPartySigns
	case audit.ViewColluder:
		stat = func(tr *pdpTrace) (float64, error) { return tr.marginalLLR(true) }
	}
	return audit.Mechanism{
		Name:  fmt.Sprintf("pdp-mvds, %s's view (%d parties, ρ=%g each, commodity suite, %s noise, %s)", view, audit.PipelineParties, rho, mode, variant),
		Claim: claim, // zCDP: tested at h.delta and by the Rényi test
		Delta: h.delta,
		Pair:  fmt.Sprintf("party 1's column a1 of the canary tables (%d records; D' gives record 0 the rare category of a1, the other parties' columns unchanged)", audit.CanaryRecords),
		Dim:   1,
		Release: func(side audit.Side, src *randx.Source, out []float64) error {
			tr, err := h.run(side, src, variant)
			if err != nil {
				return err
			}
			out[0], err = stat(tr)
			return err
		},
	}, nil
}

// pdpClaim is party 1's guarantee against the viewer as the report states
// it: its spent budget, except against a single party in exact mode,
// where the report's warning states ρ·m/(m−1).
func pdpClaim(r *privacy.Report, view audit.View) (dp.Guarantee, error) {
	var spent *dp.Guarantee
	for _, p := range r.Parties {
		if p.Party == proto.PartyID(0) {
			spent = &p.Spent
		}
	}
	if spent == nil {
		return dp.Guarantee{}, fmt.Errorf("audit: the report lists no party %q: %v", proto.PartyID(0), r.Parties)
	}
	if view != audit.ViewColluder {
		return *spent, nil
	}
	for _, w := range r.Warnings {
		if strings.Contains(w, "ρ·m/(m−1)") {
			if spent.Notion != dp.ZCDP {
				return dp.Guarantee{}, fmt.Errorf("audit: party 1's spend %v is not zCDP", *spent)
			}
			m := float64(audit.PipelineParties)
			return dp.Concentrated(spent.Rho * m / (m - 1)), nil
		}
	}
	for _, c := range r.Covered {
		if strings.Contains(c, "each single party") {
			return *spent, nil
		}
	}
	return dp.Guarantee{}, fmt.Errorf("audit: the report states no guarantee against a single party: %q", r.Covered)
}

// pdpHarness holds what every run shares: the parties' tables on both
// sides of the pair and the encoded joint tables for exact counts.
type pdpHarness struct {
	mode   proto.NoiseMode
	rho    float64
	delta  float64
	tables [2][]*data.Table
	data   [2]*domain.Dataset
}

func newPDPHarness(mode proto.NoiseMode, rho float64) (*pdpHarness, error) {
	dTab, dCanary, _ := audit.CanaryTables(audit.PipelineAttrs, audit.CanaryRecords)
	// D' changes party 1's column only: a1 of record 0.
	dPrime := &data.Table{Schema: dTab.Schema}
	for i, row := range dTab.Rows {
		row = append([]float64(nil), row...)
		if i == 0 {
			row[0] = dCanary.Rows[0][0]
		}
		dPrime.Rows = append(dPrime.Rows, row)
	}
	h := &pdpHarness{mode: mode, rho: rho, delta: dp.DefaultDelta(audit.CanaryRecords)}
	dom, err := domain.New(dTab.Schema, domain.Options{})
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	for side, t := range [2]*data.Table{audit.D: dTab, audit.DPrime: dPrime} {
		parts, err := publishVerticalSplit(t, audit.PipelineParties)
		if err != nil {
			return nil, err
		}
		h.tables[side] = parts
		ds, _, err := dom.Encode(t)
		if err != nil {
			return nil, fmt.Errorf("audit: %w", err)
		}
		h.data[side] = ds
	}
	return h, nil
}

// publishVerticalSplit gives party 1 column a1 and party 2 the rest (the
// split of synthesize.VerticalSplit for two parties of three columns).
func publishVerticalSplit(t *data.Table, parties int) ([]*data.Table, error) {
	if parties != 2 || len(t.Schema.Attributes) != 3 {
		return nil, fmt.Errorf("audit: the view split is for 2 parties of 3 columns, got %d of %d", parties, len(t.Schema.Attributes))
	}
	out := make([]*data.Table, 2)
	for k, cols := range [][]int{{0}, {1, 2}} {
		s := data.Schema{}
		for _, c := range cols {
			s.Attributes = append(s.Attributes, t.Schema.Attributes[c])
		}
		p := &data.Table{Schema: s}
		for _, row := range t.Rows {
			r := make([]float64, len(cols))
			for i, c := range cols {
				r[i] = row[c]
			}
			p.Rows = append(p.Rows, r)
		}
		out[k] = p
	}
	return out, nil
}

// pdpRelease is one release the coordinator assembled.
type pdpRelease struct {
	q      *proto.Request
	values []float64
}

// pdpTrace is one finished run.
type pdpTrace struct {
	h        *pdpHarness
	releases []pdpRelease
	// own is party 2's own noise share of each joint release, in value
	// units, by request, as the role handed it to its owner.
	own map[uint64][]float64
	// noiseless are the requests whose shares VariantNoiseFree rewrote:
	// party 2's drawn share is not in their release.
	noiseless map[uint64]bool
	// signs are the score requests S answered, each with the sum V of
	// the pair's sign queries per cell (after any rewrite: what S saw).
	signs  []pdpSigns
	report *privacy.Report
}

// pdpSigns is one score's sign step as S saw it.
type pdpSigns struct {
	q *proto.Request
	v []uint64
}

// run runs the whole session on side, every draw from src, with the
// parties of variant.
func (h *pdpHarness) run(side audit.Side, src *randx.Source, variant string) (*pdpTrace, error) {
	tr := &pdpTrace{h: h, own: map[uint64][]float64{}, noiseless: map[uint64]bool{}}
	names := []string{proto.PartyID(0), proto.PartyID(1)}
	lo := method.LocalOptions{Coordinator: proto.CoordinatorID, Source: randx.NewSeeded(src.Uint64()), Data: map[string]*data.Table{},
		Members: map[string][]string{method.RoleOwner: names, pdpspec.RoleThirdParty: {proto.ThirdPartyID}}}
	st := &pdpspec.Settings{Noise: h.mode, Budgets: map[string]float64{}}
	for k, name := range names {
		lo.Data[name] = h.tables[side][k]
		st.Budgets[name] = h.rho
	}
	b, err := method.BuildLocal(pdpspec.Spec, st, lo)
	if err != nil {
		return nil, err
	}
	c, err := b.Session.Coordinate(b.Source, nil)
	if err != nil {
		return nil, err
	}
	if c.Cleanup != nil {
		defer c.Cleanup()
	}
	var roles []protocol.Role
	observed := false
	for _, r := range b.Roles {
		if p, ok := method.Unwrap(r).(*proto.Party); ok && p.ID() == proto.PartyID(1) {
			// What party 2's owner knows of its own contribution.
			p.ObserveOwnShares(func(s proto.OwnShare) {
				v := make([]float64, len(s.Steps))
				for i, k := range s.Steps {
					v[i] = float64(k) * s.Grid
				}
				tr.own[s.Request.ID] = v
			})
			observed = true
		}
		if r.ID() == proto.ThirdPartyID {
			r = &pdpSDoor{inner: r, tr: tr, side: side, unmasked: variant == VariantSignUnmasked,
				requests: map[uint64]*proto.Request{}, queries: map[uint64][]protocol.Envelope{}, bits: map[uint64][]uint64{}}
		}
		roles = append(roles, r)
	}
	if !observed {
		return nil, fmt.Errorf("audit: no party role %q among the members", proto.PartyID(1))
	}
	coord := &pdpDoor{inner: &protocol.Recorder{Role: c.Role}, tr: tr, side: side, noiseFree: variant == VariantNoiseFree, requests: map[uint64]*proto.Request{}, totals: map[uint64][]protocol.Envelope{}}
	if _, err := protocol.RunLocal(context.Background(), append(roles, coord)...); err != nil {
		return nil, err
	}
	out, err := c.Publish(b.Accountants)
	if err != nil {
		return nil, err
	}
	tr.report = out.Report
	return tr, nil
}

// exact are the exact counts of q's marginal on side and its grid.
func (h *pdpHarness) exact(side audit.Side, q *proto.Request) ([]float64, float64, error) {
	m, err := domain.Count(h.data[side], q.Attrs)
	if err != nil {
		return nil, 0, fmt.Errorf("audit: %w", err)
	}
	grid, err := proto.NoiseGrid(q.Release.Noise, len(m.Counts))
	if err != nil {
		return nil, 0, fmt.Errorf("audit: %w", err)
	}
	return m.Counts, grid, nil
}

// touchesA1 reports whether attrs include party 1's column.
func touchesA1(attrs []int) bool {
	for _, a := range attrs {
		if a == 0 {
			return true
		}
	}
	return false
}

// releaseLLR is the LLR of party 1's pair for one release of values y
// whose exact counts are cD and cDp, at the noise the view leaves
// (Gaussian of variance v, or Laplace of scale b).
func releaseLLR(y, cD, cDp []float64, noise measurement.Noise, v float64) float64 {
	s := 0.0
	for c := range y {
		d := cDp[c] - cD[c]
		if d == 0 {
			continue
		}
		if noise.Mechanism == measurement.Laplace {
			s += (math.Abs(y[c]-cD[c]) - math.Abs(y[c]-cDp[c])) / noise.Scale
		} else {
			s += d * (y[c] - cD[c] - d/2) / v
		}
	}
	return s
}

// marginalLLR sums releaseLLR over the marginals over a1 the coordinator
// received; for the colluder, each joint one minus party 2's own share,
// at the variance of the shares left. The shares of a joint release
// have variance σ²/parts each, `contributors` of them (insider-safe:
// K+1 of variance σ²/K; exact: K of σ²/K, a1 and one of party 2's
// columns involving every party here).
func (tr *pdpTrace) marginalLLR(colluder bool) (float64, error) {
	k := float64(audit.PipelineParties)
	contributors, parts := k+1, k
	if tr.h.mode == proto.NoiseExact {
		contributors = k
	}
	llr := 0.0
	for _, r := range tr.releases {
		if r.q.Kind != proto.KindMarginal || !touchesA1(r.q.Attrs) {
			continue
		}
		cD, _, err := tr.h.exact(audit.D, r.q)
		if err != nil {
			return 0, err
		}
		cDp, _, err := tr.h.exact(audit.DPrime, r.q)
		if err != nil {
			return 0, err
		}
		if len(r.values) != len(cD) {
			return 0, fmt.Errorf("audit: request %d released %d values for %d cells", r.q.ID, len(r.values), len(cD))
		}
		n := r.q.Release.Noise
		v := n.Scale * n.Scale
		y := r.values
		// a1 is party 1's only column: a marginal over more attributes
		// spans both parties.
		if len(r.q.Attrs) > 1 {
			left := contributors
			if colluder {
				left--
				if y, err = tr.minusOwn(r); err != nil {
					return 0, err
				}
			}
			v *= left / parts
		}
		llr += releaseLLR(y, cD, cDp, n, v)
	}
	return llr, nil
}

// minusOwn is a joint release minus party 2's own share of its noise,
// unless the release carries none (VariantNoiseFree).
func (tr *pdpTrace) minusOwn(r pdpRelease) ([]float64, error) {
	if tr.noiseless[r.q.ID] {
		return r.values, nil
	}
	own, ok := tr.own[r.q.ID]
	if !ok || len(own) != len(r.values) {
		return nil, fmt.Errorf("audit: party 2 reported a share of %d values for request %d of %d values", len(own), r.q.ID, len(r.values))
	}
	y := make([]float64, len(own))
	for c := range y {
		y[c] = r.values[c] - own[c]
	}
	return y, nil
}

// thirdPartySigns is what S could make of the signs of the pair's sign
// queries if they carried sign(t): for every cell of a score request
// about a1 where t = N*_i·N*_j − n·N_ij (the references are in the
// request, so S knows them) is negative on one side of the pair and not
// on the other, +1 when sign(V) is the sign of t on D', −1 when it is
// that on D; cells where V = 0 (t = 0 and r' = 0, a fact of the
// magnitude) count 0. Sound, the signs are the pair's coins, independent
// of the references and of the data, so its law is the same on D and D';
// 0 if S answered no such request.
func (tr *pdpTrace) thirdPartySigns() (float64, error) {
	stat := 0.0
	for _, sq := range tr.signs {
		q := sq.q
		if !touchesA1(q.Attrs) {
			continue
		}
		negD, err := tr.h.negativeT(audit.D, q)
		if err != nil {
			return 0, err
		}
		negDp, err := tr.h.negativeT(audit.DPrime, q)
		if err != nil {
			return 0, err
		}
		if len(sq.v) != len(negD) {
			return 0, fmt.Errorf("audit: S summed %d sign queries for request %d of %d cells", len(sq.v), q.ID, len(negD))
		}
		for c, v := range sq.v {
			if negD[c] == negDp[c] || v == 0 {
				continue
			}
			if (int64(v) < 0) == negDp[c] {
				stat++
			} else {
				stat--
			}
		}
	}
	return stat, nil
}

// negativeT says, for every cell of score request q on side, whether
// t = N*_i·N*_j − n·N_ij < 0: the sign r·t + r' (0 ≤ r' < r) has. It is
// computed in floating point, not at the pair's fixed point 2^−f, so a t
// within 2^−f of 0 may be classed differently from the protocol: such a
// cell only blurs the statistic, on both sides alike.
func (h *pdpHarness) negativeT(side audit.Side, q *proto.Request) ([]bool, error) {
	counts := h.pairCounts(side, q.Attrs)
	nb := len(q.RefB)
	if nb == 0 || len(q.RefA)*nb != len(counts) {
		return nil, fmt.Errorf("audit: score request %d has %d×%d references for %d cells", q.ID, len(q.RefA), nb, len(counts))
	}
	n := float64(audit.CanaryRecords)
	neg := make([]bool, len(counts))
	for c, k := range counts {
		neg[c] = q.RefA[c/nb]*q.RefB[c%nb]-n*k < 0
	}
	return neg, nil
}

// pairCounts are the exact counts of the pair attrs = (a, b) on side in
// the order of a score's cells, a's value major (unlike domain.Count,
// which sorts the attributes).
func (h *pdpHarness) pairCounts(side audit.Side, attrs []int) []float64 {
	ds := h.data[side]
	a, b := attrs[0], attrs[1]
	out := make([]float64, ds.Sizes[a]*ds.Sizes[b])
	for r, x := range ds.Cols[a] {
		out[int(x)*ds.Sizes[b]+int(ds.Cols[b][r])]++
	}
	return out
}
