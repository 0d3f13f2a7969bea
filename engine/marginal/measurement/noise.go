package measurement

import (
	"fmt"
	"math"

	"github.com/dppub/dppub/dp"
)

// Sensitivities under "replace one record" (n fixed and public), and
// beside each the one under "add or remove one record" (n private:
// dp.NeighboursAddRemove), which CountSensitivity and ScoreSensitivity
// choose between.
const (
	// CountL1 is the L1 sensitivity of a count vector over any attribute
	// set: replacing a record moves one unit from one cell to another.
	// Adding or removing one moves one cell by one: CountL1AddRemove = 1.
	CountL1 = 2.0
	// IInDifSensitivity is the sensitivity of the paper's IInDif score
	// (Algorithm 1): Σ_ij |N*_{a=i} N*_{b=j}/n − N_{a=i,b=j}| with the
	// noisy one-way counts N* already published. Given N*, the score is a
	// 1-Lipschitz function (in L1) of the count vector N, which moves by 2.
	// Under add/remove n is the released noisy count, public too, and N
	// moves by 1 in L1: iInDifSensitivityAddRemove = 1.
	IInDifSensitivity = 2.0
	// InDifSensitivity is the sensitivity of PrivSyn's InDif score
	// Σ_ij |N_ij − N_i M_j / n| with the TRUE one-way counts. InDif =
	// 2n·TV(p_ab, p_a ⊗ p_b); replacing a record moves the joint by 1/n
	// and the product of marginals by at most 2/n in total variation, so
	// InDif moves by at most 6. PrivSyn's paper uses 4; that is not an
	// upper bound under replace-one (TestInDifSensitivityExceedsFour
	// exhibits neighbours whose scores differ by more than 4).
	// Under add/remove inDifSensitivityAddRemove = 6 as well (n changes
	// too, so halving does not follow): with h = Σ_ij |n·N_ij − N_i M_j|
	// the score is f = h/n. Adding a record at (a, b) changes cell ij of
	// n·N − N⊗M by N_ij + n[i=a][j=b] − N_i[j=b] − M_j[i=a], whose
	// absolute values sum to 4S, S = #records outside row a and column b
	// ≤ n; so f' − f = (h' − h)/(n+1) − f/(n+1) lies in
	// [−(4n + 2n)/(n+1), 4n/(n+1)] ⊂ (−6, 4), using 0 ≤ f ≤ 2n.
	InDifSensitivity = 6.0
)

// The same sensitivities under add/remove (derived beside each
// replace-one one above).
const (
	CountL1AddRemove           = 1.0
	CountL2AddRemove           = 1.0
	iInDifSensitivityAddRemove = 1.0
	inDifSensitivityAddRemove  = 6.0
)

// CountL2 is the L2 sensitivity of a count vector under replace-one: two
// cells change by one, so √2. Under add/remove one cell changes by one:
// CountL2AddRemove = 1.
var CountL2 = math.Sqrt2

// CountSensitivity is the L1 and L2 sensitivity of a count vector over
// any attribute set under nb (empty: replace-one).
func CountSensitivity(nb dp.Neighbours) (l1, l2 float64) {
	if nb.Or() == dp.NeighboursAddRemove {
		return CountL1AddRemove, CountL2AddRemove
	}
	return CountL1, CountL2
}

// ScoreSensitivity is the sensitivity of the pair score kind under nb.
func ScoreSensitivity(kind ScoreKind, nb dp.Neighbours) float64 {
	addRemove := nb.Or() == dp.NeighboursAddRemove
	switch {
	case kind == InDif && addRemove:
		return inDifSensitivityAddRemove
	case kind == InDif:
		return InDifSensitivity
	case addRemove:
		return iInDifSensitivityAddRemove
	}
	return IInDifSensitivity
}

// CountNoise calibrates the noise mech of a count vector's release
// costing rho under nb: Calibrate at CountSensitivity(nb).
func CountNoise(mech Mechanism, nb dp.Neighbours, rho float64) (Noise, error) {
	l1, l2 := CountSensitivity(nb)
	return Calibrate(mech, l1, l2, rho)
}

// Mechanism is the noise distribution of a release (dp's shared
// vocabulary).
type Mechanism = dp.Mechanism

const (
	// Laplace adds Lap(b) with b = Δ₁/ε, ε-DP (Dwork et al. 2006), hence
	// ε²/2-zCDP (Bun & Steinke 2016, Prop. 1.4). The paper uses it for the
	// one-way marginals (Algorithm 3, step 3).
	Laplace = dp.MechanismLaplace
	// Gaussian adds N(0, σ²) with σ = Δ₂/√(2ρ): ρ-zCDP (Bun & Steinke
	// 2016, Prop. 1.6).
	Gaussian = dp.MechanismGaussian
)

