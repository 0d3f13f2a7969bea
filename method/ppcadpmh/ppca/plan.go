package ppca

import (
	"fmt"
	"sync/atomic"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/privacy"
)

// Calibration selects how noise is scaled.
type Calibration = dp.Calibration

const (
	// Sound scales noise to the true sensitivities
	// (docs/errata.md#ppca-second-moment-sensitivity).
	Sound = dp.CalibrationSound
	// Paper reproduces Algorithm 1: Lap(2p/(n_i ε)) on the mean and on the
	// second-moment matrix, each charged ε/2. Its guarantee for the
	// second-moment matrix is weaker than claimed; reports say by how much.
	Paper = dp.CalibrationPaper
)

// Mechanism selects the noise distribution.
type Mechanism = dp.Mechanism

const (
	Laplace  = dp.MechanismLaplace
	Gaussian = dp.MechanismGaussian
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
	SumScale   float64 // Laplace b or Gaussian σ on Σx (continuous calibration)
	OuterScale float64 // on each upper-triangle entry of Σxxᵀ
	// SumNoise and OuterNoise are how the two blocks are actually released:
	// on a public power-of-two grid with discrete noise (dp.GridNoise),
	// built by dp.PlanLaplace (the block's L1 sensitivity and ε) or
	// dp.PlanGaussian (its L2 sensitivity and the σ above) over the
	// coordinates the block noises (Noised). Every role derives them from
	// the public PlanOptions alone, so owners and curator agree on the
	// grids. Their Scale() is the scale actually drawn, slightly above
	// SumScale and OuterScale: the grid's rounding is paid for in noise, so
	// each block keeps exactly the guarantee its charge states.
	SumNoise, OuterNoise dp.GridNoise
	// Noised marks the packed entries (Σx, then the upper triangle of Σxxᵀ
	// row by row) that carry noise: under the sound calibration all but the
	// structural zeros (RowBounds.StructuralZeros), released as exactly 0,
	// and the one-hot diagonal (RowBounds.OneHotDiagonal), sent as 0 and
	// filled from Σx by FillDerived; all under the paper's.
	Noised []bool
	// derived maps a one-hot diagonal entry to its Σx entry (−1
	// elsewhere; nil under the paper's calibration).
	derived []int
	// paperL1 are the true L1 sensitivities of Σx and of the released
	// upper triangle under the paper's calibration (zero otherwise).
	paperL1 [2]float64
	Charges []privacy.Charge
}

// plansBuilt counts the plans NewPlan calibrated in this process.
var plansBuilt atomic.Int64

// PlansBuilt is how many plans NewPlan has calibrated in this process: a
// run calibrates its plan once and carries it to every role and its
// report (method/method_test.go counts them).
func PlansBuilt() int64 { return plansBuilt.Load() }

// NewPlan validates o and calibrates the noise.
func NewPlan(o PlanOptions) (*Plan, error) {
	plansBuilt.Add(1)
	if err := o.Bounds.Validate(); err != nil {
		return nil, err
	}
	half := o.Epsilon / 2
	if _, err := dp.ParseCalibration(string(o.Calibration)); err != nil {
		return nil, fmt.Errorf("ppca: %w", err)
	}
	if _, err := dp.ParseMechanism(string(o.Mechanism)); err != nil {
		return nil, fmt.Errorf("ppca: %w", err)
	}
	if o.Calibration == Paper && o.Mechanism != Laplace {
		return nil, fmt.Errorf("ppca: the paper calibration uses the Laplace mechanism only, got %q", o.Mechanism)
	}
	var (
		pl  *Plan
		err error
	)
	switch {
	case o.Calibration == Paper:
		pl, err = paperPlan(o.Bounds, half)
	case o.Mechanism == Laplace:
		pl, err = laplacePlan(o.Bounds.Sensitivities(), half)
	default:
		pl, err = gaussianPlan(o.Bounds.Sensitivities(), half, o.Delta/2)
	}
	if err != nil {
		return nil, err
	}
	if err := pl.grids(o); err != nil {
		return nil, err
	}
	return pl, nil
}

// grids builds SumNoise, OuterNoise and Noised from the charges: each
// block's grid release has the sensitivity and budget its charge states
// (the paper's claimed sensitivity p for the paper calibration, whose
// charges then get their Actual from the true sensitivities and the grid
// noise drawn: paperActual).
func (pl *Plan) grids(o PlanOptions) error {
	p := o.Bounds.P
	pl.Noised = make([]bool, p+p*(p+1)/2)
	var zeros []bool
	if o.Calibration == Sound {
		zeros, pl.derived = o.Bounds.StructuralZeros(), o.Bounds.OneHotDiagonal()
	}
	outerDim := 0
	for i := range pl.Noised {
		pl.Noised[i] = zeros == nil || (!zeros[i] && pl.derived[i] < 0)
		if i >= p && pl.Noised[i] {
			outerDim++
		}
	}
	if outerDim == 0 {
		outerDim = 1 // every column one-hot in one group: nothing but derived entries
	}
	block := func(c privacy.Charge, scale float64, dim int) (dp.GridNoise, error) {
		if pl.Mechanism == Laplace {
			return dp.PlanLaplace(c.Spec.Sensitivity, c.Spec.Guarantee.Epsilon, dim)
		}
		return dp.PlanGaussian(c.Spec.Sensitivity, scale, dim)
	}
	var err error
	if pl.SumNoise, err = block(pl.Charges[0], pl.SumScale, p); err != nil {
		return fmt.Errorf("ppca: mean: %w", err)
	}
	if pl.OuterNoise, err = block(pl.Charges[1], pl.OuterScale, outerDim); err != nil {
		return fmt.Errorf("ppca: second moment: %w", err)
	}
	if o.Calibration == Paper {
		sum, outer := paperActual(pl.paperL1[0], p, pl.SumNoise), paperActual(pl.paperL1[1], outerDim, pl.OuterNoise)
		pl.Charges[0].Actual, pl.Charges[1].Actual = &sum, &outer
	}
	return nil
}

