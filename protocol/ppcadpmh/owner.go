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
	if o.Params.Noise == SecureAggregate {
		if err := checkFixedRange(plan, n, len(o.Params.Owners)); err != nil {
			return nil, fmt.Errorf("ppcadpmh: owner %q: %w", o.ID, err)
		}
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
	stat := Statistics{N: n, P: p}
	if w.o.Params.Noise == Local {
		w.release(packed, p)
		stat.Packed = packed
	} else {
		words, err := w.encode(packed, p)
		if err != nil {
			return nil, err
		}
		stat.Masked = w.mask(words)
	}
	e, err := protocol.Seal(w.o.Params.Session, w.o.ID, w.o.Params.Curator, stat)
	return []protocol.Envelope{e}, err
}

// release is local mode: every noised entry x of a block becomes
// g·(round(x/g) + K) with the block's grid g and discrete noise K
// (ppca.Plan.SumNoise, OuterNoise), so the curator receives a function of
// the rounded statistic plus integer noise only; structural zeros are
// sent as exactly 0, their value on every dataset the bounds allow.
func (w *Owner) release(packed []float64, p int) {
	var sums, outer []float64
	for i, x := range packed {
		switch {
		case !w.plan.Noised[i]:
		case i < p:
			sums = append(sums, x)
		default:
			outer = append(outer, x)
		}
	}
	w.noiser.Release(w.plan.SumNoise, sums)
	w.noiser.Release(w.plan.OuterNoise, outer)
	for i := range packed {
		switch {
		case !w.plan.Noised[i]:
			packed[i] = 0 // a structural zero: 0 on every dataset the bounds allow
		case i < p:
			packed[i], sums = sums[0], sums[1:]
		default:
			packed[i], outer = outer[0], outer[1:]
		}
	}
}

// encode is secure-aggregate mode before masking: every entry x becomes
// the integer round(x/g) on its block's grid g plus, when noised, this
// owner's integer share of the block's noise (dp.Noiser.Shares over m
// owners: the m shares sum to exactly the discrete Laplace of the block,
// or to its discrete Gaussian within the distributed discrete Gaussian's
// τ), as a two's-complement word. The curator's sum of the m words is
// then Σ round(x/g) + K exactly, which it scales by g; structural zeros
// are the word 0 (no noise, as in local mode). Each word is kept
// within ±2^62/m so that the sum never leaves the int64 range.
func (w *Owner) encode(packed []float64, p int) ([]uint64, error) {
	m := len(w.o.Params.Owners)
	limit := int64(fixedLimit / uint64(m))
	dimSum, dimOuter := 0, 0
	for i := range packed {
		if w.plan.Noised[i] {
			if i < p {
				dimSum++
			} else {
				dimOuter++
			}
		}
	}
	sumShares, outerShares := make([]int64, dimSum), make([]int64, dimOuter)
	w.noiser.Shares(w.plan.SumNoise, m, sumShares)
	w.noiser.Shares(w.plan.OuterNoise, m, outerShares)
	out := make([]uint64, len(packed))
	for i, x := range packed {
		g := w.plan.BlockNoise(i, p)
		if !w.plan.Noised[i] {
			continue // a structural zero: word 0
		}
		snap := g.Snap(x)
		if !(math.Abs(snap) <= float64(limit)) {
			return nil, fmt.Errorf("ppcadpmh: owner %q: entry %d is %g grid steps of %g, beyond the fixed-point range ±2^62/%d", w.o.ID, i, snap, g.Grid, m)
		}
		v := int64(snap)
		if i < p {
			v += sumShares[0]
			sumShares = sumShares[1:]
		} else {
			v += outerShares[0]
			outerShares = outerShares[1:]
		}
		if v > limit || v < -limit {
			return nil, fmt.Errorf("ppcadpmh: owner %q: entry %d with its noise share is %d grid steps of %g, beyond the fixed-point range ±2^62/%d", w.o.ID, i, v, g.Grid, m)
		}
		out[i] = uint64(v)
	}
	return out, nil
}

// mask adds +mask for later owners' seeds and −mask for earlier owners' to
// the fixed-point words, so all owners' masks cancel in the sum.
func (w *Owner) mask(words []uint64) []uint64 {
	out := append([]uint64(nil), words...)
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
