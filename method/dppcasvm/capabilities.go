package dppcasvm

import (
	"fmt"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/method"
)

// The capabilities a command uses to measure and summarise the model on
// the owner's own rows (package method's interfaces).
var (
	_ method.Classifier = (*Result)(nil)
	_ method.Summarizer = (*Result)(nil)
)

// Classify applies the model to t and returns its predictions and t's
// true classes.
func (r *Result) Classify(t *data.Table) (pred, truth []int, err error) {
	if pred, err = r.Model.Apply(t); err != nil {
		return nil, nil, err
	}
	if truth, _, err = r.Model.Truth(t); err != nil {
		return nil, nil, err
	}
	return pred, truth, nil
}

// Weak is ClassifierWarning.
func (r *Result) Weak(accuracy, majority float64) string {
	return ClassifierWarning(accuracy, majority)
}

// Summary describes the model's shape.
func (r *Result) Summary() []string {
	return []string{fmt.Sprintf("model: k = %d components of d = %d encoded columns, %d class(es) → %d binary model(s)",
		r.Fit.Components.K, len(r.Model.Preprocess.Columns), len(r.Model.Classes), r.Fit.BinaryModels)}
}

// Notes give the time of each stage and the values clamped.
func (r *Result) Notes() []string {
	t := r.Fit.Timing
	lines := []string{fmt.Sprintf("time: %v (second moment %v, eigen %v, projection %v, SVM %v)", r.Elapsed.Round(1e6),
		t.Moment.Round(1e5), t.Eigen.Round(1e5), t.Project.Round(1e5), t.SVM.Round(1e5))}
	if r.Clamped > 0 {
		lines = append(lines, fmt.Sprintf("%d values were clamped to the declared bounds", r.Clamped))
	}
	return lines
}
