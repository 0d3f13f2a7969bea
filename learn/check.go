package learn

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// ErrInvalidData is wrapped by every error about the training data itself.
var ErrInvalidData = errors.New("invalid training data")

// ErrInvalidOptions is wrapped by every error about options.
var ErrInvalidOptions = errors.New("invalid options")

// checkData validates a training set: shape, finite features and labels in
// 0..classes−1.
func checkData(X *mat.Dense, y []int, classes int) error {
	if X == nil {
		return fmt.Errorf("learn: X is nil: %w", ErrInvalidData)
	}
	if classes < 2 {
		return fmt.Errorf("learn: classes = %d, need at least 2: %w", classes, ErrInvalidData)
	}
	n, d := X.Dims()
	if n == 0 || d == 0 {
		return fmt.Errorf("learn: X is %d×%d, need at least one row and one column: %w", n, d, ErrInvalidData)
	}
	if n != len(y) {
		return fmt.Errorf("learn: X has %d rows but y has %d labels: %w", n, len(y), ErrInvalidData)
	}
	for i, c := range y {
		if c < 0 || c >= classes {
			return fmt.Errorf("learn: label y[%d] = %d outside 0..%d: %w", i, c, classes-1, ErrInvalidData)
		}
	}
	for i := range n {
		for j, v := range X.RawRowView(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("learn: X[%d][%d] = %v is not finite: %w", i, j, v, ErrInvalidData)
			}
		}
	}
	return nil
}

// checkTraining checks a training set for a non-private learner: the
// data, and in a binary problem both classes (one-vs-rest allows a class
// without examples).
func checkTraining(X *mat.Dense, y []int, classes int) error {
	if err := checkData(X, y, classes); err != nil {
		return err
	}
	if classes == 2 {
		return checkBothClasses(y)
	}
	return nil
}

// checkBothClasses rejects a binary problem in which one class is absent.
func checkBothClasses(y []int) error {
	var count [2]int
	for _, c := range y {
		count[c]++
	}
	for c, k := range count {
		if k == 0 {
			return fmt.Errorf("learn: binary problem has no examples of class %d: %w", c, ErrInvalidData)
		}
	}
	return nil
}

// signs maps labels to ±1: +1 for class positive, −1 otherwise.
func signs(y []int, positive int) []float64 {
	s := make([]float64, len(y))
	for i, c := range y {
		if c == positive {
			s[i] = 1
		} else {
			s[i] = -1
		}
	}
	return s
}

// rowViews returns the rows of X as slices sharing its storage, so inner
// loops index plain slices.
func rowViews(X *mat.Dense) [][]float64 {
	n, _ := X.Dims()
	rows := make([][]float64, n)
	for i := range rows {
		rows[i] = X.RawRowView(i)
	}
	return rows
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
