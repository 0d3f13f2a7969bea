package audit

import (
	"testing"

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
	checkAudits(t, []auditCase{
		{"pdp-mvds-noise", MethodOptions{Calibration: string(pdpmvds.NoiseInsiderSafe), Mechanism: ViewParty}, Pass, 0.5, 1},
		{"pdp-mvds-noise", MethodOptions{Calibration: string(pdpmvds.NoiseExact)}, Pass, 0.5, 1},
		{"pdp-mvds-noise", MethodOptions{Calibration: string(pdpmvds.NoiseExact), Mechanism: ViewParty}, Violation, 1, 3},
		{"dlpa", MethodOptions{}, Pass, 0.7, 1},
		{"pdp-mvds-laplace-noise", MethodOptions{Calibration: string(pdpmvds.NoiseExact)}, Pass, 0.7, 1},
		{"pdp-mvds-laplace-noise", MethodOptions{Calibration: string(pdpmvds.NoiseInsiderSafe)}, Pass, 0.4, 1},
	})
}
