package audits

import (
	"fmt"
	"math"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/method"
	ppspec "github.com/dppub/dppub/method/ppcadpmh"
	proto "github.com/dppub/dppub/method/ppcadpmh/roles"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// ppcaHostileAttacks are the attacks of a hostile curator on a
// PPCA-DP-MH owner (method/ppcadpmh/roles's Owner, built by the method's Join
// through method.BuildLocal, secure-aggregate noise). The curator sends
// no sensitivity, grid or scale: the owner computes them from the
// session's schema, which must be its table's, so the coordinator's
// levers are the session itself and the model the owner samples its
// synthetic rows from, after paying once for its statistics.
func ppcaHostileAttacks() []audit.HostileAttack {
	model := func(edit func(*proto.ModelMsg)) func(p int) proto.ModelMsg {
		return func(p int) proto.ModelMsg {
			m := ppcaModel(p)
			if edit != nil {
				edit(&m)
			}
			return m
		}
	}
	return []audit.HostileAttack{
		ppcaAttack("narrower model", "sends a model over p − 1 columns (the old owner sliced its rows by the model's width)", audit.HostileRefused, ppcaAfterStatistics,
			func(p int) proto.ModelMsg { return ppcaModel(p - 1) }),
		ppcaAttack("wider model", "sends a model over p + 1 columns", audit.HostileRefused, ppcaAfterStatistics,
			func(p int) proto.ModelMsg { return ppcaModel(p + 1) }),
		ppcaAttack("non-finite mean", "sends a model whose mean holds NaN", audit.HostileRefused, ppcaAfterStatistics,
			model(func(m *proto.ModelMsg) { m.Mean[1] = math.NaN() })),
		ppcaAttack("infinite component", "sends a model whose component holds +Inf", audit.HostileRefused, ppcaAfterStatistics,
			model(func(m *proto.ModelMsg) { m.Components[0] = math.Inf(1) })),
		ppcaAttack("negative noise variance", "sends a model with σ² = −1", audit.HostileRefused, ppcaAfterStatistics,
			model(func(m *proto.ModelMsg) { m.Sigma2 = -1 })),
		ppcaAttack("eigenvalue below the noise variance", "sends a model whose kept eigenvalue is below σ²", audit.HostileRefused, ppcaAfterStatistics,
			model(func(m *proto.ModelMsg) { m.Sigma2 = 2 * m.Eigenvalues[0] })),
		ppcaAttack("more components than columns", "sends a model of k = p + 1 components", audit.HostileRefused, ppcaAfterStatistics,
			model(func(m *proto.ModelMsg) { m.K = len(m.Mean) + 1 })),
		ppcaAttack("model before the statistics", "sends owner 2 the model while it still waits for owner 1's mask seed", audit.HostileRefused, ppcaBeforeStatistics, model(nil)),
		ppcaAttack("replayed model", "sends the model again after the owner streamed its rows", audit.HostileIgnored, ppcaAfterRows, model(nil)),
		ppcaAttack("second model while the rows stream", "sends another model after the first chunk of 3 000 rows of 200 columns (a second would restart the rows)", audit.HostileRefused, ppcaWhileStreaming, model(nil)),
		{Method: ppspec.Name, Name: "mask seed from the curator", Attempt: "sends owner 2 a mask seed as if it were an owner", Expect: audit.HostileRefused, Try: func() (audit.HostileOutcome, error) {
			v, err := newPPCAVictim(ppcaBeforeStatistics)
			if err != nil {
				return audit.HostileOutcome{}, err
			}
			return v.send(proto.MaskSeed{Seed: make([]byte, 32)})
		}},
		ppcaSessionAttack("session with another schema", "sends the session with attribute x in [0, 1000], not the owner's [0, 10] (the owner's sensitivities come from the schema)",
			func(s map[string]any) { audit.Attr(s, 1)["max"] = 1000 }),
		ppcaSessionAttack("session with a negative ε", "sends the session with ε = −1", func(s map[string]any) { s["settings"].(map[string]any)["epsilon"] = -1 }),
		ppcaSessionAttack("session with δ = 1", "sends the session with δ = 1", func(s map[string]any) { s["settings"].(map[string]any)["delta"] = 1 }),
	}
}

// ppcaStage is how far the victim got before the attack.
type ppcaStage int

const (
	// ppcaBeforeStatistics: owner 2, started, still waiting for owner 1's
	// mask seed.
	ppcaBeforeStatistics ppcaStage = iota
	// ppcaAfterStatistics: owner 1, started, its statistics sent.
	ppcaAfterStatistics
	// ppcaAfterRows: owner 1 has also streamed all its synthetic rows.
	ppcaAfterRows
	// ppcaWhileStreaming: owner 1 of 3 000 rows of 200 columns, its first
	// chunk of synthetic rows sent, more to come.
	ppcaWhileStreaming
)

// ppcaVictim is one owner of a two-owner session.
type ppcaVictim struct {
	owner   *proto.Owner
	acct    *privacy.Accountant
	p       int
	curator string
}

// ppcaTable has rows over a categorical attribute of cats categories and
// a numeric x in [0, 10].
func ppcaTable(rows, cats int) *data.Table {
	var names []string
	for c := range cats {
		names = append(names, fmt.Sprintf("v%d", c))
	}
	t := &data.Table{Schema: data.Schema{Attributes: []data.Attribute{
		{Name: "c", Kind: data.Categorical, Categories: names},
		{Name: "x", Kind: data.Numeric, Min: 0, Max: 10},
	}}}
	for i := range rows {
		t.Rows = append(t.Rows, []float64{float64(i % cats), float64(i % 11)})
	}
	return t
}

// ppcaBuild opens the method's session (ε = 1, δ = 10⁻⁵, secure-aggregate,
// k = 1) over two owners of rows rows each.
func ppcaBuild(rows, cats int) (*method.Built, map[string]*data.Table, error) {
	tables := map[string]*data.Table{"owner-1": ppcaTable(rows, cats), "owner-2": ppcaTable(rows, cats)}
	b, err := method.BuildLocal(ppspec.Spec, &ppspec.Settings{Epsilon: 1, Delta: 1e-5, Noise: proto.SecureAggregate, K: 1},
		method.LocalOptions{Members: map[string][]string{method.RoleOwner: {"owner-1", "owner-2"}}, Data: tables, Source: randx.NewSeeded(3)})
	return b, tables, err
}

func newPPCAVictim(stage ppcaStage) (*ppcaVictim, error) {
	rows, cats := 30, 3
	if stage == ppcaWhileStreaming {
		rows, cats = 3000, 199
	}
	b, _, err := ppcaBuild(rows, cats)
	if err != nil {
		return nil, err
	}
	k := 0
	if stage == ppcaBeforeStatistics {
		k = 1
	}
	w, ok := method.Unwrap(b.Roles[k]).(*proto.Owner)
	if !ok {
		return nil, fmt.Errorf("audit: member %d's role is a %T, not a PPCA-DP-MH owner", k+1, b.Roles[k])
	}
	v := &ppcaVictim{owner: w, acct: b.Accountants[k], p: cats + 1, curator: b.Session.Head().Coordinator}
	out, err := w.Start()
	if err != nil {
		return nil, err
	}
	if sent := len(v.acct.Charges()) > 0; sent != (stage != ppcaBeforeStatistics) {
		return nil, fmt.Errorf("audit: owner %d started with %d charges (%d messages)", k+1, len(v.acct.Charges()), len(out))
	}
	if stage == ppcaAfterRows || stage == ppcaWhileStreaming {
		if err := v.honestModel(); err != nil {
			return nil, err
		}
		if v.owner.Done() != (stage == ppcaAfterRows) {
			return nil, fmt.Errorf("audit: after the first chunk the owner is done = %v", v.owner.Done())
		}
	}
	return v, nil
}

// ppcaModel is a valid model over p columns with one component.
func ppcaModel(p int) proto.ModelMsg {
	m := proto.ModelMsg{K: 1, Sigma2: 0.01}
	for j := range p {
		m.Mean = append(m.Mean, 0.3)
		m.Eigenvalues = append(m.Eigenvalues, 0.2/float64(j+1))
		m.Components = append(m.Components, 0)
	}
	m.Components[0] = 1
	return m
}

// honestModel sends the victim a valid model; it answers with its first
// chunk of rows.
func (v *ppcaVictim) honestModel() error {
	e, err := protocol.Seal("", v.curator, v.owner.ID(), ppcaModel(v.p))
	if err != nil {
		return err
	}
	out, err := v.owner.Handle(e)
	if err == nil && len(out) != 1 {
		err = fmt.Errorf("%d messages for the first chunk", len(out))
	}
	if err != nil {
		return fmt.Errorf("the honest model before the attack: %w", err)
	}
	return nil
}

// send hands the victim m from the curator. Nothing is ever charged after
// the statistics: any charge is wrong.
func (v *ppcaVictim) send(m protocol.Message) (audit.HostileOutcome, error) {
	e, err := protocol.Seal("", v.curator, v.owner.ID(), m)
	if err != nil {
		return audit.HostileOutcome{}, err
	}
	n := len(v.acct.Charges())
	out, err := protocol.Safely(v.owner.ID(), "handling "+e.Type, func() ([]protocol.Envelope, error) { return v.owner.Handle(e) })
	return audit.MemberOutcome(err, v.acct.Charges()[n:], out, nil), nil
}

func ppcaAttack(name, attempt string, expect audit.HostileExpect, stage ppcaStage, m func(p int) proto.ModelMsg) audit.HostileAttack {
	return audit.HostileAttack{Method: ppspec.Name, Name: name, Attempt: attempt, Expect: expect, Try: func() (audit.HostileOutcome, error) {
		v, err := newPPCAVictim(stage)
		if err != nil {
			return audit.HostileOutcome{}, err
		}
		return v.send(m(v.p))
	}}
}

// ppcaSessionAttack sends owner 1 the session, edited as JSON, and has it
// join with its own table and a fresh accountant.
func ppcaSessionAttack(name, attempt string, edit func(map[string]any)) audit.HostileAttack {
	return audit.HostileAttack{Method: ppspec.Name, Name: name, Attempt: attempt, Expect: audit.HostileRefused, Try: func() (audit.HostileOutcome, error) {
		b, tables, err := ppcaBuild(30, 3)
		if err != nil {
			return audit.HostileOutcome{}, err
		}
		return audit.HostileJoin(ppspec.Spec, b.Session, "owner-1", tables["owner-1"], b.Accountants[0].Budget(), edit)
	}}
}
