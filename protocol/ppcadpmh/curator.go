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
	rows   map[string]Rows
	model  *ppca.Model
	est    *ppca.Estimate
}

// NewCurator validates the session parameters.
func NewCurator(p Params) (*Curator, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Curator{params: p, stats: map[string]Statistics{}, rows: map[string]Rows{}}, nil
}

// ID is the curator's name.
func (c *Curator) ID() string { return c.params.Curator }

// Start does nothing: the owners speak first.
func (c *Curator) Start() ([]protocol.Envelope, error) { return nil, nil }

// Done reports whether every owner's synthetic rows have arrived.
func (c *Curator) Done() bool { return len(c.rows) == len(c.params.Owners) }

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
		if want := c.stats[e.From].N; len(r.Data) != want*c.params.Plan.Bounds.P {
			return nil, fmt.Errorf("ppcadpmh: %s sent %d values, want %d rows", e.From, len(r.Data), want)
		}
		if _, dup := c.rows[e.From]; !dup {
			c.rows[e.From] = r
		}
		return nil, nil
	}
	return nil, fmt.Errorf("ppcadpmh: curator cannot handle %q", e.Type)
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
	Synthetic *mat.Dense // union of the owners' synthetic rows, in owner order
	Model     *ppca.Model
	Estimate  *ppca.Estimate
	Counts    map[string]int
}

// Result returns the published output once Done.
func (c *Curator) Result() (*Result, error) {
	if !c.Done() {
		return nil, fmt.Errorf("ppcadpmh: the session is not finished (%d of %d owners delivered rows)", len(c.rows), len(c.params.Owners))
	}
	p := c.params.Plan.Bounds.P
	var data []float64
	counts := map[string]int{}
	for _, o := range c.params.Owners {
		data = append(data, c.rows[o].Data...)
		counts[o] = c.stats[o].N
	}
	return &Result{Synthetic: mat.NewDense(len(data)/p, p, data), Model: c.model, Estimate: c.est, Counts: counts}, nil
}
