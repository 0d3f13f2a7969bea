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

// The DP-ERM learners pass: output perturbation's weight is the minimiser
// plus Laplace noise, and the pair moves the minimiser by exactly its
// bound 2/(nλ), so the audit's bound gets close to ε; objective
// perturbation, and output perturbation of the logistic loss (whose
// gradient moves by less than the bound), are further from tight. Seeded runs; a fresh seed would turn
// a PASS into a false VIOLATION with probability at most 5%.
func TestDPERMPasses(t *testing.T) {
	for _, variant := range []string{"objective", "objective-huber", "output", "output-logistic"} {
		m, err := audit.DPERM(variant, 1)
		r := audittest.MustRun(t, m, err, 20_000, 17)
		if r.Verdict != audit.Pass || r.EpsilonLower > 1 {
			t.Errorf("%s: %s with ε_lower %.3f", r.Mechanism, r.Verdict, r.EpsilonLower)
		}
		if r.EpsilonLower < 0.2 {
			t.Errorf("%s: ε_lower %.3f: the pair no longer moves the model measurably", r.Mechanism, r.EpsilonLower)
		}
		if variant == "output" && r.EpsilonLower < 0.8 {
			t.Errorf("%s: ε_lower %.3f: the audit lost its power (want close to ε)", r.Mechanism, r.EpsilonLower)
		}
	}
}