// Noise is a calibrated release: which distribution, the sensitivity it
// was calibrated to (L1 for Laplace, L2 for Gaussian), its scale (b or σ)
// and the zCDP ρ it costs each party it is charged to.
type Noise struct {
	Mechanism   Mechanism `json:"mechanism"`
	Sensitivity float64   `json:"sensitivity"`
	Scale       float64   `json:"scale"`
	Rho         float64   `json:"rho"`
}

// Calibrate returns the noise that makes a query of L1 sensitivity l1 and
// L2 sensitivity l2 ρ-zCDP with the given mechanism: Laplace at
// ε = √(2ρ), b = l1/ε; Gaussian at σ = l2/√(2ρ).
func Calibrate(mech Mechanism, l1, l2, rho float64) (Noise, error) {
	if err := dp.CheckRho(rho); err != nil {
		return Noise{}, fmt.Errorf("measurement: %w", err)
	}
	switch mech {
	case Laplace:
		b, err := dp.LaplaceScale(l1, math.Sqrt(2*rho))
		if err != nil {
			return Noise{}, fmt.Errorf("measurement: %w", err)
		}
		return Noise{Mechanism: Laplace, Sensitivity: l1, Scale: b, Rho: rho}, nil
	case Gaussian:
		s, err := dp.ZCDPGaussianSigma(l2, rho)
		if err != nil {
			return Noise{}, fmt.Errorf("measurement: %w", err)
		}
		return Noise{Mechanism: Gaussian, Sensitivity: l2, Scale: s, Rho: rho}, nil
	}
	_, err := dp.ParseMechanism(string(mech))
	return Noise{}, fmt.Errorf("measurement: %w", err)
}

// Validate checks a noise specification received from elsewhere.
func (n Noise) Validate() error {
	if _, err := dp.ParseMechanism(string(n.Mechanism)); err != nil {
		return fmt.Errorf("measurement: %w", err)
	}
	for _, v := range []float64{n.Sensitivity, n.Scale, n.Rho} {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("measurement: noise %+v has a non-positive or infinite parameter", n)
		}
	}
	return nil
}

// Epsilon is the pure-DP ε of a Laplace release (Δ₁/b); 0 for Gaussian.
func (n Noise) Epsilon() float64 {
	if n.Mechanism != Laplace {
		return 0
	}
	return n.Sensitivity / n.Scale
}

// Variance is the variance of one noise draw.
func (n Noise) Variance() float64 {
	if n.Mechanism == Laplace {
		return 2 * n.Scale * n.Scale
	}
	return n.Scale * n.Scale
}

// Spec describes the release for the accountant: Laplace is charged as
// ε-DP (the accountant composes it into a zCDP budget as ε²/2), Gaussian as
// ρ-zCDP.
func (n Noise) Spec() dp.Spec {
	if n.Mechanism == Laplace {
		return dp.Spec{Mechanism: "laplace", Norm: "L1", Sensitivity: n.Sensitivity, Scale: n.Scale,
			Guarantee: dp.Pure(n.Epsilon())}
	}
	return dp.Spec{Mechanism: "gaussian", Norm: "L2", Sensitivity: n.Sensitivity, Scale: n.Scale,
		Guarantee: dp.Concentrated(n.Rho)}
}

// Release replaces v (one measurement) by its noisy release on a public
// grid (dp.Noiser.ReleaseLaplace / ReleaseGaussian): Laplace at ε =
// Sensitivity/Scale, Gaussian of σ = Scale for L2 Sensitivity.
func (n Noise) Release(nz *dp.Noiser, v []float64) {
	if len(v) == 0 {
		return
	}
	plan, err := n.Plan(len(v))
	if err != nil {
		panic(err) // Calibrate validated the noise
	}
	nz.Release(plan, v)
}

// Plan is the grid release of one measurement of `values` values:
// dp.PlanLaplace(Δ₁, ε, values) or dp.PlanGaussian(Δ₂, σ, values). A
// protocol that draws the same noise as shares uses the same plan, so the
// joint and the local releases have the same law on the same grid.
func (n Noise) Plan(values int) (dp.GridNoise, error) {
	if n.Mechanism == Laplace {
		return dp.PlanLaplace(n.Sensitivity, n.Epsilon(), values)
	}
	return dp.PlanGaussian(n.Sensitivity, n.Scale, values)
}
