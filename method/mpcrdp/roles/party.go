package roles

import (
	"fmt"
	"slices"

	"github.com/dppub/dppub/data"
	mpcrdp "github.com/dppub/dppub/method/mpcrdp/crdp"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
)

// PartyOptions configure one party.
type PartyOptions struct {
	ID     string
	Params Params
	// Table holds the party's records with IDs: its features, plus the
	// label column if it is the label holder.
	Table *data.Table
	// Accountant is charged with every step before the server runs it.
	Accountant *privacy.Accountant
}

// Party is a data owner's role.
type Party struct {
	o        PartyOptions
	features []string
	approved int
	summary  *Summary
	// steps are the charged steps of the session, from its public
	// configuration; nextStep is the first not yet paid.
	steps    []chargedStep
	nextStep int
}

// NewParty validates o.
func NewParty(o PartyOptions) (*Party, error) {
	if err := o.Params.Validate(); err != nil {
		return nil, err
	}
	if o.Params.partyIndex(o.ID) < 0 {
		return nil, fmt.Errorf("mpcrdp: %q is not a party of this session", o.ID)
	}
	if o.Table == nil || o.Accountant == nil {
		return nil, fmt.Errorf("mpcrdp: party %q needs a table and an accountant", o.ID)
	}
	if o.Table.Schema.ID == "" || len(o.Table.IDs) != o.Table.Len() {
		return nil, fmt.Errorf("mpcrdp: party %q's table has no ID column to join on", o.ID)
	}
	holds := slices.Contains(o.Table.Schema.Names(), o.Params.Label)
	if holds != (o.ID == o.Params.LabelHolder) {
		return nil, fmt.Errorf("mpcrdp: party %q: the label %q must be in exactly the label holder's (%s) table", o.ID, o.Params.Label, o.Params.LabelHolder)
	}
	steps, err := chargedSteps(o.Params)
	if err != nil {
		return nil, err
	}
	p := &Party{o: o, steps: steps}
	for _, name := range o.Table.Schema.Names() {
		if name != o.Params.Label {
			p.features = append(p.features, name)
		}
	}
	if len(p.features) == 0 {
		return nil, fmt.Errorf("mpcrdp: party %q has no features", o.ID)
	}
	return p, nil
}

// ID is the party's name.
func (p *Party) ID() string { return p.o.ID }

// Done reports whether the published summary has arrived.
func (p *Party) Done() bool { return p.summary != nil }

// Summary returns what the server published (nil before Done).
func (p *Party) Summary() *Summary { return p.summary }

// Start runs the local analysis and sends the columns to the server.
func (p *Party) Start() ([]protocol.Envelope, error) {
	c := p.o.Params.Config
	if err := c.Validate(); err != nil {
		return nil, err
	}
	a, _, err := mpcrdp.LocalAnalysis(p.o.ID, p.o.Table, p.features, c.InitialThreshold, c.Bins)
	if err != nil {
		return nil, err
	}
	t := p.o.Table
	values := make([]float64, 0, t.Len()*len(t.Schema.Attributes))
	for _, r := range t.Rows {
		values = append(values, r...)
	}
	e, err := protocol.Seal(p.o.Params.Session, p.o.ID, p.o.Params.Server,
		Columns{Schema: t.Schema, IDs: t.IDs, Values: values, Analysis: a})
	return []protocol.Envelope{e}, err
}

// Handle spends charge requests and receives the summary.
func (p *Party) Handle(e protocol.Envelope) ([]protocol.Envelope, error) {
	if e.From != p.o.Params.Server {
		return nil, fmt.Errorf("mpcrdp: %s got %s from %q, not the server", p.o.ID, e.Type, e.From)
	}
	switch e.Type {
	case TypeChargeRequest:
		var m ChargeRequest
		if err := m.UnmarshalBinary(e.Payload); err != nil {
			return nil, err
		}
		if m.Step != p.approved {
			return nil, fmt.Errorf("mpcrdp: %s: charge request for step %d, expected step %d", p.o.ID, m.Step, p.approved)
		}
		at, err := checkRequest(p.steps, p.nextStep, m)
		if err != nil {
			return nil, fmt.Errorf("mpcrdp: %s refuses: %w", p.o.ID, err)
		}
		for _, ch := range m.Charges {
			if err := p.o.Accountant.Spend(ch); err != nil {
				return nil, fmt.Errorf("mpcrdp: %s refuses step %q: %w", p.o.ID, m.Name, err)
			}
		}
		p.approved++
		p.nextStep = at + 1
		out, err := protocol.Seal(p.o.Params.Session, p.o.ID, p.o.Params.Server, Approval{Step: m.Step})
		return []protocol.Envelope{out}, err
	case TypePublished:
		var m Published
		if err := m.UnmarshalBinary(e.Payload); err != nil {
			return nil, err
		}
		p.summary = &m.Summary
		return nil, nil
	}
	return nil, fmt.Errorf("mpcrdp: party cannot handle %q", e.Type)
}
