package roles

import (
	"fmt"
	"slices"

	dpsubn3 "github.com/dppub/dppub/method/dpsubn3/subn3"
	privbayes "github.com/dppub/dppub/method/privbayes/bayesnet"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// maxPriorCells bounds the sample a party draws from the curator's prior
// (records × attributes, about 8 bytes each): the prior's record count is
// the curator's word, and the old code drew whatever it said, so a count
// of 2^50 made the party panic and 2^40 would exhaust its memory.
const maxPriorCells = 1 << 27

// PartyOptions configure one party.
type PartyOptions struct {
	ID     string
	Params Params
	// Data are the party's discretised records.
	Data *privbayes.Data
	// Accountant is charged before any noisy value leaves the party.
	Accountant *privacy.Accountant
	Source     *randx.Source
}

// Party is a data owner's role: it waits for its prior, updates the
// network and sends the result to the curator.
type Party struct {
	o    PartyOptions
	done bool
}

// NewParty validates o.
func NewParty(o PartyOptions) (*Party, error) {
	if err := o.Params.Validate(); err != nil {
		return nil, err
	}
	if o.Params.partyIndex(o.ID) < 0 {
		return nil, fmt.Errorf("dpsubn3: %q is not a party of this session", o.ID)
	}
	if o.Data == nil || o.Accountant == nil || o.Source == nil {
		return nil, fmt.Errorf("dpsubn3: party %q needs data, an accountant and a randomness source", o.ID)
	}
	if !slices.Equal(o.Data.Cards, o.Params.Cards) {
		return nil, fmt.Errorf("dpsubn3: party %q holds data over domains %v, the session's are %v", o.ID, o.Data.Cards, o.Params.Cards)
	}
	if o.Data.N < 2 {
		return nil, fmt.Errorf("dpsubn3: party %q holds %v rows, need at least 2", o.ID, o.Data.N)
	}
	return &Party{o: o}, nil
}

// ID is the party's name.
func (p *Party) ID() string { return p.o.ID }

// Done reports whether the party has sent its update.
func (p *Party) Done() bool { return p.done }

// Start does nothing: the curator speaks first.
func (p *Party) Start() ([]protocol.Envelope, error) { return nil, nil }

// Handle takes the prior, updates the model and replies to the curator.
func (p *Party) Handle(e protocol.Envelope) ([]protocol.Envelope, error) {
	if e.Type != TypePrior || e.From != p.o.Params.Curator {
		return nil, fmt.Errorf("dpsubn3: party %s cannot handle %q from %q", p.o.ID, e.Type, e.From)
	}
	if p.done {
		return nil, nil // a replay: ignore
	}
	var m PriorMsg
	if err := m.UnmarshalBinary(e.Payload); err != nil {
		return nil, err
	}
	var prior *dpsubn3.Prior
	if m.Model != nil {
		if err := sameCards(m.Model, p.o.Params.Cards); err != nil {
			return nil, err
		}
		if cells := m.N * len(p.o.Params.Cards); m.N > maxPriorCells || cells > maxPriorCells {
			return nil, fmt.Errorf("dpsubn3: party %s: a prior standing for %d records of %d attributes is more than the %d cells a party samples", p.o.ID, m.N, len(p.o.Params.Cards), maxPriorCells)
		}
		prior = &dpsubn3.Prior{Model: m.Model, N: m.N}
	}
	model, err := dpsubn3.Update(prior, p.o.Data, p.o.Params.Options, p.o.Accountant, p.o.Source)
	if err != nil {
		return nil, fmt.Errorf("dpsubn3: party %s: %w", p.o.ID, err)
	}
	out, err := protocol.Seal(p.o.Params.Session, p.o.ID, p.o.Params.Curator, UpdateMsg{Records: int(p.o.Data.N), Model: model})
	if err != nil {
		return nil, err
	}
	p.done = true
	return []protocol.Envelope{out}, nil
}
