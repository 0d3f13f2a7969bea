package audit

import (
	"math"
	"testing"
)

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
