package audit

import (
	"testing"

	proto "github.com/dppub/dppub/protocol/pdpmvds"
)

// PDP-MVDS from inside (2 parties of columns, ρ = 0.04 each, commodity
// suite, canary in party 1's column a1): the coordinator's, S's and the
// colluder's views PASS against the report's guarantee for each; parties
// that send the coordinator noise-free shares (noise-free, rewritten at
// the coordinator's door) are caught as a VIOLATION by the coordinator's
// LLR, which then separates D and D' in every run: ε_lower 4.73 at 500
// runs, 3.81 at 200 (the ceilings), against claims of 0.73 (party 1's
// ρ = 0.04 at δ = 1/n²) and 1.09 (exact mode against a party, 2ρ). The
// sound views gave ε_lower 0 at 500 runs: at this ρ the LLR of one
// record moves by far less than its noise, so their PASS says only that
// nothing leaks at the ceiling's resolution. Seeded; a sound view fails
// its PASS with probability at most 5% over seeds (the bound's
// confidence). About 9 ms a run; -short runs the coordinator's sound and
// broken views at 200 runs (about 4.5 s).
func TestViewPDPMVDSPassesCatchesNoiseFree(t *testing.T) {
	cases := []struct {
		view    ZeroSumView
		mode    string
		variant string
		want    Verdict
		short   bool
	}{
		{ViewCoordinator, "", VariantSound, Pass, true},
		{ViewCoordinator, "", VariantNoiseFree, Violation, true},
		{ViewThirdParty, "", VariantSound, Pass, false},
		{ViewColluder, string(proto.NoiseExact), VariantSound, Pass, false},
		{ViewColluder, "", VariantNoiseFree, Violation, false},
	}
	for _, c := range cases {
		if testing.Short() && !c.short {
			continue
		}
		runs := 500
		if testing.Short() {
			runs = 200
		}
		t.Run(string(c.view)+"/"+c.mode+"/"+c.variant, func(t *testing.T) {
			m, err := ViewPDPMVDS(c.view, c.mode, c.variant)
			r := mustRun(t, m, err, runs, 71)
			t.Logf("ε_lower %.3f vs claim %.3f: %s", r.EpsilonLower, r.ClaimedEpsilon, r.Verdict)
			if r.Verdict != c.want {
				t.Errorf("ε_lower %.3f vs claim %.3f: %s, want %s", r.EpsilonLower, r.ClaimedEpsilon, r.Verdict, c.want)
			}
		})
	}
}

// Bad views, modes and variants are refused, quoting the value.
func TestViewPDPMVDSRejects(t *testing.T) {
	for _, bad := range []struct{ view, mode, variant string }{
		{"coalition", "", ""}, {"", "paper", ""}, {"", "", "plaintext"},
	} {
		t.Run(bad.view+bad.mode+bad.variant, func(t *testing.T) {
			if _, err := ViewPDPMVDS(ZeroSumView(bad.view), bad.mode, bad.variant); err == nil {
				t.Errorf("view %q, mode %q, variant %q accepted", bad.view, bad.mode, bad.variant)
			}
		})
	}
}
