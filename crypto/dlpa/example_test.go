package dlpa_test

import (
	"fmt"

	"github.com/dppub/dppub/crypto/dlpa"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/randx"
)

// Three parties each draw four integer discrete-Gaussian shares; their
// combination is one approximately Lap(λ) integer that no single party
// knows.
func Example() {
	nz := dp.NewNoiser(randx.NewSeeded(1)) // seeded: reproducible, INSECURE; use randx.NewSecure()
	const lambda, parties = 1000.0, 3
	var shares []dlpa.Share
	for range parties {
		s, _ := dlpa.DrawShare(nz, lambda, parties)
		shares = append(shares, s)
	}
	fmt.Printf("η̂ = %v\n", dlpa.CombinePlain(shares))
	// Output:
	// η̂ = 1288
}
