package dp

import (
	"fmt"
	"math"
	"math/big"

	"github.com/dppub/dppub/randx"
)

// Spec describes a calibrated mechanism for privacy reports: which noise,
// the sensitivity it was calibrated to (and in which norm), the noise scale,
// and the guarantee it gives.
type Spec struct {
	Mechanism   string    `json:"mechanism"`
	Norm        string    `json:"sensitivity_norm"`
	Sensitivity float64   `json:"sensitivity"`
	Scale       float64   `json:"noise_scale"`
	Guarantee   Guarantee `json:"guarantee"`
}

func (s Spec) String() string {
	return fmt.Sprintf("%s (%s sensitivity %.4g, scale %.4g) → %v",
		s.Mechanism, s.Norm, s.Sensitivity, s.Scale, s.Guarantee)
}

// LaplaceOptions configures the Laplace mechanism.
type LaplaceOptions struct {
	// L1Sensitivity is max ‖f(D) − f(D')‖₁ over neighbouring D, D'.
	L1Sensitivity float64
	// Epsilon is the pure-DP budget of one release.
	Epsilon float64
}

// Laplace is the Laplace mechanism: f(D) + Lap(Δ₁/ε)^d is ε-DP
// (Dwork, McSherry, Nissim, Smith 2006, Prop. 1).
type Laplace struct {
	opts  LaplaceOptions
	scale float64
}

// NewLaplace validates o and calibrates the scale b = Δ₁/ε.
func NewLaplace(o LaplaceOptions) (*Laplace, error) {
	b, err := LaplaceScale(o.L1Sensitivity, o.Epsilon)
	if err != nil {
		return nil, fmt.Errorf("dp: laplace: %w", err)
	}
	return &Laplace{opts: o, scale: b}, nil
}

// Scale is the noise scale b.
func (m *Laplace) Scale() float64 { return m.scale }

// Spec describes the mechanism for reports.
func (m *Laplace) Spec() Spec {
	return Spec{Mechanism: "laplace", Norm: "L1", Sensitivity: m.opts.L1Sensitivity,
		Scale: m.scale, Guarantee: Pure(m.opts.Epsilon)}
}

// Release replaces v by its ε-DP release on a grid (Noiser.ReleaseLaplace).
func (m *Laplace) Release(n *Noiser, v []float64) {
	n.ReleaseLaplace(m.opts.L1Sensitivity, m.opts.Epsilon, v)
}

// GaussianCalibration chooses how σ is derived from the budget.
type GaussianCalibration int

const (
	// Analytic is Balle & Wang (2018): the tight σ for (ε, δ), any ε > 0.
	Analytic GaussianCalibration = iota
	// Classic is σ = Δ₂√(2 ln(1.25/δ))/ε, valid for ε < 1 only.
	Classic
	// FromRho is σ = Δ₂/√(2ρ) for ρ-zCDP.
	FromRho
)

func (c GaussianCalibration) String() string {
	return EnumName("GaussianCalibration", int(c), "analytic", "classic", "zcdp")
}

// GaussianOptions configures the Gaussian mechanism. Set Epsilon and Delta
// for Analytic and Classic, Rho for FromRho.
type GaussianOptions struct {
	// L2Sensitivity is max ‖f(D) − f(D')‖₂ over neighbouring D, D'.
	L2Sensitivity float64
	Epsilon       float64
	Delta         float64
	Rho           float64
	Calibration   GaussianCalibration
}

// Gaussian is the Gaussian mechanism f(D) + N(0, σ² I); its guarantee
// depends on the calibration (see the package comment).
type Gaussian struct {
	opts  GaussianOptions
	sigma float64
}

