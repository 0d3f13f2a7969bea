package roles

import (
	"fmt"
	"slices"

	mpcrdp "github.com/dppub/dppub/method/mpcrdp/crdp"
	"github.com/dppub/dppub/protocol"
)

// Params are the public parameters every role of one session agrees on.
type Params struct {
	Session string
	// Parties name the parties in order; Server the trusted server.
	Parties []string
	Server  string
	// Label names the label column; LabelHolder the party that holds it.
	Label, LabelHolder string
	Config             mpcrdp.Config
	// QuerySet is the count-query set of a queries release (nil:
	// generated).
	QuerySet []mpcrdp.NamedQuery
}

// Validate checks the parameters.
func (p Params) Validate() error {
	if err := protocol.CheckRoster("server", p.Server, "party", p.Parties); err != nil {
		return fmt.Errorf("mpcrdp: %w", err)
	}
	if p.Label == "" || !slices.Contains(p.Parties, p.LabelHolder) {
		return fmt.Errorf("mpcrdp: label %q must be held by a party, not %q", p.Label, p.LabelHolder)
	}
	c := p.Config
	return c.Validate()
}

func (p Params) partyIndex(id string) int { return slices.Index(p.Parties, id) }
