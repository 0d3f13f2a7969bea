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
	switch l {
	case Logistic:
		return "logistic"
	case HuberHinge:
		return "huber-hinge"
	}
	return fmt.Sprintf("ERMLoss(%d)", int(l))
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
	switch p {
	case OutputPerturbation:
		return "output-perturbation"
	case ObjectivePerturbation:
		return "objective-perturbation"
	}
	return fmt.Sprintf("Perturbation(%d)", int(p))
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
// Start from DefaultDPERMOptions: the zero value is invalid.
type DPERMOptions struct {
	Epsilon float64      // privacy budget of one binary model, > 0
	Lambda  float64      // regulariser λ on the mean loss, > 0
	Loss    ERMLoss      // Logistic or HuberHinge
	Huber   float64      // smoothing h of HuberHinge, > 0
	Method  Perturbation // OutputPerturbation or ObjectivePerturbation
	Bias    bool         // learn a bias through a scaled constant feature
	MaxIter int          // maximum L-BFGS iterations, > 0
	GradTol float64      // L-BFGS gradient max-norm tolerance, > 0
}

// DefaultDPERMOptions returns objective perturbation of logistic loss with
// λ = 1e-3, h = 0.5 (used if the loss is switched to HuberHinge), bias on,
// 1000 iterations and gradient tolerance 1e-9.
func DefaultDPERMOptions(epsilon float64) DPERMOptions {
	return DPERMOptions{
		Epsilon: epsilon, Lambda: 1e-3, Loss: Logistic, Huber: 0.5,
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
	case !(o.Lambda > 0) || math.IsInf(o.Lambda, 1):
		return bad("Lambda = %v must be positive and finite (strong convexity is what makes the output private)", o.Lambda)
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
// Guarantee: pure ε-DP (ε = o.Epsilon) for datasets differing in one
// replaced row (features and label), by Chaudhuri, Monteleoni & Sarwate,
// "Differentially Private Empirical Risk Minimization", JMLR 12 (2011):
//
//   - OutputPerturbation, their Algorithm 1 and Theorem 6: w = w* + b with
//     w* = argmin J and density ν(b) ∝ exp(−(nλε/2)‖b‖), i.e. J's minimiser
//     has L2 sensitivity 2/(nλ) since ‖x‖ ≤ 1, |ℓ′| ≤ 1 and λ‖w‖²/2 is
//     λ-strongly convex.
//   - ObjectivePerturbation, their Algorithm 2 and Theorem 9 (c bounds ℓ″:
//     1/4 logistic, 1/(2h) Huber hinge): ε′ = ε − log(1 + 2c/(nλ) +
//     c²/(n²λ²)); if ε′ ≤ 0, Δ = c/(n(e^{ε/4} − 1)) − λ and ε′ = ε/2, else
//     Δ = 0; draw b with density ∝ exp(−(ε′/2)‖b‖) and return
//     argmin J(w) + (Δ/2)‖w‖² + bᵀw/n.
//
// A draw with density ∝ exp(−β‖b‖) in dimension d has ‖b‖ ~ Gamma(d, 1/β)
// and a uniform direction. Both theorems assume the exact minimiser; L-BFGS
// reaches it to o.GradTol. A row whose norm exceeds 1 by at most 1e-9
// (floating-point rounding) is scaled onto the unit sphere, a per-row map
// that keeps the guarantee; a larger norm is an error. A class without
// examples is not an error here: refusing would reveal it.
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
	p := &dpProblem{rows: rowViews(X), d: d, featScale: 1, o: o}
	if o.Bias {
		p.featScale, p.biasValue = 1/math.Sqrt2, 1/math.Sqrt2
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
	o, n := p.o, len(p.rows)
	erm := p.erm(labels)
	var w []float64
	var err error
	switch o.Method {
	case OutputPerturbation:
		if w, err = erm.minimize(o.MaxIter, o.GradTol); err != nil {
			return nil, err
		}
		floats.Add(w, gammaNormNoise(erm.dim(), 2/(float64(n)*o.Lambda*eps), src))
	case ObjectivePerturbation:
		epsPrime, delta := objectiveBudget(eps, n, o.Lambda, o.curvature())
		erm.lambda += delta
		erm.linear = gammaNormNoise(erm.dim(), 2/epsPrime, src)
		if w, err = erm.minimize(o.MaxIter, o.GradTol); err != nil {
			return nil, err
		}
	default:
		panic("learn: unvalidated perturbation method")
	}
	return modelFromWeights(w, p.d, o.Bias, p.featScale, p.biasValue), nil
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
