package roles

import (
	"fmt"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/method/mullda/lda"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// DealerOptions configure the noise dealer.
type DealerOptions struct {
	Params Params
	// Agreed, instead of Params, are the session's parameters checked
	// once with their plan (Agree), taken as they are.
	Agreed *Agreed
	Source *randx.Source
}

// NoiseDealer is the paper's random-number generator (§4.2.1, step 1): it
// draws zero-sum shares ḡ_0..ḡ_M and Ḡ_0..Ḡ_M, each of variance
// (M−1)/M·σ² (times κ² ≈ 1, see lda.NewBlockNoise), integers on the
// blocks' public grids, and sends ḡ_0 to the publisher and ḡ_m to owner
// m, secretly.
// It sees no data. A dealer that colludes with the publisher removes one
// owner's share and leaves it N(0, σ²/M).
type NoiseDealer struct {
	params Params
	plan   *lda.Plan
	noiser *dp.Noiser
	done   bool
}

// NewNoiseDealer validates o.
func NewNoiseDealer(o DealerOptions) (*NoiseDealer, error) {
	agreed, err := protocol.Settle(&o.Agreed, &o.Params, Params.check)
	if err != nil {
		return nil, err
	}
	if !o.Params.NeedsDealer() {
		return nil, fmt.Errorf("mullda: this session (%d owners, %s noise) needs no dealer", len(o.Params.Owners), o.Params.Plan.Noise)
	}
	if o.Source == nil {
		return nil, fmt.Errorf("mullda: the dealer needs a randomness source")
	}
	return &NoiseDealer{params: o.Params, plan: agreed.Derived(), noiser: dp.NewNoiser(o.Source)}, nil
}

// ID is the dealer's name.
func (d *NoiseDealer) ID() string { return d.params.Dealer }

// Done reports whether the shares are out.
func (d *NoiseDealer) Done() bool { return d.done }

// Handle refuses everything: nobody writes to the dealer.
func (d *NoiseDealer) Handle(e protocol.Envelope) ([]protocol.Envelope, error) {
	return nil, fmt.Errorf("mullda: the dealer takes no messages (got %q from %q)", e.Type, e.From)
}

// Start draws the shares and sends them: index 0 to the publisher, m to
// owner m. The shares are integers in grid steps of each block's public
// grid, summing to exactly zero over the M+1 parties (lda.ZeroSumShares),
// each of variance κ²(M−1)σ²/M grid steps² (lda.NewBlockNoise).
func (d *NoiseDealer) Start() ([]protocol.Envelope, error) {
	o := d.plan.Options
	m := len(d.params.Owners)
	sb, err := d.plan.SumsNoise()
	if err != nil {
		return nil, err
	}
	ub, err := d.plan.SecondNoise()
	if err != nil {
		return nil, err
	}
	sums := lda.ZeroSumShares(d.noiser, sb.Plan, m+1, o.Classes*o.P)
	upper := lda.ZeroSumShares(d.noiser, ub.Plan, m+1, lda.UpperLen(o.P))
	var counts [][]int64
	if d.plan.CountSigma > 0 {
		cb, err := d.plan.CountsNoise()
		if err != nil {
			return nil, err
		}
		counts = lda.ZeroSumShares(d.noiser, cb.Plan, m+1, o.Classes)
	}
	to := append([]string{d.params.Publisher}, d.params.Owners...)
	out := make([]protocol.Envelope, 0, len(to))
	for i, id := range to {
		msg := Shares{Classes: o.Classes, P: o.P, Sums: sums[i], Upper: upper[i]}
		if counts != nil {
			msg.Counts = counts[i]
		}
		e, err := protocol.Seal(d.params.Session, d.params.Dealer, id, msg)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	d.done = true
	return out, nil
}
