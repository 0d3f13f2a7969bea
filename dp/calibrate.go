package dp

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// LaplaceScale returns b = Δ₁/ε, the Laplace scale that gives ε-DP for a
// query of L1 sensitivity Δ₁ (Dwork, McSherry, Nissim, Smith 2006).
func LaplaceScale(l1Sensitivity, eps float64) (float64, error) {
	if err := checkSensitivity(l1Sensitivity); err != nil {
		return 0, err
	}
	if err := checkEpsilon(eps); err != nil {
		return 0, err
	}
	return l1Sensitivity / eps, nil
}

// ClassicGaussianSigma returns σ = Δ₂·√(2 ln(1.25/δ))/ε, which gives
// (ε, δ)-DP only for ε < 1 (Dwork & Roth 2014, Thm. A.1); larger ε is an
// error (use AnalyticGaussianSigma).
func ClassicGaussianSigma(l2Sensitivity, eps, delta float64) (float64, error) {
	if err := checkGaussianArgs(l2Sensitivity, eps, delta); err != nil {
		return 0, err
	}
	if eps >= 1 {
		return 0, fmt.Errorf("dp: the classic Gaussian calibration needs epsilon < 1, got %v (use the analytic calibration)", eps)
	}
	return l2Sensitivity * math.Sqrt(2*math.Log(1.25/delta)) / eps, nil
}

// AnalyticGaussianSigma returns the smallest σ (to a relative precision of
// 1e-10, rounded up) such that the Gaussian mechanism with L2 sensitivity Δ₂
// is (ε, δ)-DP, by Balle & Wang (ICML 2018), Theorem 8:
//
//	δ(σ) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) ≤ δ.
func AnalyticGaussianSigma(l2Sensitivity, eps, delta float64) (float64, error) {
	if err := checkGaussianArgs(l2Sensitivity, eps, delta); err != nil {
		return 0, err
	}
	// δ(σ) decreases in σ; work with s = σ/Δ so the search is scale-free.
	lo, hi := 0.0, 1.0
	for gaussianDelta(hi, eps) > delta {
		lo, hi = hi, 2*hi
		if hi > 1e12 {
			return 0, fmt.Errorf("dp: no Gaussian sigma reaches delta=%v at epsilon=%v", delta, eps)
		}
	}
	for hi-lo > 1e-10*hi {
		mid := (lo + hi) / 2
		if gaussianDelta(mid, eps) > delta {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi * l2Sensitivity, nil
}

// GaussianDelta returns the exact δ at which Gaussian noise of standard
// deviation σ on a query of L2 sensitivity Δ₂ is (ε, δ)-DP (Balle & Wang
// 2018, Thm. 8). It is used to state the true guarantee of a paper
// calibration.
func GaussianDelta(sigma, l2Sensitivity, eps float64) float64 {
	return gaussianDelta(sigma/l2Sensitivity, eps)
}

// gaussianDelta is δ(σ) for Δ = 1.
func gaussianDelta(s, eps float64) float64 {
	a, b := 1/(2*s), eps*s
	e := math.Exp(eps)
	if math.IsInf(e, 1) {
		return 0
	}
	d := distuv.UnitNormal.CDF(a-b) - e*distuv.UnitNormal.CDF(-a-b)
	return math.Max(d, 0)
}

// ZCDPGaussianSigma returns σ = Δ₂/√(2ρ): Gaussian noise with this σ on a
// query of L2 sensitivity Δ₂ is ρ-zCDP (Bun & Steinke 2016, Prop. 1.6).
func ZCDPGaussianSigma(l2Sensitivity, rho float64) (float64, error) {
	if err := checkSensitivity(l2Sensitivity); err != nil {
		return 0, err
	}
	if err := CheckRho(rho); err != nil {
		return 0, err
	}
	return l2Sensitivity / math.Sqrt(2*rho), nil
}

func checkSensitivity(s float64) error { return prefixed(checkPositive("sensitivity", s)) }

// checkPositive checks that x, called name, is positive and finite (NaN
// is neither), the one range of every budget, sensitivity and scale.
func checkPositive(name string, x float64) error {
	if !(x > 0) || math.IsInf(x, 0) {
		return fmt.Errorf("%s must be positive and finite, got %v", name, x)
	}
	return nil
}

// prefixed puts the package's name before err, if any.
func prefixed(err error) error {
	if err != nil {
		return fmt.Errorf("dp: %w", err)
	}
	return nil
}

// checkPlan checks a grid plan's inputs: an L1 or L2 sensitivity, the
// budget or continuous scale (called name) it is calibrated for, and the
// release's dimension; what names the plan in errors.
func checkPlan(what string, sensitivity float64, name string, x float64, dim int) error {
	err := checkPositive("sensitivity", sensitivity)
	if err == nil {
		err = checkPositive(name, x)
	}
	if err == nil && dim < 1 {
		err = fmt.Errorf("a release needs at least 1 coordinate, got %d", dim)
	}
	if err != nil {
		return fmt.Errorf("dp: %s: %w", what, err)
	}
	return nil
}

func checkGaussianArgs(l2, eps, delta float64) error {
	if err := checkSensitivity(l2); err != nil {
		return err
	}
	if err := checkEpsilon(eps); err != nil {
		return err
	}
	if !(delta > 0 && delta < 1) {
		return fmt.Errorf("dp: the Gaussian mechanism needs delta in (0, 1), got %v", delta)
	}
	return nil
}

// MaxDefaultDelta is the largest δ a run chooses for itself
// (DefaultDeltaCapped): 1/n² of a small table would be a δ that no one
// would write down (0.25 for 2 records).
const MaxDefaultDelta = 1e-5

// DefaultDeltaCapped is the δ a run chooses when none is given: 1/n² of
// its n records (all the owners' together), at most MaxDefaultDelta.
func DefaultDeltaCapped(n int) float64 { return min(DefaultDelta(n), MaxDefaultDelta) }

// DefaultDelta is dppub's default δ for n records, 1/n²: below 1/n, so
// that a mechanism that reveals one record outright with probability δ
// is not (ε, δ)-DP for any useful ε, and the value the papers use in their
// experiments. n is public wherever it is used.
func DefaultDelta(n int) float64 {
	if n < 1 {
		panic(fmt.Sprintf("dp: default delta for %d records", n))
	}
	return 1 / float64(n) / float64(n)
}
