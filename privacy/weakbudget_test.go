package privacy

import (
	"strings"
	"testing"

	"github.com/dppub/dppub/dp"
)

// A report warns (in its JSON and its terminal summary) when the claimed
// ε is above 10 or its δ above 1e-5, and only then.
func TestReportWarnsOfAWeakBudget(t *testing.T) {
	cases := []struct {
		name       string
		spent      dp.Guarantee
		zcdpDelta  float64
		eps, delta bool
	}{
		{"(1, 1e-6)", dp.Approx(1, 1e-6), 0, false, false},
		{"(10, 1e-5) at the limits", dp.Approx(10, 1e-5), 0, false, false},
		{"(20, 1e-6)", dp.Approx(20, 1e-6), 0, true, false},
		{"(1, 0.25): δ of 1/n² for 2 rows", dp.Approx(1, 0.25), 0, false, true},
		{"ε = 11 pure", dp.Pure(11), 0, true, false},
		{"ρ = 1 at δ = 1e-5 (ε ≈ 7.8)", dp.Concentrated(1), 1e-5, false, false},
		{"ρ = 5 at δ = 1e-5 (ε ≈ 16)", dp.Concentrated(5), 1e-5, true, false},
		{"ρ = 0.1 at δ = 1e-3", dp.Concentrated(0.1), 1e-3, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := accountant(t, "owner", c.spent, charge("all", c.spent))
			r, err := NewReport(ReportOptions{Method: "m", Accountants: []*Accountant{a}, DeltaForZCDP: c.zcdpDelta})
			if err != nil {
				t.Fatal(err)
			}
			all := strings.Join(r.Warnings, "\n")
			if got := strings.Contains(all, "is above 10"); got != c.eps {
				t.Errorf("ε warning %v, want %v: %q", got, c.eps, r.Warnings)
			}
			if got := strings.Contains(all, "is above 1e-05"); got != c.delta {
				t.Errorf("δ warning %v, want %v: %q", got, c.delta, r.Warnings)
			}
			if (c.eps || c.delta) && !strings.Contains(r.Summary(), "is above") {
				t.Errorf("the terminal summary does not carry the warning:\n%s", r.Summary())
			}
		})
	}
}
