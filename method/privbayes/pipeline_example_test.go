package privbayes_test

import (
	"context"
	"fmt"
	bnspec "github.com/dppub/dppub/method/privbayes"

	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/randx"
)

// PrivBayes on NLTCS at ε = 1: the budget is split 0.3 / 0.7 between the
// network and its noisy marginals, and the synthetic table is as large as
// the input.
func ExamplePublish() {
	tab, _ := datasets.Load("nltcs")
	res, err := bnspec.Publish(context.Background(), bnspec.Options{Table: tab,
		BayesNetOptions: bnspec.BayesNetOptions{Settings: bnspec.Settings{Epsilon: 1}, Source: randx.NewSeeded(1)}}) // seeded: tests only
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range res.Report.Parties[0].Charges {
		fmt.Printf("%s → %v\n", c.Spec.Mechanism, c.Spec.Guarantee)
	}
	fmt.Println(res.Synthetic.Len(), "rows,", res.Synthetic.Validate() == nil)
	// Output:
	// permute-and-flip ×15 → ε=0.3
	// laplace → ε=0.7
	// 21574 rows, true
}
