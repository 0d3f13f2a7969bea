package audits

import (
	"testing"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/audit/audittest"
)

// One select answer, audited against the exact (ε = 1, δ = 0.127) profile
// of its sound noise (Δ₂ = 2√16 = 8 at ρ = 0.5): the owner's own
// calibration passes, a calibration for Δ₂ = 2 (σ four times too small,
// true δ at ε = 1 0.93) and halved noise (true δ 0.51) are
// caught. The claim is the exact profile, so the sound bound comes close
// to it: over 30 seeds at 20 000 runs, sound ε ≥ 0.87-1.02, a VIOLATION
// in 1 of 30 (the audit's confidence allows 5%); forged ε ≥ 6.9-7.6 and
// halved ε ≥ 3.0-3.4, caught in 30 of 30 each. Seeded here.
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
