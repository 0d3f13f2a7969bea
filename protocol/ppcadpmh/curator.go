package ppcadpmh

import (
	"fmt"
	"slices"

	"github.com/dppub/dppub/algo/ppca"
	"github.com/dppub/dppub/protocol"
	"gonum.org/v1/gonum/mat"
)

// Curator is the semi-trusted curator's role.
type Curator struct {
	params Params
	stats  map[string]Statistics
	got    map[string]int // synthetic rows received, by owner
	sent   map[string]int // synthetic rows handed to the sink, by owner
	offset map[string]int // where an owner's rows start in synthetic
	// synthetic holds every owner's rows in owner order, allocated once
	// when the statistics give the total; nil with a sink.
	synthetic []float64
	sink      func(owner string, first int, rows *mat.Dense) error
	// turn is the owner whose rows the sink takes now; early holds the
	// chunks of later owners that arrived before their turn.
	turn  int
	early map[string][]*mat.Dense
	model *ppca.Model
	est   *ppca.Estimate
}

// NewCurator validates the session parameters.
func NewCurator(p Params) (*Curator, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Curator{params: p, stats: map[string]Statistics{}, got: map[string]int{}, sent: map[string]int{}}, nil
}

// SetSink hands every chunk of synthetic rows to f instead of keeping
// them, so the curator's memory does not grow with the rows (Result's
// Synthetic is then nil). f sees the rows in Result's order — every row of
// the first owner, then the second's, … — so that what it writes is what
// the whole matrix would give: a chunk of a later owner that arrives
// before its turn is held until then (none is in one process, where
// protocol.RunLocal drains the owners' streams in owner order). Call it
// before the session runs.
func (c *Curator) SetSink(f func(owner string, first int, rows *mat.Dense) error) { c.sink = f }

// ID is the curator's name.
func (c *Curator) ID() string { return c.params.Curator }

// Start does nothing: the owners speak first.
func (c *Curator) Start() ([]protocol.Envelope, error) { return nil, nil }

// Done reports whether every owner's synthetic rows have arrived.
func (c *Curator) Done() bool {
	if c.model == nil {
		return false
	}
	for _, o := range c.params.Owners {
		if c.got[o] < c.stats[o].N {
			return false
		}
	}
	return true
}

// Handle collects statistics and rows.
func (c *Curator) Handle(e protocol.Envelope) ([]protocol.Envelope, error) {
	if c.params.ownerIndex(e.From) < 0 {
		return nil, fmt.Errorf("ppcadpmh: message from %q, not an owner", e.From)
	}
	switch e.Type {
	case TypeStatistics:
		var s Statistics
		if err := s.UnmarshalBinary(e.Payload); err != nil {
			return nil, err
		}
		if s.P != c.params.Plan.Bounds.P {
			return nil, fmt.Errorf("ppcadpmh: %s sent p=%d, want %d", e.From, s.P, c.params.Plan.Bounds.P)
		}
		if _, dup := c.stats[e.From]; dup {
			return nil, nil // a replay: ignore
		}
		c.stats[e.From] = s
		if len(c.stats) < len(c.params.Owners) {
			return nil, nil
		}
		return c.fitAndBroadcast()
	case TypeRows:
		var r Rows
		if err := r.UnmarshalBinary(e.Payload); err != nil {
			return nil, err
		}
		return nil, c.addRows(e.From, r)
	}
	return nil, fmt.Errorf("ppcadpmh: curator cannot handle %q", e.Type)
}

// addRows stores one chunk of an owner's rows (a replayed chunk is
// ignored; a gap or a surplus is an error).
func (c *Curator) addRows(from string, r Rows) error {
	p := c.params.Plan.Bounds.P
	if c.model == nil {
		return fmt.Errorf("ppcadpmh: %s sent rows before the model", from)
	}
	if r.P != p {
		return fmt.Errorf("ppcadpmh: %s sent rows of width %d, want %d", from, r.P, p)
	}
	k, got, want := len(r.Data)/p, c.got[from], c.stats[from].N
	switch {
	case r.First+k <= got:
		return nil // a replay
	case r.First != got:
		return fmt.Errorf("ppcadpmh: %s sent rows from %d, expected row %d next", from, r.First, got)
	case got+k > want:
		return fmt.Errorf("ppcadpmh: %s sent %d rows, more than its %d records", from, got+k, want)
	}
	c.got[from] = got + k
	if c.sink != nil {
		if k == 0 {
			return nil
		}
		return c.deliver(from, mat.NewDense(k, p, r.Data))
	}
	copy(c.synthetic[(c.offset[from]+r.First)*p:], r.Data)
	return nil
}

