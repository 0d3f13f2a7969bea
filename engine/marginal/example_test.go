package marginal_test

import (
	"context"
	"fmt"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// Two parties hold the columns of the same people; "clinic" demands ten
// times less privacy loss than "bank". Every release is charged to the
// parties whose columns it touches, at the stricter budget.
func Example() {
	schema := data.Schema{Attributes: []data.Attribute{
		{Name: "income", Kind: data.Numeric, Min: 0, Max: 100, Integer: true},
		{Name: "owns-home", Kind: data.Binary, Categories: []string{"no", "yes"}},
		{Name: "smoker", Kind: data.Binary, Categories: []string{"no", "yes"}},
		{Name: "diagnosis", Kind: data.Categorical, Categories: []string{"none", "mild", "severe"}},
	}}
	src := randx.NewSeeded(1) // tests only: a real release uses randx.NewSecure()
	table := &data.Table{Schema: schema}
	for range 2000 {
		income := float64(src.IntN(101))
		smoker := float64(src.IntN(2))
		table.Rows = append(table.Rows, []float64{income, float64(src.IntN(2)), smoker, smoker + float64(src.IntN(2))})
	}
	dom, _ := domain.New(schema, domain.Options{Bins: 8})
	ds, _, _ := dom.Encode(table)
	parties := []marginal.Party{{Name: "bank", Rho: 1, Attrs: []int{0, 1}}, {Name: "clinic", Rho: 0.1, Attrs: []int{2, 3}}}
	var accts []*privacy.Accountant
	for _, p := range parties {
		a, _ := privacy.NewAccountant(privacy.AccountantOptions{Party: p.Name, Budget: dp.Concentrated(p.Rho)})
		accts = append(accts, a)
	}
	m, _ := measurement.NewLocalMeasurer(measurement.LocalOptions{Data: ds, Accountants: accts, Source: src.Child()})
	res, err := marginal.Synthesize(context.Background(), m, marginal.Options{
		Domain: dom, Parties: parties, Records: ds.Len(), Source: src.Child()})
	if err != nil {
		fmt.Println(err)
		return
	}
	synthetic, _ := dom.Decode(res.Data, src.Child())
	fmt.Println("synthetic rows:", synthetic.Len())
	for _, a := range accts {
		fmt.Printf("%s spent ρ = %.3f of %v\n", a.Party(), a.Spent().Rho, a.Budget().Rho)
	}
	// Output:
	// synthetic rows: 2000
	// bank spent ρ = 1.000 of 1
	// clinic spent ρ = 0.100 of 0.1
}
