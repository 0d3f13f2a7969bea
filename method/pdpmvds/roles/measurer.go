package roles

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/protocol"
)

// MeasurerOptions configure a Measurer.
type MeasurerOptions struct {
	// Parties are the K data owners' roles, in index order.
	Parties []*Party
	// ThirdParty is S.
	ThirdParty *ThirdParty
}

// Measurer implements measurement.Measurer over the protocol: every
// measurement is one session of protocol.RunLocal between a fresh
// coordinator, the parties and S, whose messages are all marshalled, so
// the roles share no memory. It is not safe for concurrent use.
type Measurer struct {
	s       Session
	parties []*Party
	third   *ThirdParty
	next    uint64
	ready   bool
	phases  []*Phase
	// remote, if set, runs each request elsewhere (see Driver) instead
	// of in one RunLocal session over parties and third.
	remote func(ctx context.Context, q *Request) ([]float64, error)
}

var _ measurement.Measurer = (*Measurer)(nil)

// Phase is what one stage of the protocol cost.
type Phase struct {
	Name     string
	Requests int
	// Wall is the wall time of its sessions.
	Wall time.Duration
	// Messages is the number of messages delivered.
	Messages int
	// Bytes sent, by role.
	Bytes map[string]int
	// Ops are the Paillier operations, by role.
	Ops map[string]Ops
}

// Phase names.
const (
	PhaseSetup     = "setup"
	PhaseOneWay    = "one-way marginals"
	PhaseScores    = "pair scores"
	PhaseMarginals = "marginals"
)

// NewMeasurer checks that the roles belong to one session.
func NewMeasurer(o MeasurerOptions) (*Measurer, error) {
	if o.ThirdParty == nil || len(o.Parties) == 0 {
		return nil, fmt.Errorf("pdpmvds: a measurer needs the parties and S")
	}
	s := o.ThirdParty.session
	if len(o.Parties) != s.Parties {
		return nil, fmt.Errorf("pdpmvds: %d party roles for a session of %d parties", len(o.Parties), s.Parties)
	}
	for k, p := range o.Parties {
		if p == nil || p.index != k {
			return nil, fmt.Errorf("pdpmvds: party role %d is missing or out of order", k+1)
		}
		if !sameSession(p.session, s) {
			return nil, fmt.Errorf("pdpmvds: party %d belongs to another session", k+1)
		}
	}
	return &Measurer{s: s, parties: o.Parties, third: o.ThirdParty}, nil
}

func sameSession(a, b Session) bool {
	return a.Parties == b.Parties && a.Records == b.Records && slices.Equal(a.Sizes, b.Sizes) &&
		slices.Equal(a.Owners, b.Owners) && a.Suite == b.Suite && a.Noise == b.Noise &&
		a.KeyBits == b.KeyBits && a.StatBits == b.StatBits
}

// Setup runs the setup session (keys, masks, encrypted vectors). The
// first measurement runs it if it has not been run.
func (m *Measurer) Setup(ctx context.Context) error {
	if m.ready {
		return nil
	}
	if _, err := m.run(ctx, &Request{Kind: KindSetup}, PhaseSetup); err != nil {
		return err
	}
	m.ready = true
	return nil
}

// Marginal measures the noisy counts over attrs across the parties.
func (m *Measurer) Marginal(ctx context.Context, attrs []int, r measurement.Release) ([]float64, error) {
	if err := m.Setup(ctx); err != nil {
		return nil, err
	}
	phase := PhaseMarginals
	if strings.HasPrefix(r.Purpose, "one-way") {
		phase = PhaseOneWay
	}
	return m.run(ctx, &Request{Kind: KindMarginal, Attrs: slices.Clone(attrs), Release: r}, phase)
}

// Score measures the noisy IInDif score of a pair (Algorithm 1 across
// parties; locally for a pair of one party's attributes).
func (m *Measurer) Score(ctx context.Context, q measurement.ScoreQuery, r measurement.Release) (float64, error) {
	if q.Kind != measurement.IInDif {
		return 0, fmt.Errorf("pdpmvds: the protocol computes the paper's IInDif score, not %q", q.Kind)
	}
	if q.N != m.s.Records {
		return 0, fmt.Errorf("pdpmvds: score query for n = %d, the session has %d records", q.N, m.s.Records)
	}
	if err := m.Setup(ctx); err != nil {
		return 0, err
	}
	v, err := m.run(ctx, &Request{Kind: KindScore, Attrs: []int{q.A, q.B}, Release: r, RefA: q.RefA, RefB: q.RefB}, PhaseScores)
	if err != nil {
		return 0, err
	}
	return v[0], nil
}

// run is one RunLocal session, or one remote request.
func (m *Measurer) run(ctx context.Context, q *Request, phase string) ([]float64, error) {
	m.next++
	q.ID = m.next
	if m.remote != nil {
		return m.remote(ctx, q)
	}
	c, err := newCoordinator(m.s, q)
	if err != nil {
		return nil, err
	}
	roles := []protocol.Role{c}
	before := map[string]Ops{ThirdPartyID: m.third.Ops()}
	for _, p := range m.parties {
		roles = append(roles, p)
		before[p.id] = p.Ops()
	}
	roles = append(roles, m.third)
	start := time.Now()
	stats, err := protocol.RunLocal(ctx, roles...)
	ph := m.phase(phase)
	ph.Wall += time.Since(start)
	ph.Requests++
	if stats != nil {
		ph.Messages += stats.Messages
		for id, b := range stats.Bytes {
			ph.Bytes[id] += b
		}
	}
	ph.Ops[ThirdPartyID] = ph.Ops[ThirdPartyID].Add(m.third.Ops().Sub(before[ThirdPartyID]))
	for _, p := range m.parties {
		ph.Ops[p.id] = ph.Ops[p.id].Add(p.Ops().Sub(before[p.id]))
	}
	if err != nil {
		return nil, err
	}
	return c.result, nil
}

func (m *Measurer) phase(name string) *Phase {
	for _, p := range m.phases {
		if p.Name == name {
			return p
		}
	}
	p := &Phase{Name: name, Bytes: map[string]int{}, Ops: map[string]Ops{}}
	m.phases = append(m.phases, p)
	return p
}

// Phases returns the cost of every phase so far, in the order they began.
func (m *Measurer) Phases() []Phase {
	out := make([]Phase, len(m.phases))
	for i, p := range m.phases {
		out[i] = *p
		out[i].Bytes = maps.Clone(p.Bytes)
		out[i].Ops = maps.Clone(p.Ops)
	}
	return out
}

// Session returns the measurer's session.
func (m *Measurer) Session() Session { return m.s }
