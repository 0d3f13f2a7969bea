package roles_test

import (
	"context"
	"fmt"

	"github.com/dppub/dppub/dp"
	protodpsubn3 "github.com/dppub/dppub/method/dpsubn3/roles"
	dpsubn3 "github.com/dppub/dppub/method/dpsubn3/subn3"
	privbayes "github.com/dppub/dppub/method/privbayes/bayesnet"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// Two parties take their turns; the curator samples as many rows as they
// hold together.
func ExampleNewCurator() {
	src := randx.NewSeeded(1) // tests only: seeded randomness is not private
	params := protodpsubn3.Params{Session: "demo", Parties: []string{"a", "b"}, Curator: "curator",
		Cards: []int{2, 2}, Options: dpsubn3.Options{PrivBayes: privbayes.Options{Epsilon: 1}}}
	roles := []protocol.Role{}
	for i, id := range params.Parties {
		rows := make([][]int, 100*(i+1))
		for r := range rows {
			rows[r] = []int{r % 2, r % 2}
		}
		d, _ := privbayes.NewData(params.Cards, rows)
		acct, _ := privacy.NewAccountant(privacy.AccountantOptions{Party: id, Budget: dp.Pure(1)})
		p, _ := protodpsubn3.NewParty(protodpsubn3.PartyOptions{ID: id, Params: params, Data: d, Accountant: acct, Source: src.Child()})
		roles = append(roles, p)
	}
	cur, _ := protodpsubn3.NewCurator(params, src.Child())
	stats, _ := protocol.RunLocal(context.Background(), append(roles, cur)...)
	res, _ := cur.Result()
	fmt.Println(stats.Messages, "messages,", len(res.Rows), "synthetic rows, counts", res.Counts)
	// Output: 4 messages, 300 synthetic rows, counts map[a:100 b:200]
}
