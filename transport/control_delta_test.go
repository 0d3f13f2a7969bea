package transport

import (
	"testing"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/internal/testenv"
)

// An Open message carries each participant's δ, at which its ledger counts
// a zCDP session against an (ε, δ) lifetime budget; a δ without a zCDP
// budget, or outside (0, 1), is refused.
func TestOpenCarriesSessionDelta(t *testing.T) {
	for _, tc := range []struct {
		name   string
		budget *dp.Guarantee
		delta  float64
		want   string
	}{
		{"zCDP with δ", ptr(dp.Concentrated(0.03)), 1e-5, ""},
		{"zCDP without δ", ptr(dp.Concentrated(0.03)), 0, ""},
		{"(ε, δ) budget", ptr(dp.Approx(1, 1e-6)), 0, ""},
		{"δ beside an (ε, δ) budget", ptr(dp.Approx(1, 1e-6)), 1e-5, "δ 1e-05 of \"owner-1\" with budget (ε=1, δ=1e-06)"},
		{"δ without a budget", nil, 1e-5, "with budget none"},
		{"δ of 1", ptr(dp.Concentrated(0.03)), 1, "δ 1 of \"owner-1\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := Open{Method: "synthesize-rows", Coordinator: "curator",
				Participants: []Participant{{Name: "owner-1", Role: "owner", Budget: tc.budget, Delta: tc.delta}}}
			b, err := o.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			var got Open
			err = got.UnmarshalBinary(b)
			if testenv.ErrorCase(t, err, tc.want) {
				return
			}
			if got.Participants[0].Delta != tc.delta {
				t.Fatalf("round trip: %+v", got.Participants)
			}
		})
	}
}
