package catalog

import (
	"testing"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/audit/audittest"
)

// Every pipeline audit: the sound pipeline PASSes and the variant that
// releases the canary's count unnoised is caught as a VIOLATION. The
// unnoised variant separates D from D' in every run (the synthetic table
// holds the canary exactly when the private one does), so at 150 runs its
// bound is the ceiling, ln(0.97/0.033) ≈ 3.4 (the Clopper–Pearson bounds at
// 5%/8: zCDP claims also get the Rényi test), above every claim (0.74 to
// 1.13). The sound runs are seeded; a sound pipeline fails its PASS with
// probability at most 5% over seeds (the audit's confidence), and in the
// long runs reported in the package's notes its bound stays below 0.1.
// The unnoised variant is checked again on two more seeds at 40 runs.
// About 12 s on 2 cores.
func TestPipelineAuditsSoundPassBrokenCaught(t *testing.T) {
	if testing.Short() {
		t.Skip("150 runs of each whole pipeline, sound and broken (about 10–17 s on 2 cores); runs without -short")
	}
	for _, name := range []string{"pipeline-synthesize", "pipeline-ppca-dp-mh", "pipeline-dp-subn3", "pipeline-pdp-mvds", "pipeline-synthesize-rows"} {
		t.Run(name, func(t *testing.T) {
			meth, err := All().Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			sound, err := meth.Mechanism(audit.MethodOptions{})
			rs := audittest.MustRun(t, sound, err, 150, 21)
			if rs.Verdict != audit.Pass {
				t.Errorf("sound: ε_lower %.3f > claim %.3f, want PASS", rs.EpsilonLower, rs.ClaimedEpsilon)
			}
			broken, err := meth.Mechanism(audit.MethodOptions{Calibration: audit.VariantUnnoised})
			rb := audittest.MustRun(t, broken, err, 150, 21)
			if rb.Verdict != audit.Violation || rb.EpsilonLower < 3 {
				t.Errorf("unnoised: ε_lower %.3f (%s), want a VIOLATION at the ceiling ≈ 3.4", rb.EpsilonLower, rb.Verdict)
			}
			audittest.ViolationOnMoreSeeds(t, broken, 40) // ceiling 2.0 at 40 runs, above every claim
		})
	}
}
