package learn

import (
	"fmt"
	"math"

	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/floats"
)

// This file holds what makes a DP-ERM release a function of grid values
// only: the public calibration (DPERMPlan), the certified optimiser (no
// release unless ‖∇J‖₂ ≤ τ is proven for the iterate, floating-point error
// included) and the release on a power-of-two grid. See TrainDPLinear for
// the guarantee.

// dpermGridBits sets the grid relative to the sensitivity: the grid step g
// is the largest power of two with g√dim ≤ Δ₀·2^-20, Δ₀ the sensitivity
// before rounding, so rounding costs at most a relative 2^-20 of noise
// (the same precision as dp.PlanLaplace and dp.PlanGaussian).
const dpermGridBits = 20

// DefaultDPERMLambdaFloor is the smallest λ that a resolved (Lambda = 0)
// DP-ERM regulariser takes.
const DefaultDPERMLambdaFloor = 1e-3

// objectiveJacobianShare θ is the share of an objective-perturbation
// budget that the resolved λ lets the Jacobian term of Chaudhuri et al.'s
// Theorem 9 take: with λ = c/(n(e^{θε/2} − 1)), 2·log(1 + c/(nλ)) = θε, so
// ε′ = (1 − θ)ε and the extra-regulariser branch (ε′ ≤ 0, which spends
// half of ε on the Jacobian) is never reached.
const objectiveJacobianShare = 0.25

// unitRoundoff is u = 2^-53, the relative rounding error of float64.
const unitRoundoff = 0x1p-53

// gammaK is Higham's γ_k = ku/(1 − ku), the relative error bound of k
// floating-point operations in sequence.
func gammaK(k int) float64 {
	ku := float64(k) * unitRoundoff
	return ku / (1 - ku)
}

// rowShrink is the factor every DP-ERM row is multiplied by on top of its
// scaling onto the unit ball, so that the rows the optimiser sees have
// exact (real) norm at most 1 despite the rounding of their computed norm
// (relative error within γ_{2d+8}) and of the scaling itself: the
// sensitivity bounds below need ‖x̃‖ ≤ 1, not ≤ 1 + O(u).
func rowShrink(d int) float64 { return 1 - 2*gammaK(2*d+8) }

// DPERMPlan is the public calibration of one DP-ERM model: it is a
// function of (n, d, ε, the options) only, never of the data, so a caller
// can report it before training. Build it with DPERMOptions.Plan.
type DPERMPlan struct {
	Method  Perturbation
	N, Dim  int     // rows, and trained coordinates (features, plus 1 with bias)
	Epsilon float64 // the model's whole budget
	Lambda  float64 // λ on the mean loss (resolved when the options' Lambda is 0)
	GradTol float64 // τ: the released iterate has ‖∇J‖₂ ≤ τ, proven

	// Objective perturbation (Algorithm 2 of Chaudhuri et al. 2011) only.
	Delta        float64 // their extra regulariser Δ (0 unless ε′ ≤ 0)
	EpsObjective float64 // budget of Algorithm 2: Epsilon − EpsRelease
	EpsPrime     float64 // ε′ of the linear term's density
	LinearScale  float64 // b ∝ exp(−‖b‖/LinearScale), LinearScale = 2/ε′

	// The release: g·(⌊w/g⌉ + ⌊v/g⌉) with v ∝ exp(−‖v‖/Scale).
	EpsRelease  float64 // budget of the released noise v
	Grid        float64 // g, a power of two
	Sensitivity float64 // L2 sensitivity that v covers (see TrainDPLinear)
	Scale       float64 // Sensitivity / EpsRelease
}

// StrongConvexity is λ + Δ, the strong-convexity constant of the
// objective that is minimised.
func (p DPERMPlan) StrongConvexity() float64 { return p.Lambda + p.Delta }

// Plan is the calibration of TrainDPLinear with these options on n rows of
// d features (o.Epsilon is the model's budget; TrainDPClassifier plans each
// one-vs-rest model with o.Epsilon/classes).
func (o DPERMOptions) Plan(n, d int) (DPERMPlan, error) {
	if err := o.Validate(); err != nil {
		return DPERMPlan{}, err
	}
	if n < 1 || d < 1 {
		return DPERMPlan{}, fmt.Errorf("learn: DP-ERM plan for %d rows of %d features: %w", n, d, ErrInvalidData)
	}
	return o.plan(n, d, o.Epsilon), nil
}