// NewGaussian validates o and calibrates σ.
func NewGaussian(o GaussianOptions) (*Gaussian, error) {
	var (
		sigma float64
		err   error
	)
	switch o.Calibration {
	case Analytic:
		sigma, err = AnalyticGaussianSigma(o.L2Sensitivity, o.Epsilon, o.Delta)
	case Classic:
		sigma, err = ClassicGaussianSigma(o.L2Sensitivity, o.Epsilon, o.Delta)
	case FromRho:
		sigma, err = ZCDPGaussianSigma(o.L2Sensitivity, o.Rho)
	default:
		err = fmt.Errorf("dp: unknown Gaussian calibration %d", int(o.Calibration))
	}
	if err != nil {
		return nil, fmt.Errorf("dp: gaussian: %w", err)
	}
	return &Gaussian{opts: o, sigma: sigma}, nil
}

// Sigma is the noise standard deviation.
func (m *Gaussian) Sigma() float64 { return m.sigma }

// Guarantee is what one release gives.
func (m *Gaussian) Guarantee() Guarantee {
	if m.opts.Calibration == FromRho {
		return Concentrated(m.opts.Rho)
	}
	return Approx(m.opts.Epsilon, m.opts.Delta)
}

// Spec describes the mechanism for reports.
func (m *Gaussian) Spec() Spec {
	return Spec{Mechanism: "gaussian-" + m.opts.Calibration.String(), Norm: "L2",
		Sensitivity: m.opts.L2Sensitivity, Scale: m.sigma, Guarantee: m.Guarantee()}
}

// Release replaces v by its release on a grid with discrete Gaussian noise
// of (at least) σ (Noiser.ReleaseGaussian).
func (m *Gaussian) Release(n *Noiser, v []float64) {
	n.ReleaseGaussian(m.opts.L2Sensitivity, m.sigma, v)
}

// PermuteAndFlip selects an index with the permute-and-flip mechanism
// (McKenna & Sheldon, NeurIPS 2020): visit the candidates in a uniformly
// random order and stop at candidate i with probability
// exp(ε·(u_i − u*)/(2Δu)), u* the best utility. It is ε-DP when every
// utility has sensitivity at most Δu, like the exponential mechanism
// (McSherry & Talwar 2007), and never has lower expected utility.
//
// It is drawn without floating-point exposure: the utilities are rounded
// to a public power-of-two grid g ≤ Δu·2^-20 (which adds g to their
// sensitivity, accounted in Δu + g), the exponent is an exact dyadic
// rational rounded towards zero (a smaller effective ε), and each stop is
// an exact Bernoulli(exp(−γ)) draw (Canonne, Kamath & Steinke 2020,
// Algorithm 1), so the choice depends on the utilities only through their
// grid values.
func PermuteAndFlip(src *randx.Source, utilities []float64, sensitivity, eps float64) (int, error) {
	sel, err := newSelection("permute-and-flip", utilities, sensitivity, eps)
	if err != nil {
		return 0, err
	}
	for _, i := range src.Perm(len(sel.units)) {
		stop, err := sel.accept(src, i)
		if err != nil {
			return 0, err
		}
		if stop {
			return i, nil
		}
	}
	// Unreachable: the best candidate stops with probability 1.
	panic("dp: permute-and-flip visited every candidate without stopping")
}

// Exponential selects index i with probability proportional to
// exp(ε·(u_i − u*)/(2Δu)): the exponential mechanism (McSherry & Talwar
// 2007), for utilities of sensitivity at most Δu. It is ε-DP and, because
// the log-ratio of its output probabilities on neighbouring inputs spans
// a range of at most ε, ε-bounded-range (Durfee & Rogers 2019), hence
// (ε²/8)-zCDP (Cesar & Rogers 2021): four times cheaper in a zCDP budget
// than permute-and-flip at the same ε, which is only known to be ε-DP
// (ε²/2). This is how AIM accounts its selections (McKenna et al. 2022).
//
// It is drawn without floating-point exposure, with the same grid and
// exact Bernoulli draws as PermuteAndFlip: the utilities are rounded to a
// public power-of-two grid g ≤ Δu·2^-20 (sensitivity Δu + g), the rate is
// an exact dyadic rational rounded towards zero (an effective ε' ≤ ε, so
// the guarantee holds as stated), and the draw is by rejection: a
// uniformly random candidate i is accepted with probability
// exp(−γ_i), γ_i ≥ 0 its scaled gap to the best, until one is. The
// accepted index has exactly the law ∝ exp(−γ_i); the best candidate has
// γ = 0, so at most len(utilities) tries are expected.
func Exponential(src *randx.Source, utilities []float64, sensitivity, eps float64) (int, error) {
	sel, err := newSelection("exponential", utilities, sensitivity, eps)
	if err != nil {
		return 0, err
	}
	for {
		i := int(src.Uint64N(uint64(len(sel.units))))
		accepted, err := sel.accept(src, i)
		if err != nil {
			return 0, err
		}
		if accepted {
			return i, nil
		}
	}
}

