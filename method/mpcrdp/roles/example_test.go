package roles_test

import (
	"fmt"

	"github.com/dppub/dppub/data"
	protompcrdp "github.com/dppub/dppub/method/mpcrdp/roles"
)

// The server joins the parties' columns on their IDs; an ID that one party
// lacks is left out.
func ExampleJoin() {
	num := func(name string) data.Attribute {
		return data.Attribute{Name: name, Kind: data.Numeric, Min: 0, Max: 100}
	}
	a := &data.Table{Schema: data.Schema{ID: "id", Attributes: []data.Attribute{num("age")}},
		IDs: []string{"ann", "bob", "cy"}, Rows: [][]float64{{31}, {45}, {27}}}
	b := &data.Table{Schema: data.Schema{ID: "id", Attributes: []data.Attribute{num("balance")}},
		IDs: []string{"cy", "ann"}, Rows: [][]float64{{12}, {80}}}
	j, dropped, _ := protompcrdp.Join([]*data.Table{a, b})
	fmt.Println(j.Schema.Names(), j.IDs, j.Rows, dropped)
	// Output: [age balance] [ann cy] [[31 80] [27 12]] 1
}
