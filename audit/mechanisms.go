package audit

import (
	"fmt"
	"slices"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/randx"
)

// ScalarOptions configure the audit of a noise mechanism on one scalar
// query whose value moves by the full sensitivity between D and D'.
type ScalarOptions struct {
	Epsilon float64
	// Delta is the δ of the Gaussian mechanism (ignored by Laplace).
	Delta float64
	// Sensitivity is the query's L1 (Laplace) or L2 (Gaussian)
	// sensitivity; 0 means 1.
	Sensitivity float64
}

func (o ScalarOptions) sensitivity() float64 {
	if o.Sensitivity == 0 {
		return 1
	}
	return o.Sensitivity
}

// The default pair of the value audits (scalar Laplace and Gaussian,
// zero-sum, dppca, mp-crdp-pearson; ppca-dp-mh's rows): a shared value
// OffGridBase = ⅓ and a move OffGridMove = u = 1 − 2^-10/3, within 2^-10/3
// of the full sensitivity. ⅓, u and ⅓ + u have low-order bits set below
// every power of two, so a release that adds its noise to the exact value
// without rounding it to its grid keeps bits that differ between D and D'
// and fails the grey-box audit (TestGreyBoxCatchesScalarFloatPath); a pair
// on every grid, such as 0 against 1, would hide it (the float path is
// then itself a grid release).
const (
	OffGridBase = 1.0 / 3
	OffGridMove = 1 - 0x1p-10/3
)

// ScalarPair is the scalar query's value on D and D' for sensitivity
// delta: delta·⅓ and delta·(⅓ + u), a move of u·delta.
func ScalarPair(delta float64) [2]float64 {
	return [2]float64{delta * OffGridBase, delta * (OffGridBase + OffGridMove)}
}

// WithGridTruth states v as the mechanism's truth and bounds the replay
// by |v' − v| + g: a release on the grid g rounds each value by at most
// g/2 before its noise, which same-seed releases share.
func WithGridTruth(m Mechanism, v [2]float64, g float64) Mechanism {
	m = WithScalarTruth(m, v[D], v[DPrime])
	m.ReplayBound += g
	return m
}

// Laplace audits dp.Laplace (scale Δ₁/ε, claimed ε-DP; Dwork et al. 2006)
// on a scalar query with f(D) = Δ₁/3 and f(D') = Δ₁(⅓ + u), u = 1 −
// 2^-10/3 (ScalarPair: off every grid, 0.9997 of the sensitivity). The
// statistic is the release itself; every event {y ≤ t} with t ≤ f(D) has
// probability ratio exactly e^{uε}, so a sound implementation's bound
// approaches ε from below. The truth is stated, so the grey-box audit also
// compares the residuals o − round_g(f).
func Laplace(o ScalarOptions) (Mechanism, error) {
	delta := o.sensitivity()
	lap, err := dp.NewLaplace(dp.LaplaceOptions{L1Sensitivity: delta, Epsilon: o.Epsilon})
	if err != nil {
		return Mechanism{}, fmt.Errorf("audit: %w", err)
	}
	plan, err := dp.PlanLaplace(delta, o.Epsilon, 1)
	if err != nil {
		return Mechanism{}, fmt.Errorf("audit: %w", err)
	}
	return scalarMechanism(fmt.Sprintf("laplace (Δ₁=%g, ε=%g)", delta, o.Epsilon), lap.Spec().Guarantee, delta, plan.Grid, lap.Release), nil
}

// Gaussian audits dp.Gaussian with the analytic calibration (Balle & Wang
// 2018, Thm. 8; claimed (ε, δ)-DP) on a scalar query with f(D) = Δ₂/3 and
// f(D') = Δ₂(⅓ + u) (ScalarPair, as Laplace). The statistic is the release
// itself, which is monotone in the likelihood ratio, so threshold events
// include the optimal ones.
func Gaussian(o ScalarOptions) (Mechanism, error) {
	delta := o.sensitivity()
	g, err := dp.NewGaussian(dp.GaussianOptions{L2Sensitivity: delta, Epsilon: o.Epsilon, Delta: o.Delta, Calibration: dp.Analytic})
	if err != nil {
		return Mechanism{}, fmt.Errorf("audit: %w", err)
	}
	plan, err := dp.PlanGaussian(delta, g.Sigma(), 1)
	if err != nil {
		return Mechanism{}, fmt.Errorf("audit: %w", err)
	}
	return scalarMechanism(fmt.Sprintf("gaussian-analytic (Δ₂=%g, ε=%g, δ=%g)", delta, o.Epsilon, o.Delta), g.Guarantee(), delta, plan.Grid, g.Release), nil
}