// deliver hands rows (the next chunk of from's, already counted in got)
// to the sink if it is from's turn, else holds them; then, while the
// owner whose turn it is has delivered all its rows, passes the turn on
// and hands over what the next owner sent early.
func (c *Curator) deliver(from string, rows *mat.Dense) error {
	owners := c.params.Owners
	if from != owners[c.turn] {
		if c.early == nil {
			c.early = map[string][]*mat.Dense{}
		}
		c.early[from] = append(c.early[from], rows)
		return nil
	}
	if err := c.sinkRows(from, rows); err != nil {
		return err
	}
	for c.turn < len(owners) && c.got[owners[c.turn]] == c.stats[owners[c.turn]].N {
		c.turn++
		if c.turn == len(owners) {
			break
		}
		next := owners[c.turn]
		held := c.early[next]
		delete(c.early, next)
		for _, m := range held {
			if err := c.sinkRows(next, m); err != nil {
				return err
			}
		}
	}
	return nil
}

// sinkRows hands one chunk to the sink with the index, in its owner's
// rows, of its first row.
func (c *Curator) sinkRows(owner string, rows *mat.Dense) error {
	k, _ := rows.Dims()
	first := c.sent[owner]
	c.sent[owner] = first + k
	return c.sink(owner, first, rows)
}

func (c *Curator) fitAndBroadcast() ([]protocol.Envelope, error) {
	est, err := c.estimate()
	if err != nil {
		return nil, err
	}
	model, err := ppca.Fit(est, c.params.Fit)
	if err != nil {
		return nil, err
	}
	c.est, c.model = est, model
	c.offset = map[string]int{}
	total := 0
	for _, o := range c.params.Owners {
		c.offset[o] = total
		total += c.stats[o].N
	}
	if c.sink == nil {
		c.synthetic = make([]float64, total*c.params.Plan.Bounds.P)
	}
	msg := ModelMsg{Mean: model.Mean, Eigenvalues: model.Eigenvalues, K: model.K, Sigma2: model.Sigma2,
		Components: mat.DenseCopyOf(model.Components).RawMatrix().Data}
	var out []protocol.Envelope
	for _, o := range c.params.Owners {
		e, err := protocol.Seal(c.params.Session, c.params.Curator, o, msg)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

func (c *Curator) estimate() (*ppca.Estimate, error) {
	p := c.params.Plan.Bounds.P
	if c.params.Noise == SecureAggregate {
		total := make([]uint64, packedLen(p))
		n := 0
		for _, o := range c.params.Owners {
			s := c.stats[o]
			if len(s.Masked) != len(total) {
				return nil, fmt.Errorf("ppcadpmh: %s sent unmasked statistics in secure-aggregate mode", o)
			}
			n += s.N
			for i, w := range s.Masked {
				total[i] += w
			}
		}
		plan, err := ppca.NewPlan(c.params.Plan)
		if err != nil {
			return nil, err
		}
		packed, err := decode(plan, p, total)
		if err != nil {
			return nil, err
		}
		plan.FillDerived(packed)
		sum, outer := unpack(packed, p)
		return ppca.Pooled([]ppca.NoisyMoments{{N: n, Sum: sum, Outer: outer}})
	}
	plan, err := ppca.NewPlan(c.params.Plan)
	if err != nil {
		return nil, err
	}
	parts := make([]ppca.NoisyMoments, 0, len(c.params.Owners))
	for _, o := range c.params.Owners {
		s := c.stats[o]
		if len(s.Packed) != packedLen(p) {
			return nil, fmt.Errorf("ppcadpmh: %s sent masked statistics in local mode", o)
		}
		if err := onGrid(plan, p, s.Packed); err != nil {
			return nil, fmt.Errorf("ppcadpmh: %s: %w", o, err)
		}
		packed := slices.Clone(s.Packed)
		plan.FillDerived(packed)
		sum, outer := unpack(packed, p)
		parts = append(parts, ppca.NoisyMoments{N: s.N, Sum: sum, Outer: outer})
	}
	if c.params.Plan.Calibration == ppca.Paper {
		return ppca.PaperAggregate(parts)
	}
	return ppca.Pooled(parts)
}

// Result is what the curator publishes.
type Result struct {
	Synthetic *mat.Dense // union of the owners' synthetic rows, in owner order (nil with a sink)
	Model     *ppca.Model
	Estimate  *ppca.Estimate
	Counts    map[string]int
}

// Result returns the published output once Done.
func (c *Curator) Result() (*Result, error) {
	if !c.Done() {
		return nil, fmt.Errorf("ppcadpmh: the session is not finished (%d of %d owners delivered all rows)", c.finished(), len(c.params.Owners))
	}
	p := c.params.Plan.Bounds.P
	counts := map[string]int{}
	for _, o := range c.params.Owners {
		counts[o] = c.stats[o].N
	}
	res := &Result{Model: c.model, Estimate: c.est, Counts: counts}
	if c.synthetic != nil {
		res.Synthetic = mat.NewDense(len(c.synthetic)/p, p, c.synthetic)
	}
	return res, nil
}

func (c *Curator) finished() int {
	k := 0
	for _, o := range c.params.Owners {
		if c.got[o] >= c.stats[o].N {
			k++
		}
	}
	return k
}
