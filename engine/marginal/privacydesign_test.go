package marginal

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/dppub/dppub/engine/marginal/measurement"
)

// docs/privacy-design.md's row for the adaptive selection states the
// default mechanism and its charge as the code has them: the exponential
// mechanism (what AdaptiveOptions' defaults choose) at ε²/8, and
// permute-and-flip at ε²/2 as the option.
func TestPrivacyDesignStatesAdaptiveSelection(t *testing.T) {
	body, err := os.ReadFile("../../docs/privacy-design.md")
	if err != nil {
		t.Fatal(err)
	}
	var row string
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "| `engine/marginal` adaptive selection") {
			row = line
		}
	}
	if row == "" {
		t.Fatal("privacy-design.md has no row for the adaptive selection")
	}
	var o AdaptiveOptions
	if err := o.defaults(4, 1000, 1); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mech   measurement.SelectMechanism
		phrase string  // what the row must say of it
		rho    float64 // its charge at ε = 2
	}{
		{o.Selection, "EM (default, `" + string(o.Selection) + "`)", 0.5},
		{measurement.SelectPermuteAndFlip, "PF with `--selection " + string(measurement.SelectPermuteAndFlip) + "`", 2},
	} {
		t.Run(string(tc.mech), func(t *testing.T) {
			if !strings.Contains(row, tc.phrase) {
				t.Errorf("row %q does not say %q", row, tc.phrase)
			}
			got := measurement.Choice{Mechanism: tc.mech, Epsilon: 2}.Rho()
			if math.Abs(got-tc.rho) > 1e-12 {
				t.Errorf("%s at ε = 2 is charged ρ = %v, the row says %v", tc.mech, got, tc.rho)
			}
			word := map[float64]string{0.5: "ε²/8", 2: "ε²/2"}[tc.rho]
			if !strings.Contains(row, word) {
				t.Errorf("row %q does not state the charge %s", row, word)
			}
		})
	}
}
