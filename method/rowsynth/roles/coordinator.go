package roles

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// Engine is what the coordinator computes over the owners' pooled
// records: it measures through m and returns when it needs no more.
type Engine func(ctx context.Context, m *Measurer) error

// question is one step the engine asks of the protocol: independent
// releases (Requests, sent together: one round trip) or the domain to
// announce.
type question struct {
	reqs   []*Request
	domain *Domain
}

// Coordinator runs the engine and assembles the owners' masked shares.
// Like every role it does no I/O: the engine runs in a goroutine
// (protocol.Exchange) and Start and Handle block while it computes.
type Coordinator struct {
	p       Params
	ctx     context.Context
	engine  Engine
	noiser  *dp.Noiser
	x       *protocol.Exchange[question, [][]float64]
	keys    [][]byte
	sigs    [][]byte
	records []int
	// cur are the open requests, got their shares by request ID and owner.
	cur  []*Request
	got  map[uint64]map[int][]uint64
	done bool
}

var _ protocol.Role = (*Coordinator)(nil)

// NewCoordinator prepares the coordinator; the engine starts once every
// owner has said hello. src draws the coordinator's noise shares
// (insider-safe mode).
func NewCoordinator(ctx context.Context, p Params, engine Engine, src *randx.Source) (*Coordinator, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if engine == nil || src == nil {
		return nil, fmt.Errorf("rowsynth: the coordinator needs an engine and a source")
	}
	return &Coordinator{p: p, ctx: ctx, engine: engine, noiser: dp.NewNoiser(src),
		keys: make([][]byte, p.Owners), sigs: make([][]byte, p.Owners), records: make([]int, p.Owners)}, nil
}

func (c *Coordinator) ID() string { return CoordinatorID }
func (c *Coordinator) Done() bool { return c.done }

// Stop ends the engine (for a session that failed); idempotent.
func (c *Coordinator) Stop() {
	if c.x != nil {
		c.x.Stop()
	}
}

// Start waits for the owners' hellos.
func (c *Coordinator) Start() ([]protocol.Envelope, error) { return nil, nil }

// Records are the owners' public record counts (known after the hellos).
func (c *Coordinator) Records() []int { return c.records }

func (c *Coordinator) owner(from string) (int, error) {
	for k := range c.p.Owners {
		if OwnerID(k) == from {
			return k, nil
		}
	}
	return 0, fmt.Errorf("rowsynth: coordinator: message from %q, not an owner", from)
}

// Handle takes the hellos (then relays the keys and starts the engine)
// and the shares of the current request.
func (c *Coordinator) Handle(e protocol.Envelope) ([]protocol.Envelope, error) {
	k, err := c.owner(e.From)
	if err != nil {
		return nil, err
	}
	switch e.Type {
	case TypeHello:
		var h Hello
		if err := h.UnmarshalBinary(e.Payload); err != nil {
			return nil, err
		}
		return c.hello(k, h)
	case TypeShare:
		var s Share
		if err := s.UnmarshalBinary(e.Payload); err != nil {
			return nil, err
		}
		return c.share(k, s)
	}
	return nil, fmt.Errorf("rowsynth: coordinator: unexpected %s from %s", e.Type, e.From)
}

func (c *Coordinator) hello(k int, h Hello) ([]protocol.Envelope, error) {
	if c.keys[k] != nil {
		return nil, fmt.Errorf("rowsynth: coordinator: %s said hello twice", OwnerID(k))
	}
	switch {
	case c.p.publicRecords() && h.Records < 1:
		return nil, fmt.Errorf("rowsynth: coordinator: %s holds no records", OwnerID(k))
	case !c.p.publicRecords() && h.Records != 0:
		return nil, fmt.Errorf("rowsynth: coordinator: %s sent its record count (%d) under add/remove neighbours, where it is private", OwnerID(k), h.Records)
	}
	c.keys[k], c.sigs[k], c.records[k] = h.Key, h.Sig, h.Records
	for _, key := range c.keys {
		if key == nil {
			return nil, nil
		}
	}
	out, err := c.broadcast(&Keys{Keys: c.keys, Sigs: c.sigs})
	if err != nil {
		return nil, err
	}
	m := &Measurer{c: c}
	c.x = protocol.StartExchange(c.ctx, func(ctx context.Context, ask func(context.Context, question) ([][]float64, error)) error {
		m.ask = ask
		return c.engine(ctx, m)
	})
	more, err := c.next()
	return append(out, more...), err
}

