package audits

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/internal/wire"
	algo "github.com/dppub/dppub/method/mpcrdp/crdp"
	proto "github.com/dppub/dppub/method/mpcrdp/roles"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
)

// mpcrdpHostileAttacks are the attacks of a hostile server on an MP-CRDP
// party (method/mpcrdp/roles's Party, the role the method's Join builds).
// The server is trusted with the parties' raw columns by the paper's
// model, so no check of a party stops it releasing anything; what a party
// controls is its own ledger, which must record what each step of its
// session's public configuration costs, once, in order, whatever the
// server's charge requests say.
func mpcrdpHostileAttacks() []audit.HostileAttack {
	c := mpcrdpHostileConfig()
	eps := mpcrdpStepBudgets(c)
	pure := func(name string, e ...float64) []privacy.Charge {
		var out []privacy.Charge
		for _, v := range e {
			out = append(out, privacy.Charge{Purpose: name, Spec: dp.Spec{Mechanism: "laplace", Guarantee: dp.Pure(v)}})
		}
		return out
	}
	stab := "stability selection of party-1"
	req := func(step int, name string, charges []privacy.Charge) proto.ChargeRequest {
		return proto.ChargeRequest{Step: step, Name: name, Charges: charges}
	}
	honest := func(step int, name string) proto.ChargeRequest { return req(step, name, pure(name, eps[name])) }
	below := pure(stab, eps[stab])
	below[0].Actual = &dp.Guarantee{Notion: dp.PureDP, Epsilon: eps[stab] / 10}
	approx := pure(stab, eps[stab])
	approx[0].Spec.Guarantee = dp.Approx(eps[stab], 1e-6)
	one := func(name, attempt string, expect audit.HostileExpect, before []proto.ChargeRequest, m proto.ChargeRequest) audit.HostileAttack {
		return mpcrdpAttack(name, attempt, expect, before, mpcrdpRequest{ChargeRequest: m})
	}
	// The charges travel as JSON, which has no NaN or infinity: a hostile
	// server writes the number itself.
	rewritten := func(name, attempt, number string) audit.HostileAttack {
		m := honest(0, stab)
		old := fmt.Sprintf(`"epsilon":%v`, eps[stab])
		return mpcrdpAttack(name, attempt, audit.HostileRefused, nil, mpcrdpRequest{ChargeRequest: m, rewrite: func(s string) string {
			return strings.Replace(s, old, `"epsilon":`+number, 1)
		}})
	}
	return []audit.HostileAttack{
		one("under-charged step", "asks for stability selection at ε = 10⁻⁹, a step the server then runs at its full ε", audit.HostileRefused, nil, req(0, stab, pure(stab, 1e-9))),
		one("over-charged step", "asks for stability selection at three times its ε", audit.HostileRefused, nil, req(0, stab, pure(stab, 3*eps[stab]))),
		one("step not in the session", "asks for a step named \"bonus release\" at the release's ε", audit.HostileRefused, nil, req(0, "bonus release", pure("bonus release", eps["release"]))),
		one("approximate-DP charge", "charges stability selection as (ε, 10⁻⁶)-DP", audit.HostileRefused, nil, req(0, stab, approx)),
		one("actual guarantee below the charge", "charges stability selection at its ε, stating an actual guarantee of a tenth of it", audit.HostileRefused, nil, req(0, stab, below)),
		rewritten("overflowing charge", "writes stability selection's ε as 1e999, beyond float64", "1e999"),
		rewritten("negative charge", "charges stability selection at ε = −0.25", "-0.25"),
		rewritten("non-numeric charge", "writes stability selection's ε as \"NaN\"", `"NaN"`),
		one("repeated step", "asks for stability selection again, as request 1, after request 0 paid it", audit.HostileRefused,
			[]proto.ChargeRequest{honest(0, stab)}, honest(1, stab)),
		one("reordered steps", "asks for the release, then for redundancy, which comes before it", audit.HostileRefused,
			[]proto.ChargeRequest{honest(0, "release")}, honest(1, "redundancy")),
		one("replayed request", "sends request 0 again after it was paid", audit.HostileRefused,
			[]proto.ChargeRequest{honest(0, stab)}, honest(0, stab)),
		one("request number out of order", "sends request 3 first", audit.HostileRefused, nil, honest(3, stab)),
		one("whole budget for one step", "asks for the release at the session's whole ε", audit.HostileRefused, nil, req(0, "release", pure("release", c.Epsilon))),
		one("step split in two charges", "charges stability selection as two halves", audit.HostileCharged, nil, req(0, stab, pure(stab, eps[stab]/2, eps[stab]/2))),
		one("skipped steps", "skips both stability selections and asks for redundancy first", audit.HostileCharged, nil, honest(0, "redundancy")),
	}
}

// mpcrdpHostileConfig is the session's public configuration (ε = 2, U1,
// SVM release, standard DP, sound), defaults filled in.
func mpcrdpHostileConfig() algo.Config {
	c := algo.Config{Epsilon: 2, B: 4, Utility: algo.U1, Release: algo.SVM, Notion: algo.Standard}
	if err := c.Validate(); err != nil {
		panic(err) // constant configuration
	}
	return c
}

