package eval

import (
	"fmt"
	"slices"

	"github.com/dppub/dppub/data"
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
	Xtr, ytr, classes, err := t.xy(enc, train)
	if err != nil {
		return 0, err
	}
	Xte, yte, _, err := t.xy(enc, test)
	if err != nil {
		return 0, err
	}
	if only, ok := singleClass(ytr); ok {
		pred := make([]int, len(yte))
		for i := range pred {
			pred[i] = only
		}
		return learn.Accuracy(pred, yte), nil
	}
	clf, err := learn.TrainSVM(Xtr, ytr, classes, learn.DefaultSVMOptions(), src)
	if err != nil {
		return 0, fmt.Errorf("eval: task %s: %w", t.Name, err)
	}
	return learn.Accuracy(clf.PredictAll(Xte), yte), nil
}

func (t Task) xy(enc *data.Encoder, tab *data.Table) (*mat.Dense, []int, int, error) {
	X, _, err := enc.Encode(tab)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("eval: task %s: %w", t.Name, err)
	}
	y, classes, err := t.Labels(tab)
	return X, y, classes, err
}

func singleClass(y []int) (int, bool) {
	for _, c := range y[1:] {
		if c != y[0] {
			return 0, false
		}
	}
	return y[0], true
}