func (c *Coordinator) share(k int, s Share) ([]protocol.Envelope, error) {
	got, open := c.got[s.ID]
	if !open {
		return nil, fmt.Errorf("rowsynth: coordinator: share for request %d from %s while no such request is open", s.ID, OwnerID(k))
	}
	if got[k] != nil {
		return nil, fmt.Errorf("rowsynth: coordinator: two shares of request %d from %s", s.ID, OwnerID(k))
	}
	got[k] = s.Words
	for _, q := range c.cur {
		if len(c.got[q.ID]) < c.p.Owners {
			return nil, nil
		}
	}
	values := make([][]float64, len(c.cur))
	for i, q := range c.cur {
		v, err := c.assemble(q, c.got[q.ID])
		if err != nil {
			c.Stop()
			return nil, err
		}
		values[i] = v
	}
	c.cur, c.got = nil, nil
	if err := c.x.Answer(values, nil); err != nil {
		return nil, err
	}
	return c.next()
}

// assemble sums the owners' words of request q (the masks cancel) and, in
// insider-safe mode, the coordinator's own noise share, and maps the
// integer to the release's public grid.
func (c *Coordinator) assemble(q *Request, got map[int][]uint64) ([]float64, error) {
	n := len(got[0])
	plan, err := q.Release.Noise.Plan(max(n, 1))
	if err != nil {
		return nil, fmt.Errorf("rowsynth: coordinator: %w", err)
	}
	sum := make([]uint64, n)
	for k, w := range got {
		if len(w) != n {
			return nil, fmt.Errorf("rowsynth: coordinator: %s sent %d values, %s %d", OwnerID(k), len(w), OwnerID(0), n)
		}
		for i, v := range w {
			sum[i] += v
		}
	}
	if c.p.coordinatorDraws() {
		own := make([]int64, n)
		c.noiser.Shares(plan, c.p.parts(), own)
		for i, v := range own {
			sum[i] += uint64(v)
		}
	}
	out := make([]float64, n)
	for i, v := range sum {
		out[i] = float64(int64(v)) * plan.Grid
	}
	return out, nil
}

// next sends the engine's next releases to the owners, or closes the run
// when the engine is done. A Domain needs no reply: it is sent and the
// engine goes on at once.
func (c *Coordinator) next() ([]protocol.Envelope, error) {
	var out []protocol.Envelope
	for {
		q, more, err := c.x.Next()
		if err != nil {
			return nil, fmt.Errorf("rowsynth: coordinator: %w", err)
		}
		if !more {
			c.done = true
			closing, err := c.broadcast(Close{})
			return append(out, closing...), err
		}
		if q.domain != nil {
			sent, err := c.broadcast(q.domain)
			if err != nil {
				return nil, err
			}
			out = append(out, sent...)
			if err := c.x.Answer(nil, nil); err != nil {
				return nil, err
			}
			continue
		}
		c.cur, c.got = q.reqs, map[uint64]map[int][]uint64{}
		for _, r := range q.reqs {
			r.Session, r.Neighbours = c.p.Session, c.p.Neighbours.Or()
			c.got[r.ID] = map[int][]uint64{}
			sent, err := c.broadcast(r)
			if err != nil {
				return nil, err
			}
			out = append(out, sent...)
		}
		return out, nil
	}
}

