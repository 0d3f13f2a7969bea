package ppcadpmh

import (
	"fmt"
	"math"

	"github.com/dppub/dppub/algo/ppca"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/linalg"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// OwnerOptions configure one data owner.
type OwnerOptions struct {
	ID     string
	Params Params
	// Data are the owner's encoded rows, every entry in [0, 1].
	Data *mat.Dense
	// Accountant is charged before any noisy value leaves the owner.
	Accountant *privacy.Accountant
	Source     *randx.Source
}

// Owner is a data owner's role.
type Owner struct {
	o        OwnerOptions
	index    int
	plan     *ppca.Plan
	noiser   *dp.Noiser
	seeds    map[string][]byte // pairwise seeds: own (to later owners) and received
	sentStat bool
	done     bool
}

// NewOwner validates o.
func NewOwner(o OwnerOptions) (*Owner, error) {
	if err := o.Params.Validate(); err != nil {
		return nil, err
	}
	idx := o.Params.ownerIndex(o.ID)
	if idx < 0 {
		return nil, fmt.Errorf("ppcadpmh: %q is not an owner of this session", o.ID)
	}
	if o.Data == nil || o.Accountant == nil || o.Source == nil {
		return nil, fmt.Errorf("ppcadpmh: owner %q needs data, an accountant and a randomness source", o.ID)
	}
	n, p := o.Data.Dims()
	if p != o.Params.Plan.Bounds.P {
		return nil, fmt.Errorf("ppcadpmh: owner %q has %d columns, the session expects %d", o.ID, p, o.Params.Plan.Bounds.P)
	}
	if n < 2 {
		return nil, fmt.Errorf("ppcadpmh: owner %q holds %d rows, need at least 2", o.ID, n)
	}
	if err := checkUnitInterval(o.Data); err != nil {
		return nil, fmt.Errorf("ppcadpmh: owner %q: %w", o.ID, err)
	}
	plan, err := ppca.NewPlan(o.Params.Plan)
	if err != nil {
		return nil, err
	}
	return &Owner{o: o, index: idx, plan: plan, noiser: dp.NewNoiser(o.Source), seeds: map[string][]byte{}}, nil
}

func checkUnitInterval(X *mat.Dense) error {
	n, _ := X.Dims()
	for i := 0; i < n; i++ {
		for j, v := range X.RawRowView(i) {
			if !(v >= 0 && v <= 1) {
				return fmt.Errorf("row %d column %d is %v, outside [0, 1] (encode with declared bounds first)", i, j, v)
			}
		}
	}
	return nil
}

// ID is the owner's name.
func (w *Owner) ID() string { return w.o.ID }

// Done reports whether the owner has sent its synthetic rows.
func (w *Owner) Done() bool { return w.done }

// Start sends mask seeds (secure-aggregate) or the statistics (local).
func (w *Owner) Start() ([]protocol.Envelope, error) {
	if w.o.Params.Noise == Local {
		return w.sendStatistics()
	}
	var out []protocol.Envelope
	for _, peer := range w.o.Params.Owners[w.index+1:] {
		seed := make([]byte, seedLen)
		for i := range seed {
			seed[i] = byte(w.o.Source.Uint64())
		}
		w.seeds[peer] = seed
		e, err := protocol.Seal(w.o.Params.Session, w.o.ID, peer, MaskSeed{Seed: seed})
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	more, err := w.maybeSendStatistics()
	return append(out, more...), err
}

// Handle receives mask seeds and the model.
func (w *Owner) Handle(e protocol.Envelope) ([]protocol.Envelope, error) {
	switch e.Type {
	case TypeMaskSeed:
		if w.o.Params.Noise != SecureAggregate || w.o.Params.ownerIndex(e.From) < 0 || w.o.Params.ownerIndex(e.From) >= w.index {
			return nil, fmt.Errorf("ppcadpmh: unexpected mask seed from %q", e.From)
		}
		var m MaskSeed
		if err := m.UnmarshalBinary(e.Payload); err != nil {
			return nil, err
		}
		if _, dup := w.seeds[e.From]; dup {
			return nil, nil // a replay: ignore
		}
		w.seeds[e.From] = m.Seed
		return w.maybeSendStatistics()
	case TypeModel:
		if e.From != w.o.Params.Curator {
			return nil, fmt.Errorf("ppcadpmh: model from %q, not the curator", e.From)
		}
		if w.done {
			return nil, nil
		}
		var m ModelMsg
		if err := m.UnmarshalBinary(e.Payload); err != nil {
			return nil, err
		}
		return w.synthesize(m)
	}
	return nil, fmt.Errorf("ppcadpmh: owner cannot handle %q", e.Type)
}

func (w *Owner) maybeSendStatistics() ([]protocol.Envelope, error) {
	if w.sentStat || len(w.seeds) < len(w.o.Params.Owners)-1 {
		return nil, nil
	}
	return w.sendStatistics()
}

// sendStatistics charges the accountant, then releases the noisy sums.
func (w *Owner) sendStatistics() ([]protocol.Envelope, error) {
	for _, c := range w.plan.Charges {
		if err := w.o.Accountant.Spend(c); err != nil {
			return nil, err
		}
	}
	w.sentStat = true
	n, p := w.o.Data.Dims()
	sum, outer := linalg.Moments(w.o.Data)
	packed := pack(sum, outer)
	w.addNoise(packed, p)
	stat := Statistics{N: n, P: p}
	if w.o.Params.Noise == Local {
		stat.Packed = packed
	} else {
		stat.Masked = w.mask(packed)
	}
	e, err := protocol.Seal(w.o.Params.Session, w.o.ID, w.o.Params.Curator, stat)
	return []protocol.Envelope{e}, err
}

// addNoise adds the plan's noise (local) or this owner's share of it.
func (w *Owner) addNoise(packed []float64, p int) {
	m := float64(len(w.o.Params.Owners))
	draw := func(scale float64) float64 {
		switch {
		case w.o.Params.Noise == Local && w.plan.Mechanism == ppca.Laplace:
			return w.noiser.Laplace(scale)
		case w.o.Params.Noise == Local:
			return w.noiser.Gaussian(scale)
		case w.plan.Mechanism == ppca.Laplace:
			return w.noiser.Gamma(1/m, scale) - w.noiser.Gamma(1/m, scale)
		default:
			return w.noiser.Gaussian(scale / math.Sqrt(m))
		}
	}
	var zero []bool
	if w.o.Params.Plan.Calibration == ppca.Sound {
		zero = w.o.Params.Plan.Bounds.StructuralZeros()
	}
	for i := range packed {
		if zero != nil && zero[i] {
			continue
		}
		scale := w.plan.OuterScale
		if i < p {
			scale = w.plan.SumScale
		}
		packed[i] += draw(scale)
	}
}

// mask encodes packed in fixed point and adds +mask for later owners' seeds
// and −mask for earlier owners', so all owners' masks cancel in the sum.
func (w *Owner) mask(packed []float64) []uint64 {
	out := make([]uint64, len(packed))
	for i, v := range packed {
		out[i] = toFixed(v)
	}
	for peer, seed := range w.seeds {
		stream := maskStream(seed, len(out))
		later := w.o.Params.ownerIndex(peer) > w.index
		for i, s := range stream {
			if later {
				out[i] += s
			} else {
				out[i] -= s
			}
		}
	}
	return out
}

func (w *Owner) synthesize(m ModelMsg) ([]protocol.Envelope, error) {
	p := len(m.Mean)
	model, err := modelFromMsg(m)
	if err != nil {
		return nil, err
	}
	n, _ := w.o.Data.Dims()
	var rows *mat.Dense
	if w.o.Params.PaperLatent {
		rows = model.Reconstruct(w.o.Data, w.o.Source)
	} else {
		rows = model.Sample(n, w.o.Source)
	}
	w.done = true
	e, err := protocol.Seal(w.o.Params.Session, w.o.ID, w.o.Params.Curator, Rows{P: p, Data: rows.RawMatrix().Data})
	return []protocol.Envelope{e}, err
}

func modelFromMsg(m ModelMsg) (*ppca.Model, error) {
	p := len(m.Mean)
	u := mat.NewDense(p, m.K, m.Components)
	wm := mat.NewDense(p, m.K, nil)
	for j := 0; j < m.K; j++ {
		d := m.Eigenvalues[j] - m.Sigma2
		if !(d > 0) {
			return nil, fmt.Errorf("ppcadpmh: model component %d has eigenvalue %v ≤ σ² = %v", j, m.Eigenvalues[j], m.Sigma2)
		}
		f := math.Sqrt(d)
		for i := 0; i < p; i++ {
			wm.Set(i, j, u.At(i, j)*f)
		}
	}
	return &ppca.Model{Mean: m.Mean, Eigenvalues: m.Eigenvalues, Components: u, K: m.K, Sigma2: m.Sigma2, W: wm}, nil
}

func pack(sum []float64, outer *mat.SymDense) []float64 {
	p := len(sum)
	out := make([]float64, 0, packedLen(p))
	out = append(out, sum...)
	for i := 0; i < p; i++ {
		for j := i; j < p; j++ {
			out = append(out, outer.At(i, j))
		}
	}
	return out
}

func unpack(packed []float64, p int) ([]float64, *mat.SymDense) {
	sum := append([]float64(nil), packed[:p]...)
	outer := mat.NewSymDense(p, nil)
	k := p
	for i := 0; i < p; i++ {
		for j := i; j < p; j++ {
			outer.SetSym(i, j, packed[k])
			k++
		}
	}
	return sum, outer
}
