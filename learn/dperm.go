package learn

import (
	"fmt"
	"math"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// HuberHingeLoss is the Huber-smoothed hinge loss of Chaudhuri, Monteleoni
// & Sarwate (JMLR 2011) at margin z with smoothing h > 0:
//
//	0                      if z > 1+h
//	(1+h−z)² / (4h)        if |1−z| ≤ h
//	1−z                    if z < 1−h
//
// Its derivative lies in [−1, 0] and its second derivative is at most 1/(2h).
func HuberHingeLoss(z, h float64) float64 {
	switch {
	case z > 1+h:
		return 0
	case z < 1-h:
		return 1 - z
	}
	u := 1 + h - z
	return u * u / (4 * h)
}

// HuberHingeDeriv is the derivative of HuberHingeLoss in z.
func HuberHingeDeriv(z, h float64) float64 {
	switch {
	case z > 1+h:
		return 0
	case z < 1-h:
		return -1
	}
	return -(1 + h - z) / (2 * h)
}

// ERMLoss selects the loss of differentially private ERM.
type ERMLoss int

const (
	// Logistic is log(1+e^{−z}): |ℓ′| ≤ 1, ℓ″ ≤ c = 1/4.
	Logistic ERMLoss = iota + 1
	// HuberHinge is HuberHingeLoss with smoothing h: |ℓ′| ≤ 1, ℓ″ ≤ c = 1/(2h).
	HuberHinge
)

func (l ERMLoss) String() string {
	return dp.EnumName("ERMLoss", int(l), "", "logistic", "huber-hinge")
}

// Perturbation selects how DP-ERM randomises its output.
type Perturbation int

const (
	// OutputPerturbation is Algorithm 1 of Chaudhuri et al. (2011).
	OutputPerturbation Perturbation = iota + 1
	// ObjectivePerturbation is Algorithm 2 of Chaudhuri et al. (2011).
	ObjectivePerturbation
)

func (p Perturbation) String() string {
	return dp.EnumName("Perturbation", int(p), "", "output-perturbation", "objective-perturbation")
}

// DPERMOptions configure TrainDPLinear and TrainDPClassifier. The
// non-private objective is
//
//	J(w) = (1/n) Σᵢ ℓ(yᵢ w·x̃ᵢ) + (λ/2)‖w‖²,  yᵢ = ±1.
//
// Bias: when true, each row x (with ‖x‖ ≤ 1) becomes x̃ = (x/√2, 1/√2), so
// ‖x̃‖ ≤ 1 still holds and the privacy proof covers the bias weight; the
// returned model is mapped back to x ↦ W·x + B. The price is that the data
// term is halved relative to the noise. When false, the model passes
// through the origin (B = 0).
//
// Lambda = 0 resolves λ from public quantities (n, ε, the loss):
// see ResolvedLambda.
//
// GradTol is τ: nothing is released unless the optimiser's iterate w̃ has
// ‖∇J(w̃)‖₂ ≤ τ, proven including floating-point error; the privacy
// accounting pays for the distance τ/λ that this leaves to the exact
// minimiser (TrainDPLinear). MaxIter bounds the L-BFGS iterations; a model
// that has not reached τ by then is refused with ErrNotConverged.
//
// Start from DefaultDPERMOptions: the zero value is invalid.
type DPERMOptions struct {
	Epsilon float64      // privacy budget of one binary model, > 0
	Lambda  float64      // regulariser λ on the mean loss, > 0, or 0 for ResolvedLambda
	Loss    ERMLoss      // Logistic or HuberHinge
	Huber   float64      // smoothing h of HuberHinge, > 0
	Method  Perturbation // OutputPerturbation or ObjectivePerturbation
	Bias    bool         // learn a bias through a scaled constant feature
	MaxIter int          // maximum L-BFGS iterations, > 0
	GradTol float64      // τ, the certified bound on ‖∇J‖₂ at the released iterate, > 0
}

// DefaultDPERMOptions returns objective perturbation of logistic loss with
// λ resolved from (n, ε, c) (Lambda = 0, see ResolvedLambda), h = 0.5 (used
// if the loss is switched to HuberHinge), bias on, 1000 iterations and
// gradient tolerance τ = 1e-9 in L2 norm. The cost of τ: a relative nτ
// added to the output-perturbation sensitivity, and about √(nτ) of the
// objective-perturbation budget moved to the residual noise (0.6% at
// n = 36000, 3% at n = 10⁶: lower GradTol for very large n).
func DefaultDPERMOptions(epsilon float64) DPERMOptions {
	return DPERMOptions{
		Epsilon: epsilon, Lambda: 0, Loss: Logistic, Huber: 0.5,
		Method: ObjectivePerturbation, Bias: true, MaxIter: 1000, GradTol: 1e-9,
	}
}

// Validate reports the first invalid field.
func (o DPERMOptions) Validate() error {
	bad := func(format string, v any) error {
		return fmt.Errorf("learn: DP-ERM "+format+": %w", v, ErrInvalidOptions)
	}
	switch {
	case !(o.Epsilon > 0) || math.IsInf(o.Epsilon, 1):
		return bad("Epsilon = %v must be positive and finite", o.Epsilon)
	case !(o.Lambda >= 0) || math.IsInf(o.Lambda, 1):
		return bad("Lambda = %v must be positive and finite, or 0 to resolve it (strong convexity is what makes the output private)", o.Lambda)
	case o.Loss != Logistic && o.Loss != HuberHinge:
		return bad("unknown loss %v", o.Loss)
	case o.Loss == HuberHinge && (!(o.Huber > 0) || math.IsInf(o.Huber, 1)):
		return bad("Huber = %v must be positive and finite", o.Huber)
	case o.Method != OutputPerturbation && o.Method != ObjectivePerturbation:
		return bad("unknown method %v", o.Method)
	case o.MaxIter <= 0:
		return bad("MaxIter = %v must be positive", o.MaxIter)
	case !(o.GradTol > 0) || math.IsInf(o.GradTol, 1):
		return bad("GradTol = %v must be positive and finite", o.GradTol)
	}
	return nil
}

// Guarantee is what TrainDPLinear gives with these options: pure
// Epsilon-DP.
func (o DPERMOptions) Guarantee() dp.Guarantee { return dp.Pure(o.Epsilon) }

// curvature is c, the bound on ℓ″ in Theorem 9.
func (o DPERMOptions) curvature() float64 {
	if o.Loss == HuberHinge {
		return 1 / (2 * o.Huber)
	}
	return 0.25
}

func (o DPERMOptions) loss() marginLoss {
	if o.Loss == HuberHinge {
		return huberHingeLoss{h: o.Huber}
	}
	return logisticLoss{}
}

// TrainDPLinear trains an ε-differentially private linear classifier on
// labels 0/1 (class 1 positive, yᵢ = ±1) whose rows satisfy ‖xᵢ‖₂ ≤ 1.
//
// Guarantee: pure ε-DP (ε = o.Epsilon) for data sets of n rows differing
// in one replaced row (features and label), after Chaudhuri, Monteleoni &
// Sarwate, "Differentially Private Empirical Risk Minimization", JMLR 12
// (2011), with the optimiser's residual paid for and the release made a
// function of grid values only. The calibration is o.Plan(n, d): dim = d
// (+1 with bias), λ = o.ResolvedLambda(n, ε), τ = o.GradTol, g the grid.
//
// Optimiser. Both theorems assume the exact minimiser w*. L-BFGS runs
// until ‖∇J(w̃)‖₂ ≤ τ is proven for its iterate w̃, floating-point error of
// the test included (certifiedGradient); if MaxIter iterations do not get
// there, nothing is released and the error (wrapping ErrNotConverged) says
// so. J is μ-strongly convex (μ = λ, or λ + Δ below), hence
// ‖w̃ − w*‖₂ ≤ ‖∇J(w̃)‖₂/μ ≤ τ/μ.
//
// Release. With ⌊·⌉ rounding half up, w_g = g·⌊w̃/g⌉ the iterate on the
// grid (‖w_g − w̃‖₂ ≤ g√dim/2) and v a draw with density ∝ exp(−‖v‖/s) (a
// Gamma(dim, s) norm times a uniform direction), the output is
//
//	g·(⌊w̃/g⌉ + ⌊v/g⌉) = g·⌊(w_g + v)/g⌉,
//
// exactly, since w_g/g is an integer and ⌊k + x⌉ = k + ⌊x⌉ for integers k.
// It is thus a fixed function (rounding to the grid) of w_g + v, the ideal
// continuous mechanism applied to the grid-rounded iterate: post-processing,
// which keeps the guarantee of w_g + v proven below. The data enter only
// through the integers ⌊w̃/g⌉; v is sampled in floating point independently
// of them, so the sampler's rounding can only shape the noise law and never
// exposes low-order bits of w̃ (Mironov 2012's attack reads exactly those
// bits from w̃ + v computed in float).
//
//   - OutputPerturbation, their Algorithm 1 and Theorem 6:
//     ‖w*(D) − w*(D′)‖₂ ≤ 2/(nλ) (‖x̃‖ ≤ 1, |ℓ′| ≤ 1, λ-strong convexity),
//     so the grid-rounded certified iterates satisfy
//     ‖w_g(D) − w_g(D′)‖₂ ≤ Δ = 2/(nλ) + 2τ/λ + g√dim, and s = Δ/ε gives
//     ε-DP: the density ratio of w_g + v is at most exp(Δ/s) = e^ε. g is the
//     largest power of two with g√dim ≤ 2^-20·(2/(nλ) + 2τ/λ).
//   - ObjectivePerturbation, their Algorithm 2 and Theorem 9 (c bounds ℓ″:
//     1/4 logistic, 1/(2h) Huber hinge), with ε = ε₁ + ε₂: ε′ = ε₁ −
//     log(1 + 2c/(nλ) + c²/(n²λ²)); if ε′ ≤ 0, Δ = c/(n(e^{ε₁/4} − 1)) − λ
//     and ε′ = ε₁/2, else Δ = 0; b has density ∝ exp(−(ε′/2)‖b‖), and
//     w* = argmin J(w) + (Δ/2)‖w‖² + bᵀw/n is ε₁-DP. The certified iterate
//     is w̃ = w* + e with ‖e‖ ≤ τ/(λ+Δ), so w_g = w* + e′ with
//     ‖e′‖ ≤ r = τ/(λ+Δ) + g√dim/2: a data-dependent shift that no
//     post-processing argument covers, so it is paid for with ε₂, a
//     pure-DP analogue of approximate minima perturbation (Iyengar et al.,
//     "Towards Practical Differentially Private Convex Optimization", IEEE
//     S&P 2019, Algorithm 1): s = 2r/ε₂ = (2τ/(λ+Δ) + g√dim)/ε₂. Given b,
//     the density of w_g + v at any y is within e^{±‖e′‖/s} ⊆ e^{±ε₂/2} of
//     that of w* + v, a post-processing of the ε₁-DP w*; so the ratio
//     between D and D′ is at most e^{ε₂/2}·e^{ε₁}·e^{ε₂/2} = e^ε. g is the
//     largest power of two with g√dim ≤ 2^-20·2/(n(λ+Δ)) (Δ of the whole
//     ε). The split ε₂ = εr′/(1+r′), r′ = √(2r/A), minimises A/ε₁ + 2r/ε₂,
//     A = 2/(n(λ+Δ)) being the shift of w* by b/n per unit of budget; so
//     ε₂ ≈ ε·√(nτ + 2^-20), below ε/100 up to n = 10⁵ at τ = 1e-9. b itself
//     is never released and stays continuous, as Theorem 9's change of
//     variables needs; like v, it is data-independent.
//
// Rows: a row whose norm exceeds 1 by at most 1e-9 (floating-point
// rounding) is scaled onto the unit sphere, a per-row map that keeps the
// guarantee; a larger norm is an error. Every row is also multiplied by
// 1 − 2γ_{2d+8} (γ_k ≈ k·2^-53), so that its exact norm, not only its
// computed one, is at most 1. A class without examples is not an error
// here: refusing would reveal it. A refusal for non-convergence does reveal
// that event, a function of the data: treat it as a failure to publish,
// made rare by a generous MaxIter.
//
// A nil src means randx.NewSecure(); a seeded src voids the guarantee.
func TrainDPLinear(X *mat.Dense, y []int, o DPERMOptions, src *randx.Source) (*LinearModel, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if err := checkData(X, y, 2); err != nil {
		return nil, err
	}
	p, err := newDPProblem(X, o)
	if err != nil {
		return nil, err
	}
	return p.train(signs(y, 1), o.Epsilon, orSecure(src))
}

// TrainDPClassifier trains an ε-DP classifier for labels 0..classes−1: for
// two classes one TrainDPLinear model with the whole budget; otherwise one
// model per class (one-vs-rest), each with ε/classes. Replacing one row can
// change every binary problem, so the classifier is ε-DP by sequential
// composition (Dwork & Roth 2014, Thm. 3.16).
func TrainDPClassifier(X *mat.Dense, y []int, classes int, o DPERMOptions, src *randx.Source) (*Classifier, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if err := checkData(X, y, classes); err != nil {
		return nil, err
	}
	p, err := newDPProblem(X, o)
	if err != nil {
		return nil, err
	}
	src = orSecure(src)
	eps := o.Epsilon
	if classes > 2 {
		eps /= float64(classes)
	}
	return trainOneVsRest(y, classes, func(labels []float64, _ int) (*LinearModel, error) {
		return p.train(labels, eps, src)
	})
}

// normSlack is how far above 1 a row norm may be and still count as
// rounding error.
const normSlack = 1e-9

// dpProblem holds the scaled rows of a DP-ERM data set.
type dpProblem struct {
	rows      [][]float64
	rowScale  []float64
	d         int
	featScale float64
	biasValue float64
	o         DPERMOptions
}

func newDPProblem(X *mat.Dense, o DPERMOptions) (*dpProblem, error) {
	_, d := X.Dims()
	p := &dpProblem{rows: rowViews(X), d: d, featScale: rowShrink(d), o: o}
	if o.Bias {
		p.featScale, p.biasValue = rowShrink(d)/math.Sqrt2, 1/math.Sqrt2
	}
	p.rowScale = make([]float64, len(p.rows))
	for i, x := range p.rows {
		norm := floats.Norm(x, 2)
		if norm > 1+normSlack {
			return nil, fmt.Errorf("learn: DP-ERM row %d has L2 norm %.9g > 1 (scale rows onto the unit ball first): %w", i, norm, ErrInvalidData)
		}
		p.rowScale[i] = p.featScale * math.Min(1, 1/norm)
	}
	return p, nil
}

// objectiveBudget returns ε′ and Δ of Algorithm 2, steps 1–2.
func objectiveBudget(eps float64, n int, lambda, c float64) (epsPrime, delta float64) {
	r := c / (float64(n) * lambda)
	epsPrime = eps - math.Log(1+2*r+r*r)
	if epsPrime > 0 {
		return epsPrime, 0
	}
	return eps / 2, c/(float64(n)*math.Expm1(eps/4)) - lambda
}

// erm is the unperturbed objective J for labels ±1.
func (p *dpProblem) erm(labels []float64) *ermProblem {
	return &ermProblem{
		rows: p.rows, y: labels, rowScale: p.rowScale, d: p.d,
		hasBias: p.o.Bias, biasValue: p.biasValue, lambda: p.o.Lambda, loss: p.o.loss(),
	}
}

func (p *dpProblem) train(labels []float64, eps float64, src *randx.Source) (*LinearModel, error) {
	w, _, err := p.fit(labels, eps, src)
	if err != nil {
		return nil, err
	}
	return modelFromWeights(w, p.d, p.o.Bias, p.featScale, p.biasValue), nil
}

// fit returns the released weights, all multiples of plan.Grid, and the
// plan (see TrainDPLinear). The random draws are, in order: b (objective
// perturbation only), then the release noise v.
func (p *dpProblem) fit(labels []float64, eps float64, src *randx.Source) ([]float64, DPERMPlan, error) {
	plan := p.o.plan(len(p.rows), p.d, eps)
	w, err := p.iterate(labels, plan, src)
	if err == nil {
		err = releaseOnGrid(w, plan, src)
	}
	if err != nil {
		return nil, plan, fmt.Errorf("learn: DP-ERM (%v) refuses to publish: its guarantee needs an iterate with ‖∇J‖₂ ≤ τ proven: %w", p.o.Method, err)
	}
	return w, plan, nil
}

// iterate returns the certified iterate w̃ (‖∇J(w̃)‖₂ ≤ τ) of the plan's
// objective, drawing b first for objective perturbation.
func (p *dpProblem) iterate(labels []float64, plan DPERMPlan, src *randx.Source) ([]float64, error) {
	erm := p.erm(labels)
	erm.lambda = plan.StrongConvexity()
	if plan.Method == ObjectivePerturbation {
		erm.linear = gammaNormNoise(plan.Dim, plan.LinearScale, src)
	}
	return minimizeCertified(erm, p.o.MaxIter, plan.GradTol)
}

// gammaNormNoise draws b ∈ ℝ^dim with density ∝ exp(−‖b‖/scale): a uniform
// direction (a normalised Gaussian vector) times a Gamma(dim, scale) norm.
func gammaNormNoise(dim int, scale float64, src *randx.Source) []float64 {
	b := make([]float64, dim)
	var norm float64
	for norm == 0 {
		for j := range b {
			b[j] = src.NormFloat64()
		}
		norm = floats.Norm(b, 2)
	}
	r := distuv.Gamma{Alpha: float64(dim), Beta: 1 / scale, Src: src}.Rand()
	floats.Scale(r/norm, b)
	return b
}
