package dlpa_test

import (
	"fmt"

	"github.com/dppub/dppub/crypto/dlpa"
	"github.com/dppub/dppub/randx"
)

// Three parties each draw four Gaussian shares; their combination is one
// Lap(λ) draw that no single party knows.
func Example() {
	src := randx.NewSeeded(1) // seeded: reproducible, INSECURE; use randx.NewSecure()
	const lambda, parties = 2.0, 3
	var shares []dlpa.Share
	for range parties {
		s, _ := dlpa.DrawShare(src, lambda, parties)
		shares = append(shares, s)
	}
	eta := dlpa.CombinePlain(shares)
	fixed, _ := dlpa.CombineQuantized(shares, 32)
	fmt.Printf("η = %.6f, fixed point = %.6f\n", eta, fixed)
	// Output:
	// η = -0.645161, fixed point = -0.645161
}