// BlockNoise returns the grid release of packed entry i (Σx first, then
// the upper triangle of Σxxᵀ) for p columns.
func (pl *Plan) BlockNoise(i, p int) dp.GridNoise {
	if i < p {
		return pl.SumNoise
	}
	return pl.OuterNoise
}

func laplacePlan(s Sensitivities, eps float64) (*Plan, error) {
	return soundPlan(Laplace, s.SumL1, s.OuterL1, (*dp.Laplace).Scale, func(l1 float64) (*dp.Laplace, error) {
		return dp.NewLaplace(dp.LaplaceOptions{L1Sensitivity: l1, Epsilon: eps})
	})
}

func gaussianPlan(s Sensitivities, eps, delta float64) (*Plan, error) {
	return soundPlan(Gaussian, s.SumL2, s.OuterL2, (*dp.Gaussian).Sigma, func(l2 float64) (*dp.Gaussian, error) {
		return dp.NewGaussian(dp.GaussianOptions{L2Sensitivity: l2, Epsilon: eps, Delta: delta, Calibration: dp.Analytic})
	})
}

// soundPlan is the sound calibration's plan for mechanism mech: one
// release of the column sums and one of the second moment, each built by
// newMech at its block's true sensitivity (and the share of the budget
// the caller gives each block), noised at its scale and charged its spec.
func soundPlan[M interface{ Spec() dp.Spec }](mech Mechanism, sumSens, outerSens float64, scale func(M) float64, newMech func(sens float64) (M, error)) (*Plan, error) {
	sum, err := newMech(sumSens)
	if err != nil {
		return nil, fmt.Errorf("ppca: mean: %w", err)
	}
	outer, err := newMech(outerSens)
	if err != nil {
		return nil, fmt.Errorf("ppca: second moment: %w", err)
	}
	return &Plan{Mechanism: mech, SumScale: scale(sum), OuterScale: scale(outer), Charges: []privacy.Charge{
		{Purpose: "column sums Σx (DP mean)", Spec: sum.Spec(), Calibration: string(Sound)},
		{Purpose: "upper triangle of Σxxᵀ (second moment)", Spec: outer.Spec(), Calibration: string(Sound)},
	}}, nil
}

// paperPlan is Algorithm 1 line 2: Lap(2p/(n_i ε)) on the means, i.e.
// Lap(2p/ε) on the sums, each charged ε/2 as Theorem 4 claims, at the
// paper's sensitivity p for both. What the releases really give depends
// on the true sensitivities on these rows (b: the column groups of the
// encoding, public): Σx moves by at most Sensitivities().SumL1 (23 on
// Adult, below the claimed p = 106) and the whole upper triangle by
// PaperOuterL1 (212 on Adult, above it). grids sets each charge's Actual
// from them once the grid noise is known.
func paperPlan(b RowBounds, eps float64) (*Plan, error) {
	claimed := PaperSensitivity(b.P)
	lap, err := dp.NewLaplace(dp.LaplaceOptions{L1Sensitivity: claimed, Epsilon: eps})
	if err != nil {
		return nil, fmt.Errorf("ppca: paper calibration: %w", err)
	}
	trueSum, trueOuter := b.Sensitivities().SumL1, b.PaperOuterL1()
	return &Plan{Mechanism: Laplace, SumScale: lap.Scale(), OuterScale: lap.Scale(), paperL1: [2]float64{trueSum, trueOuter}, Charges: []privacy.Charge{
		{Purpose: "column sums Σx (DP mean)", Spec: lap.Spec(), Calibration: string(Paper),
			Note: fmt.Sprintf("the paper's sensitivity p = %d; on rows of %d attribute groups the true L1 sensitivity of Σx is %.0f", b.P, len(b.Groups), trueSum)},
		{Purpose: "upper triangle of Σxxᵀ (second moment)", Spec: lap.Spec(), Calibration: string(Paper),
			Note: fmt.Sprintf("the paper's sensitivity p = %d understates the true L1 sensitivity of the released upper triangle, at most %.0f on rows of %d attribute groups (h(h+1) + 2hs + s(s+1)/2 over h one-hot groups and s scalars; p(p+1)/2 = %d for rows in [0,1]^p)", b.P, trueOuter, len(b.Groups), b.P*(b.P+1)/2)},
	}}, nil
}

// paperActual is the true guarantee of a paper-calibrated grid release
// of dim coordinates whose true L1 sensitivity is l1: rounding to the
// grid g moves the integer vector by at most l1/g + dim (dp.PlanLaplace),
// and discrete Laplace noise of t = Scale()/g steps gives ε = that over t,
// i.e. (l1 + dim·g)/Scale(). It is exact for a true sensitivity below the
// claimed one too, where a ratio to the continuous scale would not be.
func paperActual(l1 float64, dim int, n dp.GridNoise) dp.Guarantee {
	return dp.Pure((l1 + float64(dim)*n.Grid) / n.Scale())
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

// FillDerived copies each noisy Σx_i into the one-hot diagonal entry Σx_i²
// it equals (a no-op under the paper's calibration).
func (pl *Plan) FillDerived(packed []float64) {
	for i, col := range pl.derived {
		if col >= 0 {
			packed[i] = packed[col]
		}
	}
}
