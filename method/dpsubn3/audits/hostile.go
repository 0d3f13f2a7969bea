package audits

import (
	"fmt"
	"math"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/dp"
	proto "github.com/dppub/dppub/method/dpsubn3/roles"
	algo "github.com/dppub/dppub/method/dpsubn3/subn3"
	privbayes "github.com/dppub/dppub/method/privbayes/bayesnet"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// dpsubn3HostileAttacks are the attacks of a hostile curator on a
// DP-SUBN3 party (method/dpsubn3/roles's Party, the role the method's Join
// builds). The curator sends each party one prior: the model so far and
// the number of records it stands for, which the party samples and merges
// with its own rows. The model is DP already; the count decides how many
// rows the party draws and the size the score's sensitivity is computed
// for, so it must be bounded, and a party's charge must be the session's
// ε at the sensitivity of the merged size it really scored.
func dpsubn3HostileAttacks() []audit.HostileAttack {
	edit := func(f func(*proto.PriorMsg)) func(proto.PriorMsg) proto.PriorMsg {
		return func(m proto.PriorMsg) proto.PriorMsg { f(&m); return m }
	}
	cond := func(v ...float64) func(proto.PriorMsg) proto.PriorMsg {
		return edit(func(m *proto.PriorMsg) { copy(m.Model.Cond[0], v) })
	}
	return []audit.HostileAttack{
		dpsubn3Attack("prior of 2^50 records", "says the prior stands for 2⁵⁰ records, which the party would draw (the old party panicked)", audit.HostileRefused, false,
			edit(func(m *proto.PriorMsg) { m.N = 1 << 50 })),
		dpsubn3Attack("prior past the sample bound", "says the prior stands for 2²⁷/3 + 1 records of 3 attributes, one cell past what a party samples", audit.HostileRefused, false,
			edit(func(m *proto.PriorMsg) { m.N = 1<<27/3 + 1 })),
		dpsubn3Attack("negative record count", "says the prior stands for −5 records", audit.HostileRefused, false,
			edit(func(m *proto.PriorMsg) { m.N = -5 })),
		dpsubn3Attack("model standing for no records", "sends a model standing for 0 records", audit.HostileRefused, false,
			edit(func(m *proto.PriorMsg) { m.N = 0 })),
		dpsubn3Attack("prior over other domains", "sends a model whose third attribute has 3 codes, not 2", audit.HostileRefused, false,
			edit(func(m *proto.PriorMsg) { m.Model.Cards[2] = 3 })),
		dpsubn3Attack("family out of range", "sends a model with a family of attribute 7 of 3", audit.HostileRefused, false,
			edit(func(m *proto.PriorMsg) { m.Model.Net[len(m.Model.Net)-1].Child = 7 })),
		dpsubn3Attack("non-finite conditional", "sends a conditional table holding NaN", audit.HostileRefused, false, cond(math.NaN(), 0.5)),
		dpsubn3Attack("negative probability", "sends a conditional (−0.5, 1.5)", audit.HostileRefused, false, cond(-0.5, 1.5)),
		dpsubn3Attack("conditional not summing to one", "sends a conditional (0.9, 0.9)", audit.HostileRefused, false, cond(0.9, 0.9)),
		dpsubn3Attack("replayed prior", "sends the party's prior again after its update", audit.HostileIgnored, true, nil),
		dpsubn3Attack("no prior for a later party", "gives party 2 no prior, as if it were first", audit.HostileCharged, false,
			func(proto.PriorMsg) proto.PriorMsg { return proto.PriorMsg{} }),
		dpsubn3Attack("large prior", "says the prior stands for 20 000 records, so the score's sensitivity is computed at 20 100", audit.HostileCharged, false,
			edit(func(m *proto.PriorMsg) { m.N = 20_000 })),
		{Method: "dp-subn3", Name: "message of another kind", Attempt: "sends the party an update, a message parties send", Expect: audit.HostileRefused, Try: func() (audit.HostileOutcome, error) {
			v, err := newDPSubN3Victim()
			if err != nil {
				return audit.HostileOutcome{}, err
			}
			return v.outcome(proto.UpdateMsg{Records: v.prior.N, Model: v.prior.Model}, 0)
		}},
	}
}

const (
	dpsubn3Eps  = 1.0
	dpsubn3Rows = 100
)

// dpsubn3Victim is party 2 of a two-party session (ε = 1, three binary
// attributes, 100 records each), with the honest prior party 1's update
// gives it.
type dpsubn3Victim struct {
	party *proto.Party
	acct  *privacy.Accountant
	prior proto.PriorMsg
	p     proto.Params
}

func newDPSubN3Victim() (*dpsubn3Victim, error) {
	src := randx.NewSeeded(11)
	p := proto.Params{Session: "audit-hostile", Parties: []string{"party-1", "party-2"}, Curator: "curator", Cards: []int{2, 2, 2},
		Options: algo.Options{PrivBayes: privbayes.Options{Epsilon: dpsubn3Eps}}}
	v := &dpsubn3Victim{p: p}
	var parties []*proto.Party
	for _, id := range p.Parties {
		rows := make([][]int, dpsubn3Rows)
		for i := range rows {
			a := src.IntN(2)
			rows[i] = []int{a, src.IntN(2), a}
		}
		d, err := privbayes.NewData(p.Cards, rows)
		if err != nil {
			return nil, err
		}
		acct, err := privacy.NewAccountant(privacy.AccountantOptions{Party: id, Budget: dp.Pure(dpsubn3Eps)})
		if err != nil {
			return nil, err
		}
		party, err := proto.NewParty(proto.PartyOptions{ID: id, Params: p, Data: d, Accountant: acct, Source: src.Child()})
		if err != nil {
			return nil, err
		}
		parties, v.acct = append(parties, party), acct
	}
	v.party = parties[1]
	e, err := protocol.Seal(p.Session, p.Curator, p.Parties[0], proto.PriorMsg{})
	if err != nil {
		return nil, err
	}
	out, err := parties[0].Handle(e)
	if err != nil {
		return nil, fmt.Errorf("party 1's honest turn: %w", err)
	}
	var upd proto.UpdateMsg
	if err := upd.UnmarshalBinary(out[0].Payload); err != nil {
		return nil, err
	}
	v.prior = proto.PriorMsg{N: upd.Records, Model: upd.Model}
	return v, nil
}

// outcome sends m to the victim. Charged at its true cost: pure ε-DP
// charges summing to the session's ε, the first (the structure) at least
// the R score's sensitivity 3/n (PrivBayes' bound under replacement) for
// the n records the party scored: its own and the prior's.
func (v *dpsubn3Victim) outcome(m protocol.Message, priorN int) (audit.HostileOutcome, error) {
	e, err := protocol.Seal(v.p.Session, v.p.Curator, v.party.ID(), m)
	if err != nil {
		return audit.HostileOutcome{}, err
	}
	n := len(v.acct.Charges())
	out, err := protocol.Safely(v.party.ID(), "handling "+e.Type, func() ([]protocol.Envelope, error) { return v.party.Handle(e) })
	return audit.MemberOutcome(err, v.acct.Charges()[n:], out, func(cs []privacy.Charge) (string, error) {
		total := 0.0
		for _, c := range cs {
			if g := c.Spec.Guarantee; g.Notion != dp.PureDP {
				return "", fmt.Errorf("charge %v is not pure ε-DP", g)
			}
			total += c.Spec.Guarantee.Epsilon
		}
		scored := float64(dpsubn3Rows + priorN)
		switch {
		case math.Abs(total-dpsubn3Eps) > 1e-9:
			return "", fmt.Errorf("ε = %v in all, the session's is %v", total, dpsubn3Eps)
		case cs[0].Spec.Sensitivity < 3/scored*(1-1e-12):
			return "", fmt.Errorf("the structure was charged at score sensitivity %g, below 3/n = %g for the %v records scored", cs[0].Spec.Sensitivity, 3/scored, scored)
		case len(out) != 1:
			return "", fmt.Errorf("%d messages sent, want one update", len(out))
		}
		return "", nil
	}), nil
}

// dpsubn3Attack sends the victim the honest prior changed by forge (the
// honest one itself when forge is nil); after, when set, the honest prior
// first.
func dpsubn3Attack(name, attempt string, expect audit.HostileExpect, after bool, forge func(proto.PriorMsg) proto.PriorMsg) audit.HostileAttack {
	return audit.HostileAttack{Method: "dp-subn3", Name: name, Attempt: attempt, Expect: expect, Try: func() (audit.HostileOutcome, error) {
		v, err := newDPSubN3Victim()
		if err != nil {
			return audit.HostileOutcome{}, err
		}
		if after {
			e, err := protocol.Seal(v.p.Session, v.p.Curator, v.party.ID(), v.prior)
			if err != nil {
				return audit.HostileOutcome{}, err
			}
			if _, err := v.party.Handle(e); err != nil {
				return audit.HostileOutcome{}, fmt.Errorf("the honest prior before the attack: %w", err)
			}
		}
		m := v.prior
		if forge != nil {
			m = forge(m)
		}
		return v.outcome(m, max(m.N, 0))
	}}
}
