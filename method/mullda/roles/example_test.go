package roles_test

import (
	"context"
	"fmt"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/method/mullda/lda"
	mullda "github.com/dppub/dppub/method/mullda/roles"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// Two owners with correlated noise: the dealer deals shares, each owner
// sends its noisy class sums and Σxxᵀ, and the publisher publishes the
// Fisher direction and synthetic labelled projections.
func Example() {
	src := randx.NewSeeded(1) // deterministic for the example; use randx.NewSecure()
	params := mullda.Params{Session: "example", Owners: []string{"alice", "bob"}, Publisher: "publisher", Dealer: "dealer",
		Plan: lda.PlanOptions{Calibration: lda.Sound, Epsilon: 100, Delta: 1e-6, P: 2, Classes: 2, Owners: 2}}
	// Class 1 sits further along the first axis than class 0.
	data := map[string]*mat.Dense{
		"alice": mat.NewDense(4, 2, []float64{0.1, 0.5, 0.2, 0.4, 0.7, 0.5, 0.8, 0.4}),
		"bob":   mat.NewDense(4, 2, []float64{0.2, 0.6, 0.1, 0.3, 0.8, 0.6, 0.7, 0.3}),
	}
	labels := []int{0, 0, 1, 1}
	var roles []protocol.Role
	for _, id := range params.Owners {
		acct, _ := privacy.NewAccountant(privacy.AccountantOptions{Party: id, Budget: dp.Approx(100, 1e-6)})
		o, err := mullda.NewOwner(mullda.OwnerOptions{ID: id, Params: params, Data: data[id], Labels: labels, Accountant: acct, Source: src.Child()})
		if err != nil {
			fmt.Println(err)
			return
		}
		roles = append(roles, o)
	}
	dealer, _ := mullda.NewNoiseDealer(mullda.DealerOptions{Params: params, Source: src.Child()})
	pub, _ := mullda.NewPublisher(mullda.PublisherOptions{Params: params, Source: src.Child()})
	stats, err := protocol.RunLocal(context.Background(), append(roles, dealer, pub)...)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, _ := pub.Result()
	fmt.Printf("%d messages; direction (%.1f, %.1f); %d synthetic rows\n",
		stats.Messages, res.Directions.At(0, 0), res.Directions.At(1, 0), len(res.Labels))
	// Output:
	// 11 messages; direction (0.7, 0.7); 7 synthetic rows
}
