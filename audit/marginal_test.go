package audit

import (
	"testing"

	"github.com/dppub/dppub/protocol/pdpmvds"
)

// The audits of the marginal engine and PDP-MVDS's noise, with the
// verdicts a correct implementation gives and the bounds expected from
// the arithmetic in each constructor's comment. Each run is seeded, so
// the verdicts are reproducible; with a fresh seed each PASS would turn
// into a false VIOLATION with probability at most 5% (the confidence).
func TestMarginalAndPDPMVDSNoiseAudits(t *testing.T) {
	for _, tc := range []struct {
		method string
		o      MethodOptions
		want   Verdict
		lo, hi float64
	}{
		{"marginal-one-way", MethodOptions{}, Pass, 0.5, 1},
		{"marginal-gaussian", MethodOptions{}, Pass, 0.5, 1},
		{"iindif", MethodOptions{}, Pass, 0.5, 1},
		{"indif", MethodOptions{Calibration: "sound"}, Pass, 0.5, 2},
		{"indif", MethodOptions{Calibration: "privsyn"}, Violation, 2, 2.4},
		{"pdp-mvds-noise", MethodOptions{Calibration: string(pdpmvds.NoiseInsiderSafe), Mechanism: ViewParty}, Pass, 0.5, 1},
		{"pdp-mvds-noise", MethodOptions{Calibration: string(pdpmvds.NoiseExact)}, Pass, 0.5, 1},
		{"pdp-mvds-noise", MethodOptions{Calibration: string(pdpmvds.NoiseExact), Mechanism: ViewParty}, Violation, 1, 3},
		{"dlpa", MethodOptions{}, Pass, 0.7, 1},
		{"pdp-mvds-laplace-noise", MethodOptions{Calibration: string(pdpmvds.NoiseExact)}, Pass, 0.7, 1},
		{"pdp-mvds-laplace-noise", MethodOptions{Calibration: string(pdpmvds.NoiseInsiderSafe)}, Pass, 0.4, 1},
	} {
		meth, err := LookupMethod(tc.method)
		if err != nil {
			t.Fatal(err)
		}
		m, err := meth.Mechanism(tc.o)
		r := mustRun(t, m, err, meth.Runs(tc.o, false), 11)
		t.Logf("%s: ε_lower %.3f (claim %v): %s", r.Mechanism, r.EpsilonLower, m.Claim, r.Verdict)
		if r.Verdict != tc.want || r.EpsilonLower < tc.lo || r.EpsilonLower > tc.hi {
			t.Errorf("%s: %s with ε_lower %.3f, want %s in [%v, %v]", r.Mechanism, r.Verdict, r.EpsilonLower, tc.want, tc.lo, tc.hi)
		}
	}
}
