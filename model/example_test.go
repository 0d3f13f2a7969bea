package model_test

import (
	"fmt"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/learn"
	"github.com/dppub/dppub/model"
)

// A one-feature model: patients over 60 (encoded age > 0.6) are at risk.
func Example() {
	schema := data.Schema{Attributes: []data.Attribute{
		{Name: "age", Kind: data.Numeric, Min: 0, Max: 100},
		{Name: "at_risk", Kind: data.Binary, Categories: []string{"no", "yes"}},
	}}
	m, err := model.New(model.Options{Method: "dppca-svm", Schema: schema, Label: "at_risk",
		Classifier: &learn.Classifier{Classes: 2, Models: []*learn.LinearModel{{W: []float64{10}, B: -6}}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	tab := &data.Table{Schema: schema, Rows: [][]float64{{35, 0}, {72, 1}, {64, 0}}}
	pred, _ := m.Apply(tab)
	truth, _, _ := m.Truth(tab)
	for i, p := range pred {
		fmt.Printf("age %v: predicted %s, true %s\n", tab.Rows[i][0], m.ClassName(p), m.ClassName(truth[i]))
	}
	// Output:
	// age 35: predicted no, true no
	// age 72: predicted yes, true yes
	// age 64: predicted yes, true no
}
