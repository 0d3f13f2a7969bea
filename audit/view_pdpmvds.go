package audit

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/dppub/dppub/algo/marginal"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/method"
	pdpspec "github.com/dppub/dppub/method/pdpmvds"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	proto "github.com/dppub/dppub/protocol/pdpmvds"
	"github.com/dppub/dppub/randx"
)

// The audits of this file look at a PDP-MVDS run (commodity suite, the
// setup of pipeline-pdp-mvds: two parties of columns a1 | a2 a3 at
// ρ = 0.04 each) from inside, as view.go and view_rows.go do for other
// methods: the real roles of the method (method.BuildLocal, Join,
// Coordinate) run under protocol.RunLocal, each wrapped in
// protocol.Recorder. The canary changes party 1's column only (record 0's
// a1 becomes the rare category), so the claim is party 1's personalised
// budget as the report states it for the viewer.

// Views of a PDP-MVDS run.
const (
	// ViewThirdParty is what S receives.
	ViewThirdParty ZeroSumView = "third-party"
)

// VariantNoiseFree: the parties send the coordinator their shares of the
// statistic without noise (every "totals" and local "result" of a
// marginal rewritten at the coordinator's door into the exact counts),
// as a protocol that trusted the coordinator would. Built by rewriting
// messages in the audit, not in the protocol.
const VariantNoiseFree = "noise-free"

const viewPDPMVDS = "view-pdp-mvds"

func init() {
	register(Method{Name: viewPDPMVDS, Summary: fmt.Sprintf("PDP-MVDS from inside (%d parties of columns a1 | a2 a3, ρ = %g each, commodity suite, canary in party 1's column): every release the coordinator receives (--view coordinator), what S receives (third-party), or the coordinator with party 2 (colluder); --mechanism exact for the exact noise mode; claim: the report's guarantee for that viewer",
		pipelineParties, pipelineRho),
		Calibrations: []string{VariantSound, VariantNoiseFree}, FastRuns: 300, LongRuns: 5_000,
		build: func(o MethodOptions) (Mechanism, error) { return ViewPDPMVDS(o.View, o.Mechanism, o.Calibration) }},
		Case{Method: viewPDPMVDS, Options: MethodOptions{View: ViewCoordinator}, Expect: Pass},
		Case{Method: viewPDPMVDS, Options: MethodOptions{View: ViewThirdParty}, Expect: Pass, Long: true},
		Case{Method: viewPDPMVDS, Options: MethodOptions{View: ViewColluder, Mechanism: string(proto.NoiseExact)}, Expect: Pass, Long: true})
}

