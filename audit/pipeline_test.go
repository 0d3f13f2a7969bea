package audit

import (
	"math"
	"testing"
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
			meth, err := LookupMethod(name)
			if err != nil {
				t.Fatal(err)
			}
			sound, err := meth.Mechanism(MethodOptions{})
			rs := mustRun(t, sound, err, 150, 21)
			if rs.Verdict != Pass {
				t.Errorf("sound: ε_lower %.3f > claim %.3f, want PASS", rs.EpsilonLower, rs.ClaimedEpsilon)
			}
			broken, err := meth.Mechanism(MethodOptions{Calibration: VariantUnnoised})
			rb := mustRun(t, broken, err, 150, 21)
			if rb.Verdict != Violation || rb.EpsilonLower < 3 {
				t.Errorf("unnoised: ε_lower %.3f (%s), want a VIOLATION at the ceiling ≈ 3.4", rb.EpsilonLower, rb.Verdict)
			}
			violationOnMoreSeeds(t, broken, 40) // ceiling 2.0 at 40 runs, above every claim
		})
	}
}

// A tenth of the noise in the whole synthesize pipeline (ρ × 100 while
// the claim stays at ρ = 0.04, ε = 0.74 at δ = 1/576) makes the canary
// appear in about one synthetic table in eight on D' and one in 500 on D:
// at 1,000 runs ε_lower ≈ 2 (2.9 at 2,000). Halved noise is below the
// power of a count on 24 synthetic rows (ε_lower ≈ 0.4 at 2,000 runs).
// Seeded, and checked again on two more seeds; the violation is missed
// with probability far below 1%.
func TestPipelineSynthesizeCatchesNoiseTenth(t *testing.T) {
	if testing.Short() {
		t.Skip("4,000 runs of synthesize (about 4 s)")
	}
	m, err := PipelineSynthesize(VariantNoiseTenth, "")
	r := mustRun(t, m, err, 1000, 22)
	if r.Verdict != Violation {
		t.Errorf("noise-tenth: ε_lower %.3f ≤ claim %.3f, want a VIOLATION", r.EpsilonLower, r.ClaimedEpsilon)
	}
	violationOnMoreSeeds(t, m, 1000)
}

// PipelinePower: the ceiling of N runs is ln(p_lo(N/N)/p_hi(0/N)); the
// detectable ε lies above the claim and below the ceiling, and falls as
// runs grow; a claim above the ceiling cannot be refuted.
func TestPipelinePower(t *testing.T) {
	p1 := PipelinePower(1000, 0.95, 1, 0)
	p2 := PipelinePower(10000, 0.95, 1, 0)
	want := math.Log(ClopperPearsonLower(1000, 1000, 0.0125) / ClopperPearsonUpper(0, 1000, 0.0125))
	if math.Abs(p1.Ceiling-want) > 1e-12 {
		t.Errorf("ceiling %v, want %v", p1.Ceiling, want)
	}
	if !(p1.Detectable > 1 && p1.Detectable < p1.Ceiling && p2.Detectable < p1.Detectable && p2.Ceiling > p1.Ceiling) {
		t.Errorf("power at 1,000 runs %+v, at 10,000 %+v", p1, p2)
	}
	if p := PipelinePower(20, 0.95, 5, 0); !math.IsInf(p.Detectable, 1) {
		t.Errorf("20 runs against ε = 5: %+v, want no detectable ε", p)
	}
}
