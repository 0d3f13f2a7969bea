package audits

import (
	"testing"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/audit/audittest"
	pdpmvds "github.com/dppub/dppub/method/pdpmvds/roles"
)

// PDP-MVDS's shares add up to the calibrated noise for the coordinator in
// both modes; a fellow party that subtracts its own share sees N(0, ½) in
// exact mode (true ε at the claimed δ = 0.127: 1.90), caught at about 1.8 > 1,
// while insider-safe still leaves it N(0, 1).
func TestPDPMVDSNoiseAudits(t *testing.T) {
	if testing.Short() {
		t.Skip("PDP-MVDS's noise audits in both modes (about 3–6 s on 2 cores); runs without -short")
	}
	audittest.CheckBounds(t, Audits(), []audittest.Bound{
		{Method: "pdp-mvds-noise", Options: audit.MethodOptions{Calibration: string(pdpmvds.NoiseInsiderSafe), Mechanism: ViewParty}, Want: audit.Pass, Lo: 0.5, Hi: 1},
		{Method: "pdp-mvds-noise", Options: audit.MethodOptions{Calibration: string(pdpmvds.NoiseExact)}, Want: audit.Pass, Lo: 0.5, Hi: 1},
		{Method: "pdp-mvds-noise", Options: audit.MethodOptions{Calibration: string(pdpmvds.NoiseExact), Mechanism: ViewParty}, Want: audit.Violation, Lo: 1, Hi: 3},
		{Method: "dlpa", Options: audit.MethodOptions{}, Want: audit.Pass, Lo: 0.7, Hi: 1},
		{Method: "pdp-mvds-laplace-noise", Options: audit.MethodOptions{Calibration: string(pdpmvds.NoiseExact)}, Want: audit.Pass, Lo: 0.7, Hi: 1},
		{Method: "pdp-mvds-laplace-noise", Options: audit.MethodOptions{Calibration: string(pdpmvds.NoiseInsiderSafe)}, Want: audit.Pass, Lo: 0.4, Hi: 1},
	})
}
