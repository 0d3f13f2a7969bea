package roles

import (
	"fmt"
	"slices"

	"github.com/dppub/dppub/method/ppcadpmh/ppca"
	"github.com/dppub/dppub/protocol"
	"gonum.org/v1/gonum/mat"
)

// Curator is the semi-trusted curator's role.
type Curator struct {
	params Params
	plan   *ppca.Plan
	stats  map[string]Statistics
	got    map[string]int // synthetic rows received, by owner
	offset map[string]int // where an owner's rows start in synthetic
	// synthetic holds every owner's rows in owner order, allocated once
	// when the statistics give the total; nil with a sink.
	synthetic []float64
	sink      func(owner string, first int, rows *mat.Dense) error
	// turn is the owner whose rows the sink takes now; released counts
	// the owners, in owner order, that were sent the model (with a sink,
	// only up to turn).
	turn, released int
	msg            ModelMsg
	model          *ppca.Model
	est            *ppca.Estimate
}

// NewCurator validates the session parameters.
func NewCurator(p Params) (*Curator, error) {
	a, err := Agree(p)
	if err != nil {
		return nil, err
	}
	return NewAgreedCurator(a), nil
}

// NewAgreedCurator is the curator of parameters already agreed.
func NewAgreedCurator(a *Agreed) *Curator {
	return &Curator{params: a.Params(), plan: a.Derived(), stats: map[string]Statistics{}, got: map[string]int{}}
}

// SetSink hands every chunk of synthetic rows to f instead of keeping
// them, so the curator's memory does not grow with the rows (Result's
// Synthetic is then nil). f sees the rows in Result's order — every row of
// the first owner, then the second's, … — so that what it writes is what
// the whole matrix would give. For that the curator sends the model to
// one owner at a time, the next once the last row of the one before has
// arrived: owners on a network stream at once, and a later owner's rows
// that arrived before their turn would have to be held (up to all but one
// owner's rows). Each owner draws from its own randomness, so the rows
// are the same as when every owner gets the model at once. A chunk from
// an owner out of its turn is an error. Call it before the session runs.
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
		return c.addRows(e.From, r)
	}
	return nil, fmt.Errorf("ppcadpmh: curator cannot handle %q", e.Type)
}

// addRows stores one chunk of an owner's rows, or hands it to the sink
// and then sends the model to the next owner once this one's rows are
// all in (a replayed chunk is ignored; a gap or a surplus is an error).
func (c *Curator) addRows(from string, r Rows) ([]protocol.Envelope, error) {
	p := c.params.Plan.Bounds.P
	if c.model == nil {
		return nil, fmt.Errorf("ppcadpmh: %s sent rows before the model", from)
	}
	if r.P != p {
		return nil, fmt.Errorf("ppcadpmh: %s sent rows of width %d, want %d", from, r.P, p)
	}
	k, got, want := len(r.Data)/p, c.got[from], c.stats[from].N
	switch {
	case r.First+k <= got:
		return nil, nil // a replay
	case r.First != got:
		return nil, fmt.Errorf("ppcadpmh: %s sent rows from %d, expected row %d next", from, r.First, got)
	case got+k > want:
		return nil, fmt.Errorf("ppcadpmh: %s sent %d rows, more than its %d records", from, got+k, want)
	case c.sink != nil && (c.turn >= len(c.params.Owners) || from != c.params.Owners[c.turn]):
		return nil, fmt.Errorf("ppcadpmh: %s sent rows out of its turn (it was not sent the model yet)", from)
	}
	c.got[from] = got + k
	if c.sink == nil {
		copy(c.synthetic[(c.offset[from]+r.First)*p:], r.Data)
		return nil, nil
	}
	if err := c.sink(from, got, mat.NewDense(k, p, r.Data)); err != nil {
		return nil, err
	}
	return c.release()
}

// release sends the model, in owner order, to every owner up to the first
// whose rows are not all in yet (with a sink, where rows go out in owner
// order, one owner streams at a time).
func (c *Curator) release() ([]protocol.Envelope, error) {
	owners := c.params.Owners
	var out []protocol.Envelope
	for c.turn < len(owners) {
		o := owners[c.turn]
		if c.released == c.turn {
			e, err := protocol.Seal(c.params.Session, c.params.Curator, o, c.msg)
			if err != nil {
				return nil, err
			}
			out = append(out, e)
			c.released++
		}
		if c.got[o] < c.stats[o].N {
			break
		}
		c.turn++
	}
	return out, nil
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
	c.msg = ModelMsg{Mean: model.Mean, Eigenvalues: model.Eigenvalues, K: model.K, Sigma2: model.Sigma2,
		Components: mat.DenseCopyOf(model.Components).RawMatrix().Data}
	if c.sink != nil {
		return c.release()
	}
	return protocol.Broadcast(c.params.Session, c.params.Curator, c.params.Owners, c.msg)
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
		packed, err := decode(c.plan, p, total)
		if err != nil {
			return nil, err
		}
		c.plan.FillDerived(packed)
		sum, outer := ppca.Unpack(packed, p)
		return ppca.Pooled([]ppca.NoisyMoments{{N: n, Sum: sum, Outer: outer}})
	}
	parts := make([]ppca.NoisyMoments, 0, len(c.params.Owners))
	for _, o := range c.params.Owners {
		s := c.stats[o]
		if len(s.Packed) != packedLen(p) {
			return nil, fmt.Errorf("ppcadpmh: %s sent masked statistics in local mode", o)
		}
		if err := onGrid(c.plan, p, s.Packed); err != nil {
			return nil, fmt.Errorf("ppcadpmh: %s: %w", o, err)
		}
		packed := slices.Clone(s.Packed)
		c.plan.FillDerived(packed)
		sum, outer := ppca.Unpack(packed, p)
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
