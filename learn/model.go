package learn

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// LinearModel is a linear decision function x ↦ W·x + B; a positive score
// predicts the positive class.
type LinearModel struct {
	W []float64
	B float64
}

// Score returns W·x + B. It panics if len(x) != len(W).
func (m *LinearModel) Score(x []float64) float64 {
	if len(x) != len(m.W) {
		panic(fmt.Sprintf("learn: Score of a %d-vector with a %d-weight model", len(x), len(m.W)))
	}
	return floats.Dot(m.W, x) + m.B
}

// Prob returns the logistic probability σ(W·x + B) of the positive class.
func (m *LinearModel) Prob(x []float64) float64 { return sigmoid(m.Score(x)) }

func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

// modelFromWeights splits a solver's weight vector (with the bias weight last
// when hasBias) into a LinearModel. Features were multiplied by featScale and
// the constant feature had value biasValue during training.
func modelFromWeights(w []float64, d int, hasBias bool, featScale, biasValue float64) *LinearModel {
	m := &LinearModel{W: make([]float64, d)}
	for j := range d {
		m.W[j] = featScale * w[j]
	}
	if hasBias {
		m.B = biasValue * w[d]
	}
	return m
}

// Classifier predicts one of Classes classes. For two classes it holds a
// single model whose positive side is class 1; otherwise one model per class
// (one-vs-rest) and the highest score wins.
type Classifier struct {
	Classes int
	Models  []*LinearModel
}

// Predict returns the predicted class of x. Ties go to the lower class.
func (c *Classifier) Predict(x []float64) int {
	if c.Classes == 2 && len(c.Models) == 1 {
		if c.Models[0].Score(x) > 0 {
			return 1
		}
		return 0
	}
	best, bestScore := 0, math.Inf(-1)
	for k, m := range c.Models {
		if s := m.Score(x); s > bestScore {
			best, bestScore = k, s
		}
	}
	return best
}

// PredictAll predicts every row of X.
func (c *Classifier) PredictAll(X mat.Matrix) []int {
	n, d := X.Dims()
	pred := make([]int, n)
	if dense, ok := X.(*mat.Dense); ok {
		for i := range n {
			pred[i] = c.Predict(dense.RawRowView(i))
		}
		return pred
	}
	row := make([]float64, d)
	for i := range n {
		mat.Row(row, i, X)
		pred[i] = c.Predict(row)
	}
	return pred
}

// trainOneVsRest builds a Classifier: one model (positive = class 1) for two
// classes, else one model per class trained against the rest.
func trainOneVsRest(y []int, classes int, train func(labels []float64, k int) (*LinearModel, error)) (*Classifier, error) {
	if classes == 2 {
		m, err := train(signs(y, 1), 1)
		if err != nil {
			return nil, err
		}
		return &Classifier{Classes: 2, Models: []*LinearModel{m}}, nil
	}
	c := &Classifier{Classes: classes, Models: make([]*LinearModel, classes)}
	for k := range classes {
		m, err := train(signs(y, k), k)
		if err != nil {
			return nil, fmt.Errorf("learn: class %d vs rest: %w", k, err)
		}
		c.Models[k] = m
	}
	return c, nil
}
