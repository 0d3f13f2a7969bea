package ppca

import (
	"fmt"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/privacy"
)

// Calibration selects how noise is scaled.
type Calibration string

const (
	// Sound scales noise to the true sensitivities (NOTES.md §1).
	Sound Calibration = "sound"
	// Paper reproduces Algorithm 1: Lap(2p/(n_i ε)) on the mean and on the
	// second-moment matrix, each charged ε/2. Its guarantee for the
	// second-moment matrix is weaker than claimed; reports say by how much.
	Paper Calibration = "paper"
)

// Mechanism selects the noise distribution.
type Mechanism string

const (
	Laplace  Mechanism = "laplace"
	Gaussian Mechanism = "gaussian"
)

// PlanOptions configures the noise for one release of (Σx, Σxxᵀ).
type PlanOptions struct {
	Calibration Calibration
	Mechanism   Mechanism
	// Epsilon and Delta are the whole budget; the paper's split gives half
	// (of each) to the mean and half to the second moment.
	Epsilon float64
	Delta   float64
	Bounds  RowBounds
}

// Plan is the calibrated noise for the two sums, with the charges it costs.
type Plan struct {
	Mechanism  Mechanism
	SumScale   float64 // Laplace b or Gaussian σ on Σx
	OuterScale float64 // on each upper-triangle entry of Σxxᵀ
	Charges    []privacy.Charge
}

// NewPlan validates o and calibrates the noise.
func NewPlan(o PlanOptions) (*Plan, error) {
	if err := o.Bounds.Validate(); err != nil {
		return nil, err
	}
	half := o.Epsilon / 2
	switch {
	case o.Calibration != Sound && o.Calibration != Paper:
		return nil, fmt.Errorf("ppca: unknown calibration %q (want sound or paper)", o.Calibration)
	case o.Mechanism != Laplace && o.Mechanism != Gaussian:
		return nil, fmt.Errorf("ppca: unknown mechanism %q (want laplace or gaussian)", o.Mechanism)
	case o.Calibration == Paper && o.Mechanism != Laplace:
		return nil, fmt.Errorf("ppca: the paper calibration uses the Laplace mechanism only, got %q", o.Mechanism)
	}
	if o.Calibration == Paper {
		return paperPlan(o.Bounds.P, half)
	}
	s := o.Bounds.Sensitivities()
	if o.Mechanism == Laplace {
		return laplacePlan(s, half)
	}
	return gaussianPlan(s, half, o.Delta/2)
}

func laplacePlan(s Sensitivities, eps float64) (*Plan, error) {
	sum, err := dp.NewLaplace(dp.LaplaceOptions{L1Sensitivity: s.SumL1, Epsilon: eps})
	if err != nil {
		return nil, fmt.Errorf("ppca: mean: %w", err)
	}
	outer, err := dp.NewLaplace(dp.LaplaceOptions{L1Sensitivity: s.OuterL1, Epsilon: eps})
	if err != nil {
		return nil, fmt.Errorf("ppca: second moment: %w", err)
	}
	return &Plan{Mechanism: Laplace, SumScale: sum.Scale(), OuterScale: outer.Scale(), Charges: []privacy.Charge{
		{Purpose: "column sums Σx (DP mean)", Spec: sum.Spec(), Calibration: string(Sound)},
		{Purpose: "upper triangle of Σxxᵀ (second moment)", Spec: outer.Spec(), Calibration: string(Sound)},
	}}, nil
}

func gaussianPlan(s Sensitivities, eps, delta float64) (*Plan, error) {
	mk := func(l2 float64) (*dp.Gaussian, error) {
		return dp.NewGaussian(dp.GaussianOptions{L2Sensitivity: l2, Epsilon: eps, Delta: delta, Calibration: dp.Analytic})
	}
	sum, err := mk(s.SumL2)
	if err != nil {
		return nil, fmt.Errorf("ppca: mean: %w", err)
	}
	outer, err := mk(s.OuterL2)
	if err != nil {
		return nil, fmt.Errorf("ppca: second moment: %w", err)
	}
	return &Plan{Mechanism: Gaussian, SumScale: sum.Sigma(), OuterScale: outer.Sigma(), Charges: []privacy.Charge{
		{Purpose: "column sums Σx (DP mean)", Spec: sum.Spec(), Calibration: string(Sound)},
		{Purpose: "upper triangle of Σxxᵀ (second moment)", Spec: outer.Spec(), Calibration: string(Sound)},
	}}, nil
}

// paperPlan is Algorithm 1 line 2: Lap(2p/(n_i ε)) on the means, i.e.
// Lap(2p/ε) on the sums, each charged ε/2 as Theorem 4 claims. The mean's
// claim holds (true L1 sensitivity p); the second moment's does not (true
// upper-triangle L1 sensitivity p(p+1)/2), and Actual says what it gives.
func paperPlan(p int, eps float64) (*Plan, error) {
	claimed := PaperSensitivity(p)
	lap, err := dp.NewLaplace(dp.LaplaceOptions{L1Sensitivity: claimed, Epsilon: eps})
	if err != nil {
		return nil, fmt.Errorf("ppca: paper calibration: %w", err)
	}
	trueOuter := GenericBounds(p).Sensitivities().OuterL1
	actual := dp.Pure(trueOuter / lap.Scale())
	return &Plan{Mechanism: Laplace, SumScale: lap.Scale(), OuterScale: lap.Scale(), Charges: []privacy.Charge{
		{Purpose: "column sums Σx (DP mean)", Spec: lap.Spec(), Calibration: string(Paper)},
		{Purpose: "upper triangle of Σxxᵀ (second moment)", Spec: lap.Spec(), Calibration: string(Paper), Actual: &actual,
			Note: fmt.Sprintf("the paper's sensitivity p = %d understates the true L1 sensitivity p(p+1)/2 = %.0f", p, trueOuter)},
	}}, nil
}

// Claimed is the total the plan charges; Actual is the total it really gives
// (they differ for the paper calibration).
func (pl *Plan) Claimed() dp.Guarantee { return pl.total(false) }

// Actual is the true guarantee of the plan's releases.
func (pl *Plan) Actual() dp.Guarantee { return pl.total(true) }

func (pl *Plan) total(actual bool) dp.Guarantee {
	g := dp.Zero(pl.Charges[0].Spec.Guarantee.Notion)
	for _, c := range pl.Charges {
		x := c.Spec.Guarantee
		if actual && c.Actual != nil {
			x = *c.Actual
		}
		g, _ = dp.Compose(g, x)
	}
	return g
}