// scalarMechanism is a scalar release on ScalarPair(delta) by release,
// with its truth on grid.
func scalarMechanism(name string, claim dp.Guarantee, delta, grid float64, release func(*dp.Noiser, []float64)) Mechanism {
	v := ScalarPair(delta)
	return WithGridTruth(Mechanism{
		Name:  name,
		Claim: claim,
		Pair:  scalarPairText(v, delta),
		Dim:   1,
		Release: func(side Side, src *randx.Source, out []float64) error {
			out[0] = v[side]
			release(dp.NewNoiser(src), out)
			return nil
		},
	}, v, grid)
}

func scalarPairText(v [2]float64, delta float64) string {
	return fmt.Sprintf("scalar query: f(D) = %.6g = Δ/3, f(D') = %.6g = Δ(⅓ + u), u = 1 − 2^-10/3 (a move of %.4g of the sensitivity %g; both values and the move off every grid)",
		v[D], v[DPrime], (v[DPrime]-v[D])/delta, delta)
}

// SideValue is a scalar query's value on side: 0 on D, v on D'.
func SideValue(side Side, v float64) float64 {
	if side == D {
		return 0
	}
	return v
}

// ExponentialOptions configure the audit of a private selection.
type ExponentialOptions struct {
	Epsilon float64
	// Candidates is the number of outputs; 0 means 50.
	Candidates int
	// Mechanism is "permute-and-flip" (default: dp.PermuteAndFlip,
	// claimed ε-DP) or "exponential" (dp.Exponential, claimed
	// ε²/8-zCDP by its bounded range, tested at δ = 1e-6 and by the
	// Rényi test).
	Mechanism string
}

// Exponential audits a private selection over utilities of sensitivity
// Δu = 1: dp.PermuteAndFlip (McKenna & Sheldon 2020; claimed ε-DP, like
// the exponential mechanism of McSherry & Talwar 2007), or dp.Exponential
// (claimed ε²/8-zCDP: ε-bounded range, Durfee & Rogers 2019, Cesar &
// Rogers 2021). The pair is the worst case for
// candidate 0: its utility is 1 on D and 0 on D', while every other
// candidate's is 0 on D and 1 on D'. Then
//
// for the exponential mechanism P_D(0)/P_D'(0) = e^{ε/2}(1 + (k−1)e^{ε/2})
// / (e^{ε/2} + k − 1), which tends to e^ε as the number of candidates k
// grows (2.66 = e^0.98 for ε = 1, k = 50); permute-and-flip's ratio on
// this pair is of the same order. The release is the chosen index.
func Exponential(o ExponentialOptions) (Mechanism, error) {
	k := o.Candidates
	if k == 0 {
		k = 50
	}
	if k < 2 {
		return Mechanism{}, fmt.Errorf("audit: the exponential mechanism needs at least 2 candidates, got %d", k)
	}
	pick, spec, delta := dp.PermuteAndFlip, dp.SelectionSpec(1, o.Epsilon), 0.0
	switch o.Mechanism {
	case "", "permute-and-flip":
	case "exponential":
		pick, spec, delta = dp.Exponential, dp.ExponentialSpec(1, o.Epsilon), 1e-6
	default:
		return Mechanism{}, fmt.Errorf("audit: exponential: unknown selection %q (want permute-and-flip or exponential)", o.Mechanism)
	}
	if err := spec.Guarantee.Validate(); err != nil {
		return Mechanism{}, fmt.Errorf("audit: exponential: %w", err)
	}
	utilities := [2][]float64{make([]float64, k), make([]float64, k)}
	utilities[D][0] = 1
	for i := 1; i < k; i++ {
		utilities[DPrime][i] = 1
	}
	return Mechanism{
		Name:  fmt.Sprintf("%s (Δu=1, ε=%g, %d candidates)", spec.Mechanism, o.Epsilon, k),
		Claim: spec.Guarantee,
		Delta: delta,
		Pair:  "utility of candidate 0 is 1 on D and 0 on D'; every other candidate's is 0 on D and 1 on D'",
		Dim:   1,
		Release: func(side Side, src *randx.Source, out []float64) error {
			i, err := pick(src, utilities[side], 1, o.Epsilon)
			out[0] = float64(i)
			return err
		},
	}, nil
}

// SideTruth states a mechanism's true values on each side (Mechanism.Truth).
func SideTruth(fD, fDPrime []float64) func(Side) []float64 {
	return func(side Side) []float64 {
		if side == D {
			return slices.Clone(fD)
		}
		return slices.Clone(fDPrime)
	}
}

// Fill is n copies of v.
func Fill(n int, v float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}
