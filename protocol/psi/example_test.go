package psi_test

import (
	"context"
	"fmt"

	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/protocol/psi"
	"github.com/dppub/dppub/randx"
)

// Three parties line up their common records without showing each other
// their IDs.
func ExampleNewParty() {
	src := randx.NewSeeded(1) // tests only: real keys need randx.NewSecure()
	params := psi.Params{Session: "demo", Parties: []string{"bank", "clinic", "utility"}}
	ids := [][]string{
		{"ann", "bob", "cid", "dee"},
		{"dee", "eve", "ann", "bob"},
		{"bob", "fay", "dee"},
	}
	var parties []*psi.Party
	var roles []protocol.Role
	for i, name := range params.Parties {
		p, _ := psi.NewParty(psi.PartyOptions{ID: name, Params: params, IDs: ids[i], Source: src.Child()})
		parties, roles = append(parties, p), append(roles, p)
	}
	stats, _ := protocol.RunLocal(context.Background(), roles...)
	fmt.Println(stats.Messages, "messages")
	var first []string
	for i, p := range parties {
		res, _ := p.Result()
		var common []string
		for _, r := range res.Rows {
			common = append(common, ids[i][r])
		}
		if i == 0 {
			first = common
		}
		fmt.Println(p.ID(), "holds", len(common), "common records, in the same order as the bank:", fmt.Sprint(common) == fmt.Sprint(first))
	}
	// Output:
	// 12 messages
	// bank holds 2 common records, in the same order as the bank: true
	// clinic holds 2 common records, in the same order as the bank: true
	// utility holds 2 common records, in the same order as the bank: true
}