// ViewPDPMVDS audits PDP-MVDS from the view named, in noise mode mode (""
// for insider-safe, or "exact") and variant (VariantSound or
// VariantNoiseFree).
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
//   - third-party (S): the requests (with their public reference one-way
//     counts, noisy releases), its own deals and noise, and the masked
//     sign queries. The latter's |t·r + r'| per cell are listed NOT
//     covered by the report and are left out of the statistic; the
//     statistic is the projection of the reference counts of a1 in the
//     first score request S received on the canary's move. Claim: party 1's spent budget
//     (insider-safe and exact both hold against S).
//   - colluder: party 2 hosting the coordinator (Algorithm 3's P_x). In
//     the commodity suite a holder adds its own noise share inside its
//     role; it never leaves it, so the audit cannot subtract it and the
//     statistic is the coordinator's (with the sign bits, NOT covered,
//     left out). Claim: the report's sentence for a single party: the
//     spent budget insider-safe, ρ·m/(m−1) (m = 2) in exact mode.
//
// Every claim is read off the report of a sound run at construction and
// stated as (ε, δ) at the session's δ.
func ViewPDPMVDS(view ZeroSumView, mode, variant string) (Mechanism, error) {
	if view == "" {
		view = ViewCoordinator
	}
	if variant == "" {
		variant = VariantSound
	}
	if view != ViewCoordinator && view != ViewThirdParty && view != ViewColluder {
		return Mechanism{}, fmt.Errorf("audit: %s view must be %s, %s or %s, got %q", viewPDPMVDS, ViewCoordinator, ViewThirdParty, ViewColluder, view)
	}
	if mode == "" {
		mode = string(proto.NoiseInsiderSafe)
	}
	if mode != string(proto.NoiseInsiderSafe) && mode != string(proto.NoiseExact) {
		return Mechanism{}, fmt.Errorf("audit: %s has no noise mode %q (want %s or %s)", viewPDPMVDS, mode, proto.NoiseInsiderSafe, proto.NoiseExact)
	}
	if variant != VariantSound && variant != VariantNoiseFree {
		return Mechanism{}, fmt.Errorf("audit: %s has no variant %q (want %s or %s)", viewPDPMVDS, variant, VariantSound, VariantNoiseFree)
	}
	h, err := newPDPHarness(proto.NoiseMode(mode))
	if err != nil {
		return Mechanism{}, err
	}
	sound, err := h.run(D, randx.NewSeeded(0), false)
	if err != nil {
		return Mechanism{}, fmt.Errorf("audit: %s: %w", viewPDPMVDS, err)
	}
	claim, err := pdpClaim(sound.report, view)
	if err != nil {
		return Mechanism{}, err
	}
	if claim, err = claim.ToApprox(h.delta); err != nil {
		return Mechanism{}, fmt.Errorf("audit: %s: %w", viewPDPMVDS, err)
	}
	stat := (*pdpTrace).coordinatorLLR
	if view == ViewThirdParty {
		stat = (*pdpTrace).thirdPartyLLR
	}
	return Mechanism{
		Name:  fmt.Sprintf("pdp-mvds, %s's view (%d parties, ρ=%g each, commodity suite, %s noise, %s)", view, pipelineParties, pipelineRho, mode, variant),
		Claim: claim,
		Pair:  fmt.Sprintf("party 1's column a1 of the canary tables (%d records; D' gives record 0 the rare category of a1, the other parties' columns unchanged)", canaryRecords),
		Dim:   1,
		Release: func(side Side, src *randx.Source, out []float64) error {
			tr, err := h.run(side, src, variant == VariantNoiseFree)
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
func pdpClaim(r *privacy.Report, view ZeroSumView) (dp.Guarantee, error) {
	var spent *dp.Guarantee
	for _, p := range r.Parties {
		if p.Party == proto.PartyID(0) {
			spent = &p.Spent
		}
	}
	if spent == nil {
		return dp.Guarantee{}, fmt.Errorf("audit: the report lists no party %q: %v", proto.PartyID(0), r.Parties)
	}
	if view != ViewColluder {
		return *spent, nil
	}
	for _, w := range r.Warnings {
		if strings.Contains(w, "ρ·m/(m−1)") {
			if spent.Notion != dp.ZCDP {
				return dp.Guarantee{}, fmt.Errorf("audit: party 1's spend %v is not zCDP", *spent)
			}
			m := float64(pipelineParties)
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
	delta  float64
	tables [2][]*data.Table
	data   [2]*marginal.Dataset
}

func newPDPHarness(mode proto.NoiseMode) (*pdpHarness, error) {
	dTab, dCanary, _ := canaryTables(pipelineAttrs, canaryRecords)
	// D' changes party 1's column only: a1 of record 0.
	dPrime := &data.Table{Schema: dTab.Schema}
	for i, row := range dTab.Rows {
		row = append([]float64(nil), row...)
		if i == 0 {
			row[0] = dCanary.Rows[0][0]
		}
		dPrime.Rows = append(dPrime.Rows, row)
	}
	h := &pdpHarness{mode: mode, delta: dp.DefaultDelta(canaryRecords)}
	dom, err := marginal.NewDomain(dTab.Schema, marginal.DomainOptions{})
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	for side, t := range [2]*data.Table{D: dTab, DPrime: dPrime} {
		parts, err := publishVerticalSplit(t, pipelineParties)
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
// split of publish.VerticalSplit for two parties of three columns).
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
	// toS are the requests S received, in order.
	toS    []*proto.Request
	report *privacy.Report
}

// run runs the whole session on side, every draw from src.
func (h *pdpHarness) run(side Side, src *randx.Source, noiseFree bool) (*pdpTrace, error) {
	tr := &pdpTrace{h: h}
	names := []string{proto.PartyID(0), proto.PartyID(1)}
	lo := method.LocalOptions{Coordinator: proto.CoordinatorID, Source: randx.NewSeeded(src.Uint64()), Data: map[string]*data.Table{},
		Members: map[string][]string{method.RoleOwner: names, pdpspec.RoleThirdParty: {proto.ThirdPartyID}}}
	st := &pdpspec.Settings{Noise: h.mode, Budgets: map[string]float64{}}
	for k, name := range names {
		lo.Data[name] = h.tables[side][k]
		st.Budgets[name] = pipelineRho
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
	var third *protocol.Recorder
	for _, r := range b.Roles {
		rec := &protocol.Recorder{Role: r}
		if r.ID() == proto.ThirdPartyID {
			third = rec
		}
		roles = append(roles, rec)
	}
	if third == nil {
		return nil, fmt.Errorf("audit: no role %q among the members", proto.ThirdPartyID)
	}
	coord := &pdpDoor{inner: &protocol.Recorder{Role: c.Role}, tr: tr, side: side, noiseFree: noiseFree, requests: map[uint64]*proto.Request{}, totals: map[uint64][]protocol.Envelope{}}
	if _, err := protocol.RunLocal(context.Background(), append(roles, coord)...); err != nil {
		return nil, err
	}
	out, err := c.Publish(b.Accountants)
	if err != nil {
		return nil, err
	}
	tr.report = out.Report
	for _, e := range third.Received {
		if e.Type != pdpTypeRequest {
			continue
		}
		q := new(proto.Request)
		if err := q.UnmarshalBinary(e.Payload); err != nil {
			return nil, err
		}
		tr.toS = append(tr.toS, q)
	}
	return tr, nil
}

// pdpDoor sits at the coordinator's door: it reads the requests the
// coordinator sends and the values it receives, and, for
// VariantNoiseFree, rewrites the parties' marginal shares into the exact
// counts before the coordinator reads them.
type pdpDoor struct {
	inner     *protocol.Recorder
	tr        *pdpTrace
	side      Side
	noiseFree bool
	requests  map[uint64]*proto.Request
	totals    map[uint64][]protocol.Envelope
}

func (d *pdpDoor) ID() string { return d.inner.ID() }
func (d *pdpDoor) Done() bool { return d.inner.Done() }

func (d *pdpDoor) Start() ([]protocol.Envelope, error) {
	out, err := d.inner.Start()
	if err != nil {
		return nil, err
	}
	return out, d.read(out)
}

// read notes the requests among the coordinator's messages.
func (d *pdpDoor) read(out []protocol.Envelope) error {
	for _, e := range out {
		if e.Type != pdpTypeRequest {
			continue
		}
		q := new(proto.Request)
		if err := q.UnmarshalBinary(e.Payload); err != nil {
			return err
		}
		d.requests[q.ID] = q
	}
	return nil
}

func (d *pdpDoor) Handle(e protocol.Envelope) ([]protocol.Envelope, error) {
	var m proto.Body
	if err := m.UnmarshalBinary(e.Payload); err != nil {
		return nil, err
	}
	q := d.requests[m.ID]
	if q == nil {
		return nil, fmt.Errorf("audit: %s for request %d, which the coordinator never sent", m.Kind, m.ID)
	}
	switch {
	case m.Kind == "result" && q.Kind != proto.KindSetup:
		if q.Kind == proto.KindMarginal && d.noiseFree {
			exact, _, err := d.tr.h.exact(d.side, q)
			if err != nil {
				return nil, err
			}
			m.Floats = exact
			if e, err = protocol.Seal(e.Session, e.From, e.To, &m); err != nil {
				return nil, err
			}
		}
		d.tr.releases = append(d.tr.releases, pdpRelease{q: q, values: m.Floats})
		return d.pass(e)
	case m.Kind == "totals":
		d.totals[m.ID] = append(d.totals[m.ID], e)
		if len(d.totals[m.ID]) < pipelineParties {
			return nil, nil
		}
		return d.assemble(q, d.totals[m.ID])
	}
	return d.pass(e)
}

func (d *pdpDoor) pass(e protocol.Envelope) ([]protocol.Envelope, error) {
	out, err := d.inner.Handle(e)
	if err != nil {
		return nil, err
	}
	return out, d.read(out)
}

// assemble reads (and for VariantNoiseFree rewrites) the holders' totals
// of one request, then passes them on. A marginal's ring value is its
// count in grid steps plus the noise in grid steps (the commodity
// suite's encoding: fine = 1), so the release is G·Σ words.
func (d *pdpDoor) assemble(q *proto.Request, es []protocol.Envelope) ([]protocol.Envelope, error) {
	bodies := make([]proto.Body, len(es))
	for i, e := range es {
		if err := bodies[i].UnmarshalBinary(e.Payload); err != nil {
			return nil, err
		}
	}
	if q.Kind == proto.KindMarginal {
		exact, grid, err := d.tr.h.exact(d.side, q)
		if err != nil {
			return nil, err
		}
		if d.noiseFree {
			// The first holder's share becomes the exact counts minus
			// the others'.
			w := bodies[0].Words
			for c := range w {
				w[c] = uint64(int64(math.Round(exact[c] / grid)))
				for _, b := range bodies[1:] {
					w[c] -= b.Words[c]
				}
			}
			e, err := protocol.Seal(es[0].Session, es[0].From, es[0].To, &bodies[0])
			if err != nil {
				return nil, err
			}
			es[0] = e
		}
		vals := make([]float64, len(bodies[0].Words))
		for c := range vals {
			var sum uint64
			for _, b := range bodies {
				sum += b.Words[c]
			}
			vals[c] = float64(int64(sum)) * grid
		}
		d.tr.releases = append(d.tr.releases, pdpRelease{q: q, values: vals})
	}
	var out []protocol.Envelope
	for _, e := range es {
		more, err := d.pass(e)
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	return out, nil
}

// exact are the exact counts of q's marginal on side and its grid.
func (h *pdpHarness) exact(side Side, q *proto.Request) ([]float64, float64, error) {
	m, err := marginal.Count(h.data[side], q.Attrs)
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
func releaseLLR(y, cD, cDp []float64, noise marginal.Noise, v float64) float64 {
	s := 0.0
	for c := range y {
		d := cDp[c] - cD[c]
		if d == 0 {
			continue
		}
		if noise.Mechanism == marginal.Laplace {
			s += (math.Abs(y[c]-cD[c]) - math.Abs(y[c]-cDp[c])) / noise.Scale
		} else {
			s += d * (y[c] - cD[c] - d/2) / v
		}
	}
	return s
}

// coordinatorLLR sums releaseLLR over the marginals over a1 the
// coordinator received.
func (tr *pdpTrace) coordinatorLLR() (float64, error) {
	k := float64(pipelineParties)
	llr := 0.0
	for _, r := range tr.releases {
		if r.q.Kind != proto.KindMarginal || !touchesA1(r.q.Attrs) {
			continue
		}
		cD, _, err := tr.h.exact(D, r.q)
		if err != nil {
			return 0, err
		}
		cDp, _, err := tr.h.exact(DPrime, r.q)
		if err != nil {
			return 0, err
		}
		if len(r.values) != len(cD) {
			return 0, fmt.Errorf("audit: request %d released %d values for %d cells", r.q.ID, len(r.values), len(cD))
		}
		n := r.q.Release.Noise
		v := n.Scale * n.Scale
		if len(r.q.Attrs) > 1 && tr.h.mode == proto.NoiseInsiderSafe {
			v *= (k + 1) / k
		}
		llr += releaseLLR(r.values, cD, cDp, n, v)
	}
	return llr, nil
}

// thirdPartyLLR is the projection of the reference one-way counts of a1
// in the first score request S received on the canary's move (0 if none: S then saw no value
// that depends on a1, beyond what the report leaves uncovered).
func (tr *pdpTrace) thirdPartyLLR() (float64, error) {
	for _, q := range tr.toS {
		if q.Kind != proto.KindScore || len(q.Attrs) != 2 {
			continue
		}
		ref := q.RefA
		if q.Attrs[1] == 0 {
			ref = q.RefB
		} else if q.Attrs[0] != 0 {
			continue
		}
		one := &proto.Request{Kind: proto.KindMarginal, Attrs: []int{0}}
		for _, r := range tr.releases {
			if r.q.Kind == proto.KindMarginal && len(r.q.Attrs) == 1 && r.q.Attrs[0] == 0 {
				one = r.q
			}
		}
		if one.ID == 0 {
			return 0, fmt.Errorf("audit: score request %d refers to a1 before its one-way marginal was released", q.ID)
		}
		cD, _, err := tr.h.exact(D, one)
		if err != nil {
			return 0, err
		}
		cDp, _, err := tr.h.exact(DPrime, one)
		if err != nil {
			return 0, err
		}
		if len(ref) != len(cD) {
			return 0, fmt.Errorf("audit: score request %d carries %d reference counts of a1, want %d", q.ID, len(ref), len(cD))
		}
		// The references are the engine's post-processed one-way counts
		// (consistent, non-negative), not the raw release: the statistic
		// is their projection on the canary's move, Σ_c Δ_c·ref_c.
		t := 0.0
		for c, r := range ref {
			t += (cDp[c] - cD[c]) * r
		}
		return t, nil
	}
	return 0, nil
}

// pdpTypeRequest is the envelope type of a proto.Request.
var pdpTypeRequest = (*proto.Request)(nil).MessageType()