// mpcrdpStepBudgets is each charged step's ε for the two parties, by the
// audit's own reading of the paper's split (not Config.Split): ε₁ = share
// ·ε to the features, half of it to the parties' stability selections
// (ε₁/2 shared between them) and half to redundancy; the rest in halves to
// candidate selection and the release.
func mpcrdpStepBudgets(c algo.Config) map[string]float64 {
	e1 := c.FeatureShare * c.Epsilon
	return map[string]float64{
		"stability selection of party-1": e1 / 4,
		"stability selection of party-2": e1 / 4,
		"redundancy":                     e1 / 2,
		"candidate selection":            (c.Epsilon - e1) / 2,
		"release":                        (c.Epsilon - e1) / 2,
	}
}

// mpcrdpVictim is party 1 (the label holder) of a two-party session.
func mpcrdpVictim(c algo.Config) (*proto.Party, *privacy.Accountant, error) {
	s := data.Schema{ID: "id", Attributes: []data.Attribute{
		{Name: "x1", Kind: data.Numeric, Min: 0, Max: 1},
		{Name: "y", Kind: data.Categorical, Categories: []string{"no", "yes"}},
	}}
	t := &data.Table{Schema: s}
	for i := range 20 {
		t.Rows = append(t.Rows, []float64{float64(i) / 20, float64(i % 2)})
		t.IDs = append(t.IDs, fmt.Sprintf("r%d", i))
	}
	params := proto.Params{Session: "audit-hostile", Parties: []string{"party-1", "party-2"}, Server: "server",
		Label: "y", LabelHolder: "party-1", Config: c}
	acct, err := privacy.NewAccountant(privacy.AccountantOptions{Party: "party-1", Budget: dp.Pure(c.Epsilon)})
	if err != nil {
		return nil, nil, err
	}
	p, err := proto.NewParty(proto.PartyOptions{ID: "party-1", Params: params, Table: t, Accountant: acct})
	return p, acct, err
}

// mpcrdpAttack has the victim pay the honest requests before, then sends
// the attack's request. Charged at its true cost: pure ε-DP charges
// summing to the ε the audit's split gives the named step.
func mpcrdpAttack(name, attempt string, expect audit.HostileExpect, before []proto.ChargeRequest, m mpcrdpRequest) audit.HostileAttack {
	return audit.HostileAttack{Method: "mp-crdp", Name: name, Attempt: attempt, Expect: expect, Try: func() (audit.HostileOutcome, error) {
		c := mpcrdpHostileConfig()
		p, acct, err := mpcrdpVictim(c)
		if err != nil {
			return audit.HostileOutcome{}, err
		}
		seal := func(m protocol.Message) (protocol.Envelope, error) {
			return protocol.Seal("audit-hostile", "server", p.ID(), m)
		}
		for _, b := range before {
			e, err := seal(b)
			if err == nil {
				_, err = p.Handle(e)
			}
			if err != nil {
				return audit.HostileOutcome{}, fmt.Errorf("the honest request %q before the attack: %w", b.Name, err)
			}
		}
		e, err := seal(m)
		if err != nil {
			return audit.HostileOutcome{}, err
		}
		n := len(acct.Charges())
		out, err := protocol.Safely(p.ID(), "handling "+e.Type, func() ([]protocol.Envelope, error) { return p.Handle(e) })
		want, ok := mpcrdpStepBudgets(c)[m.Name]
		return audit.MemberOutcome(err, acct.Charges()[n:], out, func(cs []privacy.Charge) (string, error) {
			total := 0.0
			for _, ch := range cs {
				if g := ch.Spec.Guarantee; g.Notion != dp.PureDP || g.Delta != 0 {
					return "", fmt.Errorf("charge %v is not pure ε-DP", g)
				}
				total += ch.Spec.Guarantee.Epsilon
			}
			switch {
			case !ok:
				return "", fmt.Errorf("%q is no step of the session", m.Name)
			case math.Abs(total-want) > 1e-9*want:
				return "", fmt.Errorf("ε = %v in all for step %q, which costs ε = %v", total, m.Name, want)
			case len(out) != 1:
				return "", fmt.Errorf("%d messages sent, want one approval", len(out))
			}
			return "", nil
		}), nil
	}}
}

// mpcrdpRequest is a charge request as a hostile server writes it: the
// real message's encoding, with the charges' JSON rewritten when rewrite
// is set.
type mpcrdpRequest struct {
	proto.ChargeRequest
	rewrite func(string) string
}

func (m mpcrdpRequest) MarshalBinary() ([]byte, error) {
	if m.rewrite == nil {
		return m.ChargeRequest.MarshalBinary()
	}
	c, err := json.Marshal(m.Charges)
	if err != nil {
		return nil, err
	}
	var w wire.Writer
	w.Int(m.Step)
	w.String(m.Name)
	w.Bytes([]byte(m.rewrite(string(c))))
	return w.Data(), nil
}