// ResolvedLambda is the λ that DP-ERM uses on n rows at budget eps: o.Lambda
// when set, otherwise
//
//	objective perturbation:  λ = max(λ₀, c / (n·(e^{θε/2} − 1))),  θ = 1/4
//	output perturbation:     λ = λ₀
//
// with λ₀ = DefaultDPERMLambdaFloor and c the loss's curvature bound. The
// objective formula makes the Jacobian factor (1 + c/(nλ))² of Chaudhuri et
// al.'s Theorem 9 cost exactly θε, so ε′ = ε₁ − θε ≈ 3ε/4 (ε₁ = ε less the
// small residual share, see TrainDPLinear; more when the floor binds) and
// their extra-regulariser branch, which halves ε, is not taken. For small
// ε it is λ ≈ 8c/(nε), whereas λ = 1/n hits that branch for every
// ε ≤ 2·log(1 + c): ε ≤ 1.39 with the Huber hinge at h = ½, ε ≤ 0.45
// with the logistic loss.
func (o DPERMOptions) ResolvedLambda(n int, eps float64) float64 {
	if o.Lambda > 0 {
		return o.Lambda
	}
	lambda := DefaultDPERMLambdaFloor
	if o.Method == ObjectivePerturbation {
		// Expm1 overflows to +Inf for huge ε, giving 0: the floor.
		lambda = math.Max(lambda, o.curvature()/(float64(n)*math.Expm1(objectiveJacobianShare*eps/2)))
	}
	return lambda
}

// plan calibrates one model of budget eps on n rows of d features. See
// TrainDPLinear for the formulas.
func (o DPERMOptions) plan(n, d int, eps float64) DPERMPlan {
	dim := d
	if o.Bias {
		dim++
	}
	root := math.Sqrt(float64(dim))
	p := DPERMPlan{Method: o.Method, N: n, Dim: dim, Epsilon: eps, Lambda: o.ResolvedLambda(n, eps), GradTol: o.GradTol}
	nf, tau := float64(n), o.GradTol
	switch o.Method {
	case OutputPerturbation:
		// The minimiser moves by at most 2/(nλ) (Theorem 6); the
		// certified iterate is within τ/λ of it on each data set.
		base := 2/(nf*p.Lambda) + 2*tau/p.Lambda
		p.Grid = gridFor(base, root)
		p.EpsRelease = eps
		p.Sensitivity = base + p.Grid*root
	case ObjectivePerturbation:
		// A first budget with the whole ε fixes the strong convexity
		// that sizes the grid; the split then puts ε₂ = εr/(1+r),
		// r = √(B/A), on the residual noise of scale B/ε₂, where A =
		// 2/(n(λ+Δ)) is the scale per unit budget of the minimiser's
		// perturbation by b/n and B the residual's sensitivity: the
		// split that minimises A/ε₁ + B/ε₂ for ε₁ + ε₂ = ε.
		_, delta := objectiveBudget(eps, n, p.Lambda, o.curvature())
		strong := p.Lambda + delta
		a := 2 / (nf * strong)
		p.Grid = gridFor(a, root)
		r := math.Sqrt((2*tau/strong + p.Grid*root) / a)
		p.EpsRelease = eps * r / (1 + r)
		p.EpsObjective = eps - p.EpsRelease
		p.EpsPrime, p.Delta = objectiveBudget(p.EpsObjective, n, p.Lambda, o.curvature())
		p.LinearScale = 2 / p.EpsPrime
		p.Sensitivity = 2*tau/p.StrongConvexity() + p.Grid*root
	default:
		panic("learn: unvalidated perturbation method")
	}
	p.Scale = p.Sensitivity / p.EpsRelease
	return p
}

// gridFor is the largest power of two g with g·root ≤ base·2^-20.
func gridFor(base, root float64) float64 {
	x := base / root / (1 << dpermGridBits)
	if x < 0x1p-1000 {
		return 0x1p-1000
	}
	_, exp := math.Frexp(x)
	return math.Ldexp(1, exp-1)
}

