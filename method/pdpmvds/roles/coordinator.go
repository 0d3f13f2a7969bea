package roles

import (
	"fmt"
	"math/big"

	"github.com/dppub/dppub/crypto/sspp"
	"github.com/dppub/dppub/protocol"
)

// coordinator is the requester of one measurement: it runs at the party
// that drives the engine (Algorithm 3's P_x, which post-processes and
// synthesises), sends the request and assembles the released values.
// It only ever sees released (noisy) values, or shares of them that are
// uniformly distributed given their sum.
type coordinator struct {
	s      Session
	req    *Request
	pl     *plan
	to     []string
	got    map[string]*Body
	result []float64
	done   bool
}

func newCoordinator(s Session, q *Request) (*coordinator, error) {
	c := &coordinator{s: s, req: q, got: map[string]*Body{}}
	if q.Kind == KindSetup {
		for k := range s.Parties {
			c.to = append(c.to, PartyID(k))
		}
		c.to = append(c.to, ThirdPartyID)
		return c, nil
	}
	pl, err := s.plan(q)
	if err != nil {
		return nil, err
	}
	c.pl = pl
	if pl.local {
		c.to = []string{PartyID(pl.involved[0])}
		return c, nil
	}
	for k := range s.Parties {
		c.to = append(c.to, PartyID(k))
	}
	c.to = append(c.to, ThirdPartyID)
	return c, nil
}

func (c *coordinator) ID() string { return CoordinatorID }
func (c *coordinator) Done() bool { return c.done }

func (c *coordinator) Start() ([]protocol.Envelope, error) {
	return protocol.Broadcast("", CoordinatorID, c.to, c.req)
}

// expected lists the (kind, sender) pairs the coordinator waits for.
func (c *coordinator) expected() [][2]string {
	var out [][2]string
	switch {
	case c.req.Kind == KindSetup:
		for _, to := range c.to {
			out = append(out, [2]string{"ready", to})
		}
	case c.pl.local:
		out = append(out, [2]string{"result", c.to[0]})
	case c.s.Suite == SuiteCommodity:
		for _, h := range c.pl.holders {
			out = append(out, [2]string{"totals", PartyID(h)})
		}
	default:
		out = append(out, [2]string{"result", PartyID(c.pl.combiner)})
	}
	return out
}

func (c *coordinator) Handle(e protocol.Envelope) ([]protocol.Envelope, error) {
	var m Body
	if err := m.UnmarshalBinary(e.Payload); err != nil {
		return nil, err
	}
	if m.ID != c.req.ID {
		return nil, fmt.Errorf("pdpmvds: coordinator: %s for request %d during request %d", m.Kind, m.ID, c.req.ID)
	}
	key := m.Kind + "|" + e.From
	ok := false
	for _, x := range c.expected() {
		ok = ok || x[0]+"|"+x[1] == key
	}
	if !ok || c.got[key] != nil {
		return nil, fmt.Errorf("pdpmvds: coordinator: unexpected %s from %s", m.Kind, e.From)
	}
	c.got[key] = &m
	if len(c.got) < len(c.expected()) {
		return nil, nil
	}
	c.done = true
	if c.req.Kind == KindSetup {
		return nil, nil
	}
	return nil, c.assemble()
}

// assemble turns what arrived into the released values, which must lie
// on the release's public grid.
func (c *coordinator) assemble() error {
	if c.pl.local || c.s.Suite == SuitePaillier {
		for _, m := range c.got {
			c.result = m.Floats
		}
	} else {
		var sum []uint64
		for _, h := range c.pl.holders {
			w := c.got["totals|"+PartyID(h)].Words
			if sum == nil {
				sum = make([]uint64, len(w))
			}
			if len(w) != len(sum) {
				return fmt.Errorf("pdpmvds: coordinator: totals of %d and %d words", len(w), len(sum))
			}
			sspp.AddInto(sum, w)
		}
		c.result = make([]float64, len(sum))
		for i, v := range sum {
			c.result[i] = c.pl.enc.decode(big.NewInt(int64(v)), c.req.Kind)
		}
	}
	if len(c.result) != c.pl.values {
		return fmt.Errorf("pdpmvds: coordinator: %d values released, want %d", len(c.result), c.pl.values)
	}
	grid, err := releaseGrid(c.req.Release.Noise, c.pl.values)
	if err != nil {
		return err
	}
	return onGrid(c.result, grid.Grid)
}
