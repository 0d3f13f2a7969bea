package eval

import (
	"fmt"
	"slices"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/learn"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// Task is a classification task on a dataset: predict Label from the other
// attributes (minus Drop). With Positive set the label is binary: 1 when
// the label attribute's category is in Positive.
type Task struct {
	Dataset  string
	Name     string
	Label    string
	Positive []string
	Drop     []string
}

// The papers' tasks (PPCA-DP-MH §5, LDA-DP §5).
var (
	NLTCSOutside   = Task{Dataset: "nltcs", Name: "outside", Label: "outside"}
	NLTCSMoney     = Task{Dataset: "nltcs", Name: "money", Label: "money"}
	NLTCSBathing   = Task{Dataset: "nltcs", Name: "bathing", Label: "bathing"}
	NLTCSTraveling = Task{Dataset: "nltcs", Name: "traveling", Label: "traveling"}
	AdultSalary    = Task{Dataset: "adult", Name: "salary", Label: "income"}
	// AdultEducation predicts a post-secondary degree. education-num is a
	// relabelling of education, so it is dropped from the features.
	AdultEducation = Task{Dataset: "adult", Name: "education", Label: "education",
		Positive: []string{"Bachelors", "Masters", "Doctorate", "Prof-school", "Assoc-acdm", "Assoc-voc"},
		Drop:     []string{"education-num"}}
)

// Labels returns the class of every row and the number of classes.
func (t Task) Labels(tab *data.Table) ([]int, int, error) {
	j, err := tab.Schema.Index(t.Label)
	if err != nil {
		return nil, 0, fmt.Errorf("eval: task %s: %w", t.Name, err)
	}
	a := tab.Schema.Attributes[j]
	if a.Kind == data.Numeric {
		return nil, 0, fmt.Errorf("eval: task %s: label %q is numeric", t.Name, t.Label)
	}
	y := make([]int, tab.Len())
	for i, row := range tab.Rows {
		c := int(row[j])
		if t.Positive != nil {
			c = 0
			if slices.Contains(t.Positive, a.Categories[int(row[j])]) {
				c = 1
			}
		}
		y[i] = c
	}
	if t.Positive != nil {
		return y, 2, nil
	}
	return y, len(a.Categories), nil
}

// Encoder encodes the features of the task (all attributes but the label
// and Drop) into [0,1].
func (t Task) Encoder(s data.Schema) (*data.Encoder, error) {
	return data.NewEncoder(s, data.EncoderOptions{Exclude: append([]string{t.Label}, t.Drop...)})
}

// SVMAccuracy trains a linear SVM on train and returns its accuracy on test.
// If train holds a single class, the classifier predicts that class.
func SVMAccuracy(t Task, train, test *data.Table, src *randx.Source) (float64, error) {
	enc, err := t.Encoder(test.Schema)
	if err != nil {
		return 0, err
	}
	Xtr, ytr, classes, err := t.XY(enc, train)
	if err != nil {
		return 0, err
	}
	Xte, yte, _, err := t.XY(enc, test)
	if err != nil {
		return 0, err
	}
	pred, err := SVMPredict(Xtr, ytr, classes, Xte, src)
	if err != nil {
		return 0, fmt.Errorf("eval: task %s: %w", t.Name, err)
	}
	return learn.Accuracy(pred, yte), nil
}

// SVMPredict trains a linear SVM on (X, y) and predicts the classes of
// the rows of Xte; when y holds a single class, it predicts that class.
func SVMPredict(X *mat.Dense, y []int, classes int, Xte *mat.Dense, src *randx.Source) ([]int, error) {
	if only, ok := singleClass(y); ok {
		n, _ := Xte.Dims()
		pred := make([]int, n)
		for i := range pred {
			pred[i] = only
		}
		return pred, nil
	}
	clf, err := learn.TrainSVM(X, y, classes, learn.DefaultSVMOptions(), src)
	if err != nil {
		return nil, err
	}
	return clf.PredictAll(Xte), nil
}

// XY encodes the task's features of tab with enc and returns them with
// the rows' classes and the number of classes.
func (t Task) XY(enc *data.Encoder, tab *data.Table) (*mat.Dense, []int, int, error) {
	X, _, err := enc.Encode(tab)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("eval: task %s: %w", t.Name, err)
	}
	y, classes, err := t.Labels(tab)
	return X, y, classes, err
}

// Split80 is the papers' 80/20 split of the task's dataset for one
// repetition.
func Split80(t Task, src *randx.Source) (train, test *data.Table, err error) {
	tab, err := datasets.Load(t.Dataset)
	if err != nil {
		return nil, nil, err
	}
	return data.TrainTestSplit(tab, 0.8, src)
}

// First returns v's first value, or def when v is empty: a figure's
// single ε (or owners) overridden by the first of a grid.
func First[T any](v []T, def T) T {
	if len(v) > 0 {
		return v[0]
	}
	return def
}

func singleClass(y []int) (int, bool) {
	for _, c := range y[1:] {
		if c != y[0] {
			return 0, false
		}
	}
	return y[0], true
}

// PaperEpsilons is the ε grid of PPCA-DP-MH's Fig. 3; every ε sweep of
// the PPCA-DP-MH and LDA-DP figures and of their comparisons uses it (the
// LDA-DP paper does not print its own).
var PaperEpsilons = []float64{0.05, 0.1, 0.2, 0.4, 0.8, 1.6}

// Repetitions fills a figure's zero repetitions with the paper's count
// def and a nil source with a secure one; fewer than one repetition is a
// UsageError.
func Repetitions(reps *int, def int, src **randx.Source) error {
	if *reps == 0 {
		*reps = def
	}
	if *reps < 1 {
		return Usagef("eval: reps = %d, need at least 1", *reps)
	}
	if *src == nil {
		*src = randx.NewSecure()
	}
	return nil
}

// NoPrivacy is the papers' "No Privacy" reference: per repetition, a
// linear SVM trained on the real training rows of split (drawn with the
// repetition's own source, a child of src) and tested on its test rows.
// It returns the reps accuracies.
func NoPrivacy(t Task, reps int, src *randx.Source, split func(Task, *randx.Source) (train, test *data.Table, err error)) ([]float64, error) {
	accs := make([]float64, 0, reps)
	for range reps {
		rep := src.Child()
		train, test, err := split(t, rep)
		if err != nil {
			return nil, err
		}
		acc, err := SVMAccuracy(t, train, test, rep)
		if err != nil {
			return nil, err
		}
		accs = append(accs, acc)
	}
	return accs, nil
}
