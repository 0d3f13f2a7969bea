package quality

import (
	"fmt"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/learn"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// Classifier is train-on-synthetic-test-on-real: logistic regression
// predicting the label from the other attributes (encoded as the
// mechanisms encode them), trained once on the synthetic rows and once on
// 80% of the real rows, both tested on the other 20% of the real rows.
type Classifier struct {
	Label    string `json:"label"`
	Model    string `json:"model"`
	TestRows int    `json:"test_rows"`
	// Majority is the accuracy of always predicting the test rows' most
	// frequent class: the floor any useful model must beat.
	Majority      float64 `json:"majority_rate"`
	RealAccuracy  float64 `json:"train_real_accuracy"`
	SynthAccuracy float64 `json:"train_synthetic_accuracy"`
}

// testShare is the share of real rows held out for testing.
const testShare = 0.2

func checkLabel(s data.Schema, label string) error {
	a, err := s.Attribute(label)
	if err != nil {
		return fmt.Errorf("quality: label: %w", err)
	}
	if a.Kind == data.Numeric {
		return fmt.Errorf("quality: label %q is numeric; a label must be categorical or binary", label)
	}
	return nil
}

func compareClassifier(real, synth *data.Table, label string, src *randx.Source) (*Classifier, error) {
	a, _ := real.Schema.Attribute(label) // checked by checkLabel
	if real.Len() < 10 {
		return nil, fmt.Errorf("quality: %d real rows are too few to hold out a test set", real.Len())
	}
	enc, err := data.NewEncoder(real.Schema, data.EncoderOptions{Exclude: []string{label}})
	if err != nil {
		return nil, fmt.Errorf("quality: %w", err)
	}
	perm := src.Perm(real.Len())
	nTest := max(1, int(testShare*float64(real.Len())))
	test, train := real.Subset(perm[:nTest]), real.Subset(perm[nTest:])
	Xt, yt, err := xy(enc, test, label)
	if err != nil {
		return nil, err
	}
	c := &Classifier{Label: label, Model: "logistic regression (L2, λ = 1e-5)", TestRows: nTest, Majority: majority(yt, len(a.Categories))}
	if c.RealAccuracy, err = trainTest(enc, train, label, len(a.Categories), Xt, yt); err != nil {
		return nil, err
	}
	if c.SynthAccuracy, err = trainTest(enc, synth, label, len(a.Categories), Xt, yt); err != nil {
		return nil, err
	}
	return c, nil
}

func xy(enc *data.Encoder, t *data.Table, label string) (*mat.Dense, []int, error) {
	X, _, err := enc.Encode(t)
	if err != nil {
		return nil, nil, fmt.Errorf("quality: %w", err)
	}
	col, err := t.Column(label)
	if err != nil {
		return nil, nil, fmt.Errorf("quality: %w", err)
	}
	y := make([]int, len(col))
	for i, v := range col {
		y[i] = int(v)
	}
	return X, y, nil
}

// trainTest trains on t and returns the accuracy on (Xt, yt). A training
// set holding a single class predicts that class.
func trainTest(enc *data.Encoder, t *data.Table, label string, classes int, Xt *mat.Dense, yt []int) (float64, error) {
	X, y, err := xy(enc, t, label)
	if err != nil {
		return 0, err
	}
	if only, single := singleClass(y); single {
		pred := make([]int, len(yt))
		for i := range pred {
			pred[i] = only
		}
		return learn.Accuracy(pred, yt), nil
	}
	model, err := learn.TrainLogReg(X, y, classes, learn.DefaultLogRegOptions())
	if err != nil {
		return 0, fmt.Errorf("quality: classifier: %w", err)
	}
	return learn.Accuracy(model.PredictAll(Xt), yt), nil
}

func singleClass(y []int) (int, bool) {
	for _, v := range y {
		if v != y[0] {
			return 0, false
		}
	}
	return y[0], true
}

func majority(y []int, classes int) float64 {
	counts := make([]int, classes)
	for _, v := range y {
		counts[v]++
	}
	best := 0
	for _, c := range counts {
		best = max(best, c)
	}
	return float64(best) / float64(len(y))
}
