package learn

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
)

// ErrNotConverged is wrapped when an optimiser stops far from an optimum.
var ErrNotConverged = errors.New("optimiser did not converge")

// marginLoss is a convex, differentiable loss of the margin z = y·(w·x).
type marginLoss interface {
	value(z float64) float64
	deriv(z float64) float64
}

type logisticLoss struct{}

// value is log(1 + e^{−z}), computed without overflow.
func (logisticLoss) value(z float64) float64 {
	if z > 0 {
		return math.Log1p(math.Exp(-z))
	}
	return -z + math.Log1p(math.Exp(z))
}

// deriv is −1/(1 + e^{z}) = −σ(−z).
func (logisticLoss) deriv(z float64) float64 { return -sigmoid(-z) }

type huberHingeLoss struct{ h float64 }

func (l huberHingeLoss) value(z float64) float64 { return HuberHingeLoss(z, l.h) }
func (l huberHingeLoss) deriv(z float64) float64 { return HuberHingeDeriv(z, l.h) }

// ermProblem is the smooth objective
//
//	J(w) = (1/n) Σᵢ ℓ(yᵢ w·x̃ᵢ) + (λ/2)‖w‖² + (1/n) bᵀw
//
// where x̃ᵢ = (sᵢ xᵢ, biasValue) (the last coordinate only when hasBias) and
// b is an optional linear term (objective perturbation).
type ermProblem struct {
	rows      [][]float64
	y         []float64
	rowScale  []float64 // sᵢ; nil means 1
	d         int
	hasBias   bool
	biasValue float64
	lambda    float64
	linear    []float64 // b, nil for none
	loss      marginLoss

	// The last evaluation.
	lastGrad []float64
	lastF    float64
}

func (p *ermProblem) dim() int {
	if p.hasBias {
		return p.d + 1
	}
	return p.d
}

// eval computes J(w) into lastF and its gradient into lastGrad in one pass
// over the data.
func (p *ermProblem) eval(w []float64) {
	if len(p.lastGrad) != len(w) {
		p.lastGrad = make([]float64, len(w))
	}
	grad := p.lastGrad
	for j := range grad {
		grad[j] = 0
	}
	wx, gx := w[:p.d], grad[:p.d]
	n := float64(len(p.rows))
	var f float64
	for i, x := range p.rows {
		s := 1.0
		if p.rowScale != nil {
			s = p.rowScale[i]
		}
		z := s * floats.Dot(wx, x)
		if p.hasBias {
			z += w[p.d] * p.biasValue
		}
		yi := p.y[i]
		f += p.loss.value(yi * z)
		if c := p.loss.deriv(yi*z) * yi; c != 0 {
			floats.AddScaled(gx, c*s, x)
			if p.hasBias {
				grad[p.d] += c * p.biasValue
			}
		}
	}
	f /= n
	floats.Scale(1/n, grad)
	f += 0.5 * p.lambda * floats.Dot(w, w)
	floats.AddScaled(grad, p.lambda, w)
	if p.linear != nil {
		f += floats.Dot(p.linear, w) / n
		floats.AddScaled(grad, 1/n, p.linear)
	}
	p.lastF = f
}

// minimize runs L-BFGS from w = 0 and returns the minimiser. Reaching
// maxIter is not an error (the last iterate is returned, as LIBLINEAR
// does); neither is a line search that stalls once the gradient is small,
// the floating-point floor near the optimum.
func (p *ermProblem) minimize(maxIter int, gradTol float64) ([]float64, error) {
	fg := func(w, grad []float64) float64 {
		p.eval(w)
		copy(grad, p.lastGrad)
		return p.lastF
	}
	res := minimizeLBFGS(fg, make([]float64, p.dim()), maxIter, gradTol)
	for _, v := range res.x {
		if !isFinite(v) {
			return nil, fmt.Errorf("learn: L-BFGS diverged (weight %v): %w", v, ErrNotConverged)
		}
	}
	if res.stalled && res.gradInf > math.Sqrt(gradTol) {
		return nil, fmt.Errorf("learn: L-BFGS stalled after %d iterations with gradient max-norm %.3g > %.3g: %w",
			res.iters, res.gradInf, math.Sqrt(gradTol), ErrNotConverged)
	}
	return res.x, nil
}
