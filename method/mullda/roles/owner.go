package roles

import (
	"fmt"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/ledger"
	"github.com/dppub/dppub/method/mullda/lda"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// OwnerOptions configure one data owner.
type OwnerOptions struct {
	ID     string
	Params Params
	// Agreed, instead of Params, are the session's parameters checked
	// once with their plan (Agree), taken as they are.
	Agreed *Agreed
	// Data are the owner's encoded rows, each in the unit L2 ball, and
	// Labels their classes in [0, Plan.Classes).
	Data   *mat.Dense
	Labels []int
	// Accountant is charged before any noisy value leaves the owner.
	Accountant *privacy.Accountant
	Source     *randx.Source
	// Ledger, if set, records the owner's spending and messages and checks
	// the publisher's entries behind the means and the direction.
	Ledger *Ledger
}

// Owner is a data owner's role (Algorithm 2, lines 1–6 and 8–14).
type Owner struct {
	o        OwnerOptions
	plan     *lda.Plan
	noiser   *dp.Noiser
	exact    *lda.Stats
	shares   *Shares
	sentSums bool
	sentSec  bool
	done     bool
}

// NewOwner validates o and computes the owner's exact statistics.
func NewOwner(o OwnerOptions) (*Owner, error) {
	agreed, err := protocol.Settle(&o.Agreed, &o.Params, Params.check)
	if err != nil {
		return nil, err
	}
	if o.Params.ownerIndex(o.ID) < 0 {
		return nil, fmt.Errorf("mullda: %q is not an owner of this session", o.ID)
	}
	if o.Data == nil || o.Accountant == nil || o.Source == nil {
		return nil, fmt.Errorf("mullda: owner %q needs data, an accountant and a randomness source", o.ID)
	}
	n, p := o.Data.Dims()
	if p != o.Params.Plan.P {
		return nil, fmt.Errorf("mullda: owner %q has %d columns, the session expects %d", o.ID, p, o.Params.Plan.P)
	}
	if n < 1 {
		return nil, fmt.Errorf("mullda: owner %q holds no rows", o.ID)
	}
	if err := o.Ledger.validate(o.ID); err != nil {
		return nil, err
	}
	exact, err := lda.ComputeStats(o.Data, o.Labels, o.Params.Plan.Classes)
	if err != nil {
		return nil, fmt.Errorf("mullda: owner %q: %w", o.ID, err)
	}
	return &Owner{o: o, plan: agreed.Derived(), noiser: dp.NewNoiser(o.Source), exact: exact}, nil
}

// ID is the owner's name.
func (w *Owner) ID() string { return w.o.ID }

// Done reports whether the owner has received the direction (and, with
// RealProjections, sent its projections).
func (w *Owner) Done() bool { return w.done }

// Start sends the class sums, unless a share from the dealer is awaited.
func (w *Owner) Start() ([]protocol.Envelope, error) {
	if w.o.Params.NeedsDealer() {
		return nil, nil
	}
	return w.sendSums()
}

// Handle receives the dealer's shares, the means and the direction.
func (w *Owner) Handle(e protocol.Envelope) ([]protocol.Envelope, error) {
	p := w.o.Params
	switch {
	case e.Type == TypeShares && e.From == p.Dealer && p.NeedsDealer():
		if w.shares != nil {
			return nil, nil // a replay: ignore
		}
		var s Shares
		if err := s.UnmarshalBinary(e.Payload); err != nil {
			return nil, err
		}
		if err := w.checkShares(s); err != nil {
			return nil, err
		}
		w.shares = &s
		return w.sendSums()
	case e.Type == TypeMeans && e.From == p.Publisher:
		if w.sentSec || !w.sentSums {
			return nil, nil
		}
		var m Means
		if err := m.UnmarshalBinary(e.Payload); err != nil {
			return nil, err
		}
		if err := w.o.Ledger.verifyMessage(p.Publisher, KindMeansComputed, p.Session, TypeMeans, e.Payload); err != nil {
			return nil, err
		}
		return w.sendSecond()
	case e.Type == TypeDirection && e.From == p.Publisher:
		if w.done || !w.sentSec {
			return nil, nil
		}
		var d Direction
		if err := d.UnmarshalBinary(e.Payload); err != nil {
			return nil, err
		}
		if d.P != w.plan.Options.P {
			return nil, fmt.Errorf("mullda: direction for p=%d, the session has p=%d", d.P, w.plan.Options.P)
		}
		if err := w.o.Ledger.verifyMessage(p.Publisher, ledger.KindDirectionComputed, p.Session, TypeDirection, e.Payload); err != nil {
			return nil, err
		}
		w.done = true
		if p.output() == RealProjections {
			return w.sendProjections(d)
		}
		return nil, nil
	}
	return nil, fmt.Errorf("mullda: owner %s cannot handle %q from %q", w.o.ID, e.Type, e.From)
}

func (w *Owner) checkShares(s Shares) error {
	o := w.plan.Options
	if s.Classes != o.Classes || s.P != o.P || (w.plan.CountSigma > 0) != (len(s.Counts) > 0) {
		return fmt.Errorf("mullda: owner %s: shares for %d classes × p=%d (counts %d) do not fit the session", w.o.ID, s.Classes, s.P, len(s.Counts))
	}
	for _, block := range [][]int64{s.Sums, s.Counts, s.Upper} {
		for _, v := range block {
			if v > maxShare || v < -maxShare {
				return fmt.Errorf("mullda: owner %s: a noise share of %d grid steps, beyond ±2^52", w.o.ID, v)
			}
		}
	}
	return nil
}

// maxShare bounds a dealer's share in grid steps, so that the owner's
// message stays an exact float64. Honest shares have a standard deviation
// of at most about 2^40 grid steps (dp's maxGaussianUnits), so this is
// over 4000 of them; the old code added any int64 to its own noise, so a
// share near 2^63 wrapped the sum, and the message was no longer the
// rounded statistic plus noise on the grid.
const maxShare = 1 << 52

// pay charges the accountant (and records it on the ledger) before the
// release the charges cover leaves the owner.
func (w *Owner) pay(charges []privacy.Charge) error {
	for _, c := range charges {
		if err := w.o.Accountant.Spend(c); err != nil {
			return err
		}
		content := map[string]any{"party": w.o.ID, "charge": c, "spent": w.o.Accountant.Spent(), "budget": w.o.Accountant.Budget()}
		if err := w.o.Ledger.record(ledger.KindBudgetSpent, w.o.Params.Session, EntryPayload{Content: content}); err != nil {
			return err
		}
	}
	return nil
}

// sendSums is Algorithm 2 lines 2–3: class sums (and counts) with the
// owner's own noise plus its share, on the blocks' public grids.
func (w *Owner) sendSums() ([]protocol.Envelope, error) {
	if err := w.pay(w.plan.SumsCharges); err != nil {
		return nil, err
	}
	w.sentSums = true
	o := w.plan.Options
	sb, err := w.plan.SumsNoise()
	if err != nil {
		return nil, err
	}
	sums := w.exact.SumsVector()
	sb.Release(w.noiser, sums, w.shareOf(func(s *Shares) []int64 { return s.Sums }))
	counts := append([]float64(nil), w.exact.Counts...)
	if w.plan.CountSigma > 0 {
		cb, err := w.plan.CountsNoise()
		if err != nil {
			return nil, err
		}
		cb.Release(w.noiser, counts, w.shareOf(func(s *Shares) []int64 { return s.Counts }))
	}
	return w.send(Sums{Classes: o.Classes, P: o.P, Sums: sums, Counts: counts})
}

// sendSecond is Algorithm 2 lines 9–13 (the subtraction of N μ μᵀ is done
// by the publisher with the DP means: the same S_w, and post-processing).
func (w *Owner) sendSecond() ([]protocol.Envelope, error) {
	if err := w.pay(w.plan.SecondCharges); err != nil {
		return nil, err
	}
	w.sentSec = true
	ub, err := w.plan.SecondNoise()
	if err != nil {
		return nil, err
	}
	upper := w.exact.SecondUpper()
	ub.Release(w.noiser, upper, w.shareOf(func(s *Shares) []int64 { return s.Upper }))
	return w.send(Second{P: w.plan.Options.P, Upper: upper})
}

// shareOf is the owner's zero-sum share of a block in grid steps (nil
// without a dealer). The owner's message for the block is then
// g·(round(x/g) + K + share) (lda.BlockNoise.Release): own discrete
// Gaussian K of variance κ²σ²/M (κ²σ² without a dealer), all on the
// block's public grid g.
func (w *Owner) shareOf(get func(*Shares) []int64) []int64 {
	if w.shares == nil {
		return nil
	}
	return get(w.shares)
}

// sendProjections is Algorithm 2 line 17: X_m W of the owner's real rows.
// NOT differentially private.
func (w *Owner) sendProjections(d Direction) ([]protocol.Envelope, error) {
	z := lda.Project(w.o.Data, mat.NewDense(d.P, d.D, d.W))
	labels := make([]uint64, len(w.o.Labels))
	for i, c := range w.o.Labels {
		labels[i] = uint64(c)
	}
	return w.send(Projections{D: d.D, Z: z.RawMatrix().Data, Labels: labels})
}

// send seals m to the publisher and records its digest on the ledger.
func (w *Owner) send(m protocol.Message) ([]protocol.Envelope, error) {
	e, err := protocol.Seal(w.o.Params.Session, w.o.ID, w.o.Params.Publisher, m)
	if err != nil {
		return nil, err
	}
	if err := w.o.Ledger.recordMessage(ledger.KindStatisticsSubmitted, w.o.Params.Session, m.MessageType(), e.Payload, nil); err != nil {
		return nil, err
	}
	return []protocol.Envelope{e}, nil
}