// ExponentialSpec describes one use of Exponential: its zCDP guarantee
// (ε²/8, from bounded range), which is what a zCDP accountant charges.
func ExponentialSpec(sensitivity, eps float64) Spec {
	return Spec{Mechanism: "exponential", Norm: "utility", Sensitivity: sensitivity,
		Scale: 2 * sensitivity / eps, Guarantee: Concentrated(eps * eps / 8)}
}

// selection is a selection's candidates on the grid and the exact
// Bernoulli draw both selection mechanisms stop or accept a candidate
// with.
type selection struct {
	name string
	// units are the utilities in grid units, top the best of them.
	units []float64
	top   float64
	// rate is the exact c with P(i) ∝ exp(−c·(top − units_i)).
	rate     *big.Rat
	gap, num *big.Int
	exp      *bigBernoulliExp
}

// newSelection checks a selection's arguments and puts the utilities on
// the grid: c = ε·g/(2(Δu + g)) rounded down.
func newSelection(name string, utilities []float64, sensitivity, eps float64) (*selection, error) {
	if len(utilities) == 0 {
		return nil, fmt.Errorf("dp: selection over no candidates")
	}
	if err := checkSensitivity(sensitivity); err != nil {
		return nil, fmt.Errorf("dp: %s: %w", name, err)
	}
	if err := checkEpsilon(eps); err != nil {
		return nil, fmt.Errorf("dp: %s: %w", name, err)
	}
	g := pow2Floor(sensitivity / (1 << gridPrecisionBits))
	units := make([]float64, len(utilities))
	top := math.Inf(-1)
	for i, u := range utilities {
		if math.IsNaN(u) || math.IsInf(u, 0) {
			return nil, fmt.Errorf("dp: %s: utility %d is %v", name, i, u)
		}
		units[i] = math.Round(u / g)
		top = math.Max(top, units[i])
	}
	c := math.Nextafter(eps*g/(2*(sensitivity+g)), 0)
	return &selection{name: name, units: units, top: top, rate: new(big.Rat).SetFloat64(c),
		gap: new(big.Int), num: new(big.Int), exp: newBigBernoulliExp()}, nil
}

// accept draws Bernoulli(exp(−c·(top − units_i))) exactly: whether
// permute-and-flip stops at candidate i, or the exponential mechanism's
// rejection sampler accepts it.
func (s *selection) accept(src *randx.Source, i int) (bool, error) {
	if _, acc := new(big.Float).SetFloat64(s.top - s.units[i]).Int(s.gap); acc != big.Exact {
		return false, fmt.Errorf("dp: %s: utility gap %v is not an integer", s.name, s.top-s.units[i])
	}
	s.num.Mul(s.gap, s.rate.Num())
	return s.exp.accept(src, s.num, s.rate.Denom()), nil
}

// SelectionSpec describes one use of PermuteAndFlip.
func SelectionSpec(sensitivity, eps float64) Spec {
	return Spec{Mechanism: "permute-and-flip", Norm: "utility", Sensitivity: sensitivity,
		Scale: 2 * sensitivity / eps, Guarantee: Pure(eps)}
}