// roundHalfUp is ⌊x + ½⌋, computed exactly (x − ⌊x⌋ is exact in float64).
// Unlike math.Round it satisfies ⌊k + x⌉ = k + ⌊x⌉ for every integer k,
// which makes the grid release an exact post-processing (TrainDPLinear).
func roundHalfUp(x float64) float64 {
	f := math.Floor(x)
	if x-f >= 0.5 {
		f++
	}
	return f
}

// maxGridUnits bounds |⌊w/g⌉| and |⌊v/g⌉| so that their sum is an exact
// float64 integer.
const maxGridUnits = 1 << 52

// releaseOnGrid replaces the certified iterate w by
// g·(⌊w/g⌉ + ⌊v/g⌉), v drawn with density ∝ exp(−‖v‖/plan.Scale) in
// floating point. Only the integers ⌊w/g⌉ depend on the data.
func releaseOnGrid(w []float64, plan DPERMPlan, src *randx.Source) error {
	v := gammaNormNoise(len(w), plan.Scale, src)
	g := plan.Grid
	for j := range w {
		kw, kv := roundHalfUp(w[j]/g), roundHalfUp(v[j]/g)
		if !(math.Abs(kw) < maxGridUnits && math.Abs(kv) < maxGridUnits) {
			return fmt.Errorf("weight %d is %v grid steps of %v (noise %v steps), beyond exact float64 integers: %w",
				j, kw, g, kv, ErrNotConverged)
		}
		w[j] = (kw + kv) * g
	}
	return nil
}

// certifiedGradient returns ‖∇J(w)‖₂ for the exact (real-arithmetic)
// objective J of p, as computed in floating point with compensated
// summation over the rows, and a bound on the error of that value, so that
// the true norm is at most norm + slack.
//
// The bound (u = 2^-53, γ_k = ku/(1 − ku), ‖x̃ᵢ‖ ≤ 1, |ℓ′| ≤ 1, ℓ″ ≤ c):
//   - margins, with the compensated dot product (dot2): |z̃ᵢ − zᵢ| ≤
//     (6u + 2γ_d²)‖w‖, so |ℓ′(z̃ᵢ) − ℓ′(zᵢ)| ≤ c(6u + 2γ_d²)‖w‖, plus
//     8u(1 + c) for evaluating ℓ′ itself (exp and a division, or the Huber
//     ramp);
//   - sum: Neumaier's compensated sum has error (2u + O(nu²))·Σ|aᵢ|
//     (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed.,
//     §4.3), and the terms' own products 2u; Σᵢ‖aᵢ‖ ≤ n, so after the mean
//     8u + 4nu²;
//   - regulariser and linear term: 3u(1 + λ‖w‖ + ‖b‖/n);
//   - the norm: γ_{2·dim+8}·norm.
//
// The sum of these is doubled to cover second-order terms.
func certifiedGradient(p *ermProblem, w []float64) (norm, slack float64) {
	dim := p.dim()
	sum, comp := make([]float64, dim), make([]float64, dim)
	add := func(j int, a float64) {
		t := sum[j] + a
		if math.Abs(sum[j]) >= math.Abs(a) {
			comp[j] += (sum[j] - t) + a
		} else {
			comp[j] += (a - t) + sum[j]
		}
		sum[j] = t
	}
	wx := w[:p.d]
	for i, x := range p.rows {
		s := 1.0
		if p.rowScale != nil {
			s = p.rowScale[i]
		}
		z := s * dot2(wx, x)
		if p.hasBias {
			z += w[p.d] * p.biasValue
		}
		yi := p.y[i]
		c := p.loss.deriv(yi*z) * yi
		if c == 0 {
			continue
		}
		cs := c * s
		for j, xj := range x {
			add(j, cs*xj)
		}
		if p.hasBias {
			add(p.d, c*p.biasValue)
		}
	}
	n := float64(len(p.rows))
	grad := make([]float64, dim)
	for j := range grad {
		grad[j] = (sum[j]+comp[j])/n + p.lambda*w[j]
		if p.linear != nil {
			grad[j] += p.linear[j] / n
		}
	}
	norm = floats.Norm(grad, 2)
	curv := p.curvature()
	wNorm := floats.Norm(w, 2)
	var bNorm float64
	if p.linear != nil {
		bNorm = floats.Norm(p.linear, 2)
	}
	u := unitRoundoff
	slack = 8*u + 4*n*u*u +
		curv*(6*u+2*gammaK(p.d)*gammaK(p.d))*wNorm + 8*u*(1+curv) +
		3*u*(1+p.lambda*wNorm+bNorm/n) +
		gammaK(2*dim+8)*norm
	return norm, 2 * slack
}

