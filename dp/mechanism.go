package dp

import (
	"fmt"
	"math"

	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
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

// Release adds the noise to v in place.
func (m *Laplace) Release(n *Noiser, v []float64) { n.AddLaplace(v, m.scale) }

// ReleaseSym adds the noise to the upper triangle of s and mirrors it; the
// sensitivity must then be that of the upper triangle.
func (m *Laplace) ReleaseSym(n *Noiser, s *mat.SymDense) { n.AddLaplaceSym(s, m.scale) }

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
	switch c {
	case Analytic:
		return "analytic"
	case Classic:
		return "classic"
	case FromRho:
		return "zcdp"
	}
	return fmt.Sprintf("GaussianCalibration(%d)", int(c))
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

// Release adds the noise to v in place.
func (m *Gaussian) Release(n *Noiser, v []float64) { n.AddGaussian(v, m.sigma) }

// ReleaseSym adds the noise to the upper triangle of s and mirrors it.
func (m *Gaussian) ReleaseSym(n *Noiser, s *mat.SymDense) { n.AddGaussianSym(s, m.sigma) }

// Exponential picks an index with probability ∝ exp(ε·u_i/(2Δu)), which is
// ε-DP when every utility u_i has sensitivity at most Δu (McSherry & Talwar
// 2007, Thm. 6). Scores are shifted by their maximum before exponentiation
// so large utilities do not overflow.
func Exponential(src *randx.Source, utilities []float64, sensitivity, eps float64) (int, error) {
	if len(utilities) == 0 {
		return 0, fmt.Errorf("dp: exponential mechanism over no candidates")
	}
	if err := checkSensitivity(sensitivity); err != nil {
		return 0, fmt.Errorf("dp: exponential: %w", err)
	}
	if err := checkEpsilon(eps); err != nil {
		return 0, fmt.Errorf("dp: exponential: %w", err)
	}
	top := math.Inf(-1)
	for i, u := range utilities {
		if math.IsNaN(u) || math.IsInf(u, 0) {
			return 0, fmt.Errorf("dp: exponential: utility %d is %v", i, u)
		}
		top = math.Max(top, u)
	}
	weights := make([]float64, len(utilities))
	total := 0.0
	for i, u := range utilities {
		weights[i] = math.Exp(eps * (u - top) / (2 * sensitivity))
		total += weights[i]
	}
	r := src.Float64() * total
	for i, w := range weights {
		if r < w {
			return i, nil
		}
		r -= w
	}
	return len(weights) - 1, nil
}

// ExponentialSpec describes one use of the exponential mechanism.
func ExponentialSpec(sensitivity, eps float64) Spec {
	return Spec{Mechanism: "exponential", Norm: "utility", Sensitivity: sensitivity,
		Scale: 2 * sensitivity / eps, Guarantee: Pure(eps)}
}
