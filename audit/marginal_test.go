package audit_test

import (
	"testing"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/audit/audittest"
)

// The marginal engine's releases pass near their claims (each pair is
// tight); PrivSyn's InDif calibrated to Δ = 4 is caught: its true ε is
// (14/3)/4·2 = 2.33 on the pair, and 200,000 runs put the bound at about
// 2.3 > 2.
func TestMarginalAudits(t *testing.T) {
	if testing.Short() {
		t.Skip("the marginal engine's audits, up to 200,000 runs (about 5–11 s on 2 cores); runs without -short")
	}
	audittest.CheckBounds(t, audit.Core(), []audittest.Bound{
		{Method: "marginal-one-way", Options: audit.MethodOptions{}, Want: audit.Pass, Lo: 0.5, Hi: 1},
		{Method: "marginal-gaussian", Options: audit.MethodOptions{}, Want: audit.Pass, Lo: 0.5, Hi: 1},
		{Method: "iindif", Options: audit.MethodOptions{}, Want: audit.Pass, Lo: 0.5, Hi: 1},
		{Method: "indif", Options: audit.MethodOptions{Calibration: "sound"}, Want: audit.Pass, Lo: 0.5, Hi: 2},
		{Method: "indif", Options: audit.MethodOptions{Calibration: "privsyn"}, Want: audit.Violation, Lo: 2, Hi: 2.4},
	})
}