// dot2 is xᵀy computed in twice the working precision (Ogita, Rump &
// Oishi, "Accurate Sum and Dot Product", SIAM J. Sci. Comput. 26, 2005,
// Algorithm 5.3 with an FMA TwoProduct): the error is at most
// u|xᵀy| + γ_n²|x|ᵀ|y| (their Proposition 5.5).
func dot2(x, y []float64) float64 {
	var p, s float64
	for i, xi := range x {
		h := xi * y[i]
		r := math.FMA(xi, y[i], -h) // h + r = xᵢyᵢ exactly
		t := p + h
		z := t - p
		q := (p - (t - z)) + (h - z) // t + q = p + h exactly (TwoSum)
		p = t
		s += q + r
	}
	return p + s
}

// curvature is the bound c on ℓ″ of the problem's loss.
func (p *ermProblem) curvature() float64 {
	if h, ok := p.loss.(huberHingeLoss); ok {
		return 1 / (2 * h.h)
	}
	return 0.25
}

// maxRestarts bounds the L-BFGS restarts of minimizeCertified.
const maxRestarts = 8

// minimizeCertified minimises p from w = 0 and returns an iterate whose
// true gradient norm is proven at most tau (certifiedGradient), within
// maxIter L-BFGS iterations in all. L-BFGS is run to ‖∇J‖∞ ≤ τ/(4√dim),
// hence ‖∇J‖₂ ≤ τ/4 as it computes it; when its line search stalls first
// (the floating-point floor of a tight tolerance) it is restarted from its
// last iterate with an empty memory. An iterate that cannot be certified
// is never returned: the error wraps ErrNotConverged and says why.
func minimizeCertified(p *ermProblem, maxIter int, tau float64) ([]float64, error) {
	fg := func(w, grad []float64) float64 {
		p.eval(w)
		copy(grad, p.lastGrad)
		return p.lastF
	}
	dim := p.dim()
	tolInf := tau / (4 * math.Sqrt(float64(dim)))
	w := make([]float64, dim)
	used := 0
	var norm, slack float64
	for restart := 0; ; restart++ {
		res := minimizeLBFGS(fg, w, maxIter-used, tolInf)
		used += res.iters
		w = res.x
		for j, v := range w {
			if !isFinite(v) {
				return nil, fmt.Errorf("L-BFGS diverged (weight %d is %v): %w", j, v, ErrNotConverged)
			}
		}
		norm, slack = certifiedGradient(p, w)
		switch {
		case norm+slack <= tau:
			return w, nil
		case used >= maxIter:
			return nil, fmt.Errorf("L-BFGS reached MaxIter = %d iterations with gradient L2 norm %.3g (+ %.2g rounding) > GradTol τ = %.3g (raise MaxIter): %w",
				maxIter, norm, slack, tau, ErrNotConverged)
		case !res.stalled:
			return nil, fmt.Errorf("gradient L2 norm %.3g plus its rounding bound %.2g exceeds GradTol τ = %.3g although L-BFGS met τ (the bound grows with n: raise GradTol): %w",
				norm, slack, tau, ErrNotConverged)
		case restart == maxRestarts:
			return nil, fmt.Errorf("L-BFGS stalled after %d iterations and %d restarts with gradient L2 norm %.3g (+ %.2g rounding) > GradTol τ = %.3g (raise GradTol): %w",
				used, restart, norm, slack, tau, ErrNotConverged)
		}
	}
}
