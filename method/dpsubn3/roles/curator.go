package roles

import (
	"fmt"

	privbayes "github.com/dppub/dppub/method/privbayes/bayesnet"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// Curator is the semi-trusted curator's role: it relays each party's
// model to the next party as its prior and samples the synthetic rows
// from the last one.
type Curator struct {
	params Params
	src    *randx.Source
	turn   int // index of the party whose update is awaited
	total  int
	counts map[string]int
	model  *privbayes.Model
	rows   [][]int
}

// NewCurator validates the session parameters; src draws the synthetic
// rows.
func NewCurator(p Params, src *randx.Source) (*Curator, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if src == nil {
		return nil, fmt.Errorf("dpsubn3: the curator needs a randomness source")
	}
	return &Curator{params: p, src: src, counts: map[string]int{}}, nil
}

// ID is the curator's name.
func (c *Curator) ID() string { return c.params.Curator }

// Done reports whether the synthetic rows have been drawn.
func (c *Curator) Done() bool { return c.rows != nil }

// Start sends the first party its empty prior.
func (c *Curator) Start() ([]protocol.Envelope, error) {
	e, err := protocol.Seal(c.params.Session, c.ID(), c.params.Parties[0], PriorMsg{})
	if err != nil {
		return nil, err
	}
	return []protocol.Envelope{e}, nil
}

// Handle takes the awaited party's update and passes the model on.
func (c *Curator) Handle(e protocol.Envelope) ([]protocol.Envelope, error) {
	if e.Type != TypeUpdate {
		return nil, fmt.Errorf("dpsubn3: curator cannot handle %q", e.Type)
	}
	idx := c.params.partyIndex(e.From)
	if idx < 0 {
		return nil, fmt.Errorf("dpsubn3: update from %q, not a party", e.From)
	}
	if idx < c.turn {
		return nil, nil // a replay: ignore
	}
	if idx != c.turn {
		return nil, fmt.Errorf("dpsubn3: update from %s out of turn (awaiting %s)", e.From, c.params.Parties[c.turn])
	}
	var m UpdateMsg
	if err := m.UnmarshalBinary(e.Payload); err != nil {
		return nil, err
	}
	if err := sameCards(m.Model, c.params.Cards); err != nil {
		return nil, err
	}
	c.model, c.counts[e.From] = m.Model, m.Records
	c.total += m.Records
	c.turn++
	if c.turn < len(c.params.Parties) {
		out, err := protocol.Seal(c.params.Session, c.ID(), c.params.Parties[c.turn], PriorMsg{N: c.total, Model: c.model})
		if err != nil {
			return nil, err
		}
		return []protocol.Envelope{out}, nil
	}
	c.rows = c.model.Sample(c.total, c.src)
	return nil, nil
}

// Result is the curator's output once Done.
type Result struct {
	Model *privbayes.Model
	// Rows are the synthetic rows, as codes.
	Rows [][]int
	// Counts are the parties' public record counts.
	Counts map[string]int
}

// Result returns the final model and synthetic rows.
func (c *Curator) Result() (*Result, error) {
	if !c.Done() {
		return nil, fmt.Errorf("dpsubn3: the curator has not finished (awaiting %d of %d updates)", len(c.params.Parties)-c.turn, len(c.params.Parties))
	}
	counts := make(map[string]int, len(c.counts))
	for k, v := range c.counts {
		counts[k] = v
	}
	return &Result{Model: c.model, Rows: c.rows, Counts: counts}, nil
}
