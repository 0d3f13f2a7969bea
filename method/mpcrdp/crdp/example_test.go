package crdp_test

import (
	"fmt"

	mpcrdp "github.com/dppub/dppub/method/mpcrdp/crdp"
)

// The budget of MP-CRDP (ε = ε1 + ε2/2 + ε2/2) for three parties: the sound
// calibration spends half of ε1 on the parties' stability selections.
func ExampleConfig_Split() {
	for _, cal := range []mpcrdp.Calibration{mpcrdp.Sound, mpcrdp.Paper} {
		c := mpcrdp.Config{Epsilon: 1, B: 2, Calibration: cal}
		_ = c.Validate()
		b := c.Split(3)
		fmt.Printf("%s: stability %.4f per party, redundancy %.2f, selection %.2f, release %.2f\n",
			cal, b.StabilityPerParty, b.Pairs, b.Selection, b.Release)
	}
	// Output:
	// sound: stability 0.0833 per party, redundancy 0.25, selection 0.25, release 0.25
	// paper: stability 0.0000 per party, redundancy 0.50, selection 0.25, release 0.25
}
