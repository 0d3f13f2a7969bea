package measurement

import (
	"fmt"
	"math"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// DefaultCountShare is the share of a single owner's ρ that releases the
// record count under add/remove neighbours. At ε = 1 on Adult it is a
// noise of about 55 records on 45 222 (0.1 %), which moves no
// normalisation measurably; the other 99 % goes to the marginals.
const DefaultCountShare = 0.01

// CountOptions configure ReleaseCount.
type CountOptions struct {
	// Rho is the zCDP cost of the release (required).
	Rho float64
	// Accountant is charged Rho before anything is released (required).
	Accountant *privacy.Accountant
	// Source draws the noise (default randx.NewSecure()).
	Source *randx.Source
}

// NoisyCount is a record count released under add/remove neighbours.
type NoisyCount struct {
	// Value is the released count, clamped to at least 1 (post-processing:
	// every normalisation of the engine needs a positive total).
	Value int
	// Noise is the release's calibration: Gaussian, L2 sensitivity 1.
	Noise Noise
}

// ReleaseCount releases the record count n for add/remove neighbours,
// where n is private: one integer of sensitivity 1 (adding or removing a
// record moves it by one) plus discrete Gaussian noise on the integer grid
// (dp.PlanGaussianInteger: nothing rounded, ρ = 1/(2σ²)-zCDP exactly),
// charged to the accountant before it is drawn. The caller releases it
// before anything else, and every later step that needs n uses Value.
func ReleaseCount(n int, o CountOptions) (NoisyCount, error) {
	if n < 0 {
		return NoisyCount{}, fmt.Errorf("measurement: record count %d is negative", n)
	}
	c, err := ReleaseCountingQuery(n, "record count (add/remove neighbours)", o)
	c.Value = max(c.Value, 1)
	return c, err
}

// ReleaseCountingQuery releases the answer v of one counting query: how
// many records satisfy a predicate fixed before the release (it may
// depend on earlier releases, never on the records otherwise). Replacing,
// adding or removing one record moves v by at most one, so the L1 and L2
// sensitivity is 1 under both relations; the noise is discrete Gaussian on
// the integer grid (dp.PlanGaussianInteger: nothing rounded, ρ = 1/(2σ²)
// -zCDP exactly), charged to the accountant, under purpose, before it is
// drawn. Value is not clamped.
func ReleaseCountingQuery(v int, purpose string, o CountOptions) (NoisyCount, error) {
	if o.Accountant == nil {
		return NoisyCount{}, fmt.Errorf("measurement: the release of the %s needs an accountant", purpose)
	}
	noise, err := Calibrate(Gaussian, CountL1AddRemove, CountL2AddRemove, o.Rho)
	if err != nil {
		return NoisyCount{}, err
	}
	plan, err := dp.PlanGaussianInteger(noise.Sensitivity, noise.Scale, 1)
	if err != nil {
		return NoisyCount{}, fmt.Errorf("measurement: %w", err)
	}
	r := Release{Purpose: purpose, Parties: []int{0}, Noise: noise}
	if err := o.Accountant.Spend(r.Charge()); err != nil {
		return NoisyCount{}, fmt.Errorf("measurement: %w", err)
	}
	if o.Source == nil {
		o.Source = randx.NewSecure()
	}
	x := []float64{float64(v)}
	dp.NewNoiser(o.Source).Release(plan, x)
	return NoisyCount{Value: int(math.Round(x[0])), Noise: noise}, nil
}
