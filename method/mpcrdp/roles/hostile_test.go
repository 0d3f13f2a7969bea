package roles

import (
	"strings"
	"testing"

	"github.com/dppub/dppub/dp"
	mpcrdp "github.com/dppub/dppub/method/mpcrdp/crdp"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
)

// A hostile server's charge requests, built from the real message type: a
// party pays only the steps of its own session's configuration, in order,
// each at the ε the public budget split gives it. The old code spent
// whatever a request carried: 10⁻⁹ for a step the server then runs at the
// full ε (the party's ledger understating the release), three times a
// step's ε, a step the pipeline does not have, a step again or out of
// order. (An (ε, δ) charge was refused by the pure-DP accountant already;
// it is now refused with the steps, by name.)
func TestHostileChargeRequestsAreRefused(t *testing.T) {
	c := mpcrdp.Config{Epsilon: 2, B: 4, Utility: mpcrdp.U1, Release: mpcrdp.SVM, Notion: mpcrdp.Standard}
	valid := c
	if err := valid.Validate(); err != nil {
		t.Fatal(err)
	}
	split := valid.Split(3)
	charge := func(g dp.Guarantee) []privacy.Charge {
		return []privacy.Charge{{Purpose: "step", Spec: dp.Spec{Mechanism: "laplace", Guarantee: g}}}
	}
	stability := "stability selection of party-1"
	for _, tc := range []struct {
		name string
		// paid are requests the party approves first (honest ones).
		paid []ChargeRequest
		m    ChargeRequest
		want string
	}{
		{"under-charged step", nil, ChargeRequest{Step: 0, Name: stability, Charges: charge(dp.Pure(1e-9))}, "gives it ε = "},
		{"over-charged step", nil, ChargeRequest{Step: 0, Name: stability, Charges: charge(dp.Pure(3 * split.StabilityPerParty))}, "gives it ε = "},
		{"unknown step", nil, ChargeRequest{Step: 0, Name: "bonus release", Charges: charge(dp.Pure(split.Release))}, "not a step of this session"},
		{"approximate DP", nil, ChargeRequest{Step: 0, Name: stability, Charges: charge(dp.Approx(split.StabilityPerParty, 1e-6))}, "not pure ε-DP"},
		{"step repeated", []ChargeRequest{{Step: 0, Name: stability, Charges: charge(dp.Pure(split.StabilityPerParty))}},
			ChargeRequest{Step: 1, Name: stability, Charges: charge(dp.Pure(split.StabilityPerParty))}, "not a step of this session still to come"},
		{"steps reordered", []ChargeRequest{{Step: 0, Name: "release", Charges: charge(dp.Pure(split.Release))}},
			ChargeRequest{Step: 1, Name: "redundancy", Charges: charge(dp.Pure(split.Pairs))}, "not a step of this session still to come"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parties, _, accts := session(t, c, 2, 2)
			p := parties[0]
			send := func(m ChargeRequest) error {
				e, err := protocol.Seal("s", "server", p.ID(), m)
				if err != nil {
					t.Fatal(err)
				}
				_, err = p.Handle(e)
				return err
			}
			for _, m := range tc.paid {
				if err := send(m); err != nil {
					t.Fatalf("honest request %q refused: %v", m.Name, err)
				}
			}
			before := len(accts[0].Charges())
			err := send(tc.m)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want a refusal saying %q", err, tc.want)
			}
			if got := len(accts[0].Charges()); got != before {
				t.Errorf("the refused request changed the party's charges from %d to %d", before, got)
			}
		})
	}
}