func (c *Coordinator) broadcast(m protocol.Message) ([]protocol.Envelope, error) {
	out := make([]protocol.Envelope, 0, c.p.Owners)
	for k := range c.p.Owners {
		e, err := protocol.Seal("", CoordinatorID, OwnerID(k), m)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// Measurer is the engine's view of the owners' pooled records: every
// release is one request answered by all owners.
type Measurer struct {
	c      *Coordinator
	ask    func(context.Context, question) ([][]float64, error)
	nextID uint64
	// SelectCandidates is how many candidates an adaptive round asks the
	// owners to score (default DefaultSelectCandidates; Select).
	SelectCandidates int
	// Selections records each adaptive round's selection.
	Selections []SelectRound
	filter     SelectFilter
	// utilitiesChunk is the most sets one request of Utilities carries
	// (0: MaxSelectSets; tests set fewer).
	utilitiesChunk int
	// noisyRecords is the released noisy record count under add/remove
	// (ReleaseRecords), 0 before.
	noisyRecords int
}

var _ measurement.Batcher = (*Measurer)(nil)

// OwnerRecords are the owners' public record counts, in owner order;
// nil under add/remove, where they are private and never sent.
func (m *Measurer) OwnerRecords() []int {
	if !m.c.p.publicRecords() {
		return nil
	}
	return slices.Clone(m.c.records)
}

// Records is the pooled public record count Σ n_k, or under add/remove
// the released noisy one (ReleaseRecords; 0 before it).
func (m *Measurer) Records() int {
	if !m.c.p.publicRecords() {
		return m.noisyRecords
	}
	n := 0
	for _, r := range m.c.records {
		n += r
	}
	return n
}

// ReleaseRecords releases, under add/remove neighbours, the pooled record
// count n = Σ_k n_k as one count request (KindCount): every owner
// charges rho, then sends its n_k plus its share of discrete Gaussian
// noise of sensitivity 1 (adding or removing a record moves one owner's
// n_k by one) plus its masks, so the coordinator learns only the noisy
// total. It is the run's first release, and its value (clamped to at
// least 1, post-processing) is Records from then on.
func (m *Measurer) ReleaseRecords(ctx context.Context, rho float64) (int, error) {
	if m.c.p.publicRecords() {
		return 0, fmt.Errorf("rowsynth: the record count is public under %s: nothing to release", m.c.p.Neighbours.Or())
	}
	if m.noisyRecords != 0 {
		return 0, fmt.Errorf("rowsynth: the record count was released already")
	}
	q := &Request{Kind: KindCount, Release: measurement.Release{Purpose: "record count (add/remove neighbours)", Parties: []int{0}}}
	if err := q.Calibrate(m.c.p.Neighbours, measurement.Gaussian, rho); err != nil {
		return 0, fmt.Errorf("rowsynth: record count: %w", err)
	}
	v, err := m.release(ctx, q)
	if err != nil {
		return 0, err
	}
	m.noisyRecords = max(int(math.Round(v[0][0])), 1)
	return m.noisyRecords, nil
}

// release asks the owners for independent releases in one round.
func (m *Measurer) release(ctx context.Context, qs ...*Request) ([][]float64, error) {
	for _, q := range qs {
		m.nextID++
		q.ID = m.nextID
	}
	return m.ask(ctx, question{reqs: qs})
}

// Histograms releases, in one round, the pooled counts of each numeric
// column of cols on the public grid of cells cells over its bounds
// (domain.PublicGrid), with rs[i] the release of cols[i].
func (m *Measurer) Histograms(ctx context.Context, cols []int, cells int, rs []measurement.Release) ([][]float64, error) {
	qs := make([]*Request, len(cols))
	for i, j := range cols {
		qs[i] = &Request{Kind: KindHistogram, Column: j, Cells: cells, Release: rs[i]}
	}
	return m.release(ctx, qs...)
}

// SetDomain announces the bins every later marginal is counted on.
func (m *Measurer) SetDomain(ctx context.Context, cuts map[string][]float64) error {
	_, err := m.ask(ctx, question{domain: &Domain{Cuts: cuts}})
	return err
}

// Marginal releases the pooled counts over attrs plus noise of r's law.
func (m *Measurer) Marginal(ctx context.Context, attrs []int, r measurement.Release) ([]float64, error) {
	v, err := m.Marginals(ctx, [][]int{attrs}, []measurement.Release{r})
	if err != nil {
		return nil, err
	}
	return v[0], nil
}

// Marginals releases several marginals in one round.
func (m *Measurer) Marginals(ctx context.Context, sets [][]int, rs []measurement.Release) ([][]float64, error) {
	qs := make([]*Request, len(sets))
	for i, attrs := range sets {
		qs[i] = &Request{Kind: KindMarginal, Attrs: attrs, Release: rs[i]}
	}
	v, err := m.release(ctx, qs...)
	if err == nil {
		for _, attrs := range sets {
			m.filter.measure(attrs)
		}
	}
	return v, err
}

// Score answers the paper's IInDif score inside the protocol: every owner
// computes its own summand against the public reference (OwnerScore) and
// the coordinator learns only their sum plus the score's noise — the
// release the single curator makes of its exact score, with the same
// sensitivity (measurement.IInDifSensitivity) and noise. With several owners
// the sum is at least the pooled score (the triangle inequality, cell by
// cell): the owners' own sampling deviations from independence add up
// instead of partly cancelling, which overstates the dependency of an
// independent pair by a few records per cell. Computing the score from
// the pair's noisy pooled marginal instead (an earlier design) loses its
// signal under the cells' noise: on Big5 at ε = 1 its selection was 22 %
// worse (2-way TVD) than one curator's; summed owner scores are within
// 1–4 % (docs/results/rows/).
func (m *Measurer) Score(ctx context.Context, q measurement.ScoreQuery, r measurement.Release) (float64, error) {
	v, err := m.Scores(ctx, []measurement.ScoreQuery{q}, []measurement.Release{r})
	if err != nil {
		return 0, err
	}
	return v[0], nil
}

// Scores answers several scores (Score) in one round.
func (m *Measurer) Scores(ctx context.Context, qs []measurement.ScoreQuery, rs []measurement.Release) ([]float64, error) {
	reqs := make([]*Request, len(qs))
	for i, q := range qs {
		if q.Kind != measurement.IInDif {
			return nil, fmt.Errorf("rowsynth: pair score %q is not available across owners of rows (only %q)", q.Kind, measurement.IInDif)
		}
		if q.N < 1 {
			return nil, fmt.Errorf("rowsynth: score of (%d, %d) over %d records", q.A, q.B, q.N)
		}
		reqs[i] = &Request{Kind: KindScore, Attrs: []int{q.A, q.B}, Refs: [][]float64{frequencies(q.RefA, q.N), frequencies(q.RefB, q.N)}, Release: rs[i]}
		if !m.c.p.publicRecords() {
			// The engine calibrated one curator's score (sensitivity 1
			// under add/remove); the owners' summed score has its own
			// (AddRemoveScoreSensitivity), at the same mechanism and ρ.
			if err := reqs[i].Calibrate(m.c.p.Neighbours, rs[i].Noise.Mechanism, rs[i].Noise.Rho); err != nil {
				return nil, fmt.Errorf("rowsynth: score of (%d, %d): %w", q.A, q.B, err)
			}
		}
	}
	v, err := m.release(ctx, reqs...)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(qs))
	for i := range qs {
		out[i] = v[i][0]
	}
	return out, nil
}

// frequencies are reference counts over the public record count n: the
// owners' references then add up to counts·counts'/n, the curator's.
func frequencies(counts []float64, n int) []float64 {
	out := make([]float64, len(counts))
	for i, c := range counts {
		out[i] = c / float64(n)
	}
	return out
}
