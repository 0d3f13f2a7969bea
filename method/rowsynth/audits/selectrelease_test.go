package audits

import (
	"testing"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/audit/audittest"
)

// One select answer, audited against the exact (ε = 1, δ = 0.127) profile
// of its sound noise (Δ₂ = 2√16 = 8 at ρ = 0.5): the owner's own
// calibration passes, a calibration for Δ₂ = 2 (σ four times too small,
// true δ at ε = 1 about 0.95) and halved noise (true δ about 0.5) are
// caught. Seeded; a sound run fails with
// probability at most the audit's 5% over seeds, the forged one separates
// D from D' in nearly every run.
func TestSelectReleaseSoundPassesForgedCaught(t *testing.T) {
	runs := 20_000
	if testing.Short() {
		runs = 4_000
	}
	for _, c := range []struct {
		variant string
		want    audit.Verdict
	}{{audit.VariantSound, audit.Pass}, {VariantForgedSelectSensitivity, audit.Violation}, {audit.VariantNoiseHalved, audit.Violation}} {
		t.Run(c.variant, func(t *testing.T) {
			m, err := SelectRelease(c.variant)
			r := audittest.MustRun(t, m, err, runs, 61)
			t.Logf("ε ≥ %.3f (claimed %.3f at δ %.3g)", r.EpsilonLower, r.ClaimedEpsilon, m.Claim.Delta)
			if r.Verdict != c.want {
				t.Errorf("verdict %s, want %s", r.Verdict, c.want)
			}
			if c.want == audit.Violation {
				audittest.ViolationOnMoreSeeds(t, m, runs)
			}
		})
	}
}
