package learn

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// LogRegOptions configure TrainLogReg, which minimises
//
//	(1/n) Σᵢ log(1 + exp(−yᵢ w·x̃ᵢ)) + (λ/2)‖w‖²
//
// with yᵢ = ±1. Start from DefaultLogRegOptions: the zero value is invalid.
type LogRegOptions struct {
	Lambda  float64 // L2 penalty on the mean loss, ≥ 0 (0 may diverge on separable data)
	Bias    bool    // append a constant feature 1 (its weight is penalised too)
	MaxIter int     // maximum L-BFGS iterations, > 0
	GradTol float64 // stop when the gradient's max-norm is ≤ GradTol, > 0
}

// DefaultLogRegOptions returns λ = 1e-5, bias on, 1000 iterations and a
// gradient tolerance of 1e-6. λ = 1e-5 suits both a few hundred rows
// (WDBC) and tens of thousands (Adult); LambdaForC gives LIBLINEAR's
// scaling instead.
func DefaultLogRegOptions() LogRegOptions {
	return LogRegOptions{Lambda: 1e-5, Bias: true, MaxIter: 1000, GradTol: 1e-6}
}

// Validate reports the first invalid field.
func (o LogRegOptions) Validate() error {
	switch {
	case !(o.Lambda >= 0) || math.IsInf(o.Lambda, 1):
		return fmt.Errorf("learn: logistic regression Lambda = %v must be non-negative and finite: %w", o.Lambda, ErrInvalidOptions)
	case o.MaxIter <= 0:
		return fmt.Errorf("learn: logistic regression MaxIter = %d must be positive: %w", o.MaxIter, ErrInvalidOptions)
	case !(o.GradTol > 0) || math.IsInf(o.GradTol, 1):
		return fmt.Errorf("learn: logistic regression GradTol = %v must be positive and finite: %w", o.GradTol, ErrInvalidOptions)
	}
	return nil
}

// TrainLogReg fits L2-regularised logistic regression with L-BFGS for labels
// 0..classes−1: one model (positive class 1) for two classes, one-vs-rest
// otherwise. As in TrainSVM, only a binary problem must contain both classes.
func TrainLogReg(X *mat.Dense, y []int, classes int, o LogRegOptions) (*Classifier, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if err := checkTraining(X, y, classes); err != nil {
		return nil, err
	}
	rows := rowViews(X)
	_, d := X.Dims()
	return trainOneVsRest(y, classes, func(labels []float64, _ int) (*LinearModel, error) {
		p := &ermProblem{rows: rows, y: labels, d: d, hasBias: o.Bias, biasValue: 1, lambda: o.Lambda, loss: logisticLoss{}}
		w, err := p.minimize(o.MaxIter, o.GradTol)
		if err != nil {
			return nil, err
		}
		return modelFromWeights(w, d, o.Bias, 1, 1), nil
	})
}
