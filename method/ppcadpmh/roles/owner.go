package roles

import (
	"fmt"
	"math"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/method/ppcadpmh/ppca"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// OwnerOptions configure one data owner. Its statistics are Moments when
// given, else computed from Data or Table (one of them; PaperLatent needs
// one of them even with Moments).
type OwnerOptions struct {
	ID     string
	Params Params
	// Agreed, instead of Params, are the session's parameters checked
	// once with their plan (Agree): the owner takes them as they are.
	Agreed *Agreed
	// Data are the owner's encoded rows, every entry in [0, 1].
	Data *mat.Dense
	// Table and Encoder are the owner's rows and the session's encoder:
	// the statistics are computed in one pass that encodes each row on the
	// fly (ppca.TableMoments), with no n×p matrix, on Workers cores
	// (≤ 0: all).
	Table   *data.Table
	Encoder *data.Encoder
	Workers int
	// Moments are statistics computed elsewhere with the same encoding
	// (ppca.TableMoments, the Beam pipeline, a statistics file).
	Moments *ppca.Moments
	// Accountant is charged before any noisy value leaves the owner.
	Accountant *privacy.Accountant
	Source     *randx.Source
}

// Owner is a data owner's role.
type Owner struct {
	o        OwnerOptions
	moments  *ppca.Moments
	rows     *ppca.RowStream // synthetic rows still to send, once the model came
	chunk    []float64
	index    int
	plan     *ppca.Plan
	noiser   *dp.Noiser
	seeds    map[string][]byte // pairwise seeds: own (to later owners) and received
	sentStat bool
	done     bool
}

// NewOwner validates o.
func NewOwner(o OwnerOptions) (*Owner, error) {
	agreed, err := protocol.Settle(&o.Agreed, &o.Params, Params.check)
	if err != nil {
		return nil, err
	}
	plan := agreed.Derived()
	idx := o.Params.ownerIndex(o.ID)
	if idx < 0 {
		return nil, fmt.Errorf("ppcadpmh: %q is not an owner of this session", o.ID)
	}
	if o.Accountant == nil || o.Source == nil {
		return nil, fmt.Errorf("ppcadpmh: owner %q needs an accountant and a randomness source", o.ID)
	}
	m, err := ownerMoments(o)
	if err != nil {
		return nil, fmt.Errorf("ppcadpmh: owner %q: %w", o.ID, err)
	}
	n, p := m.N, m.P
	if p != o.Params.Plan.Bounds.P {
		return nil, fmt.Errorf("ppcadpmh: owner %q has %d columns, the session expects %d", o.ID, p, o.Params.Plan.Bounds.P)
	}
	if n < 2 {
		return nil, fmt.Errorf("ppcadpmh: owner %q holds %d rows, need at least 2", o.ID, n)
	}
	if o.Params.Noise == SecureAggregate {
		if err := checkFixedRange(plan, n, len(o.Params.Owners)); err != nil {
			return nil, fmt.Errorf("ppcadpmh: owner %q: %w", o.ID, err)
		}
	}
	return &Owner{o: o, moments: m, index: idx, plan: plan, noiser: dp.NewNoiser(o.Source), seeds: map[string][]byte{}}, nil
}

// ownerMoments takes the given moments, or computes them from the one
// source of rows the options give.
func ownerMoments(o OwnerOptions) (*ppca.Moments, error) {
	if o.Data != nil && o.Table != nil {
		return nil, fmt.Errorf("give the rows as data or as a table, not both")
	}
	if o.Table != nil && o.Encoder == nil {
		return nil, fmt.Errorf("a table needs the session's encoder")
	}
	if o.Params.PaperLatent && o.Data == nil && o.Table == nil {
		return nil, fmt.Errorf("paper latent codes need the rows, not only their moments")
	}
	switch {
	case o.Moments != nil:
		return o.Moments, nil
	case o.Table != nil:
		m, _, err := ppca.TableMoments(o.Table, o.Encoder, o.Workers)
		return m, err
	case o.Data != nil:
		if err := checkUnitInterval(o.Data); err != nil {
			return nil, err
		}
		return ppca.DenseMoments(o.Data, o.Workers), nil
	}
	return nil, fmt.Errorf("no rows: give data, a table or moments")
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
		if !w.sentStat || w.rows != nil {
			// Before the statistics the model cannot be the session's; a
			// second one mid-stream would restart the rows (with
			// paper_latent, project the real rows again).
			return nil, fmt.Errorf("ppcadpmh: owner %q: model from the curator before its statistics or while its rows stream", w.o.ID)
		}
		var m ModelMsg
		if err := m.UnmarshalBinary(e.Payload); err != nil {
			return nil, err
		}
		if err := w.checkModel(m); err != nil {
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
	n, p := w.moments.N, w.moments.P
	packed := w.moments.Packed()
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

// synthesize starts the stream of synthetic rows (as many as the owner
// holds), sent by More in chunks of at most protocol.ChunkBytes.
func (w *Owner) synthesize(m ModelMsg) ([]protocol.Envelope, error) {
	model, err := modelFromMsg(m)
	if err != nil {
		return nil, err
	}
	n := w.moments.N
	if w.o.Params.PaperLatent {
		w.rows = model.ReconstructStream(n, w.realRows(), w.o.Source)
	} else {
		w.rows = model.SampleStream(n, w.o.Source)
	}
	p := len(m.Mean)
	w.chunk = make([]float64, protocol.RowsPerChunk(8*p)*p)
	return w.More()
}

// More sends the next chunk of synthetic rows (protocol.Streamer): the
// owner holds one chunk of rows and one block of latent codes
// (ppca.SampleBlock), whatever its number of rows.
func (w *Owner) More() ([]protocol.Envelope, error) {
	if w.rows == nil || w.done {
		return nil, nil
	}
	p, first := w.moments.P, w.rows.Written()
	r, err := w.rows.Next(w.chunk)
	if err != nil {
		return nil, err
	}
	e, err := protocol.Seal(w.o.Params.Session, w.o.ID, w.o.Params.Curator, Rows{P: p, First: first, Data: w.chunk[:r*p]})
	if w.done = w.rows.Written() == w.rows.Len(); w.done {
		w.rows, w.chunk = nil, nil
	}
	return []protocol.Envelope{e}, err
}

// realRows writes the owner's real rows [lo, hi), encoded, for the
// paper's latent codes.
func (w *Owner) realRows() func(lo, hi int, dst []float64) error {
	if w.o.Data != nil {
		return func(lo, hi int, dst []float64) error {
			_, p := w.o.Data.Dims()
			for i := lo; i < hi; i++ {
				copy(dst[(i-lo)*p:], w.o.Data.RawRowView(i))
			}
			return nil
		}
	}
	re, err := w.o.Encoder.RowEncoder(w.o.Table.Schema)
	return func(lo, hi int, dst []float64) error {
		if err != nil {
			return err
		}
		p := re.Dim()
		clear(dst[:(hi-lo)*p])
		var idx []int
		var val []float64
		for i := lo; i < hi; i++ {
			var err error
			if idx, val, _, err = re.Sparse(w.o.Table.Rows[i], idx[:0], val[:0]); err != nil {
				return err
			}
			for a, j := range idx {
				dst[(i-lo)*p+j] = val[a]
			}
		}
		return nil
	}
}

// checkModel refuses a model that is not over the owner's p columns or
// holds a non-finite value or a negative σ²: the owner samples its rows
// from it, and the old code sliced its chunk by the model's width (a
// model of fewer columns than the owner's made it panic after its charge)
// and streamed NaN rows from a NaN model.
func (w *Owner) checkModel(m ModelMsg) error {
	if p := w.moments.P; len(m.Mean) != p {
		return fmt.Errorf("ppcadpmh: owner %q: model over %d columns, the session has %d", w.o.ID, len(m.Mean), p)
	}
	for _, vs := range [][]float64{m.Mean, m.Eigenvalues, m.Components, {m.Sigma2}} {
		for _, v := range vs {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("ppcadpmh: owner %q: model holds the non-finite value %v", w.o.ID, v)
			}
		}
	}
	if m.Sigma2 < 0 {
		return fmt.Errorf("ppcadpmh: owner %q: model with noise variance σ² = %v < 0", w.o.ID, m.Sigma2)
	}
	return nil
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
