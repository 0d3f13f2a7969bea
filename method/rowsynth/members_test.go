package rowsynth_test

import (
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/method/rowsynth"
)

// Every owner's zCDP session budget comes with the session's δ, at which
// an owner with an (ε, δ) lifetime budget counts it; a budget given only
// as ρ has none.
func TestMembersCarryTheSessionDelta(t *testing.T) {
	tab, err := datasets.Load("nltcs")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		st   rowsynth.Settings
		want float64
	}{
		{"epsilon and delta", rowsynth.Settings{Epsilon: 1, Delta: 1e-5}, 1e-5},
		{"rho and delta", rowsynth.Settings{Rho: 0.03, Delta: 1e-6}, 1e-6},
		{"rho alone", rowsynth.Settings{Rho: 0.03}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := tc.st
			st.SetDefaults()
			sess, err := rowsynth.Spec.Open(&st, method.Open{ID: "s", Coordinator: "curator",
				Members: map[string][]string{method.RoleOwner: {"a", "b"}}, Schemas: []data.Schema{tab.Schema}})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range sess.Members() {
				if m.Delta != tc.want || m.Budget == nil || m.Budget.Notion != dp.ZCDP {
					t.Fatalf("%s: budget %v, δ %v, want a zCDP budget at δ %v", m.Name, m.Budget, m.Delta, tc.want)
				}
			}
		})
	}
}
