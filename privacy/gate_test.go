package privacy

import (
	"math"
	"strings"
	"testing"

	"github.com/dppub/dppub/dp"
)

// ConditionOnGate weakens δ by e^ε·P[refuse] and says so in the
// headline; a bound with δ ≥ 1 turns a holding status into not-dp, and a
// report with no (ε, δ) statement gets no guarantee.
func TestConditionOnGate(t *testing.T) {
	for _, tc := range []struct {
		name      string
		budget    dp.Guarantee
		delta     float64 // DeltaForZCDP
		p         float64
		wantDelta float64 // 0: no guarantee stated
		status    Status
	}{
		{"pure", dp.Pure(1), 0, 0.01, math.E * 0.01, Holds},
		{"approx", dp.Approx(0.5, 1e-6), 0, 0.001, 1e-6 + math.Exp(0.5)*0.001, Holds},
		{"vacuous", dp.Pure(3), 0, 0.1, 0, NotDP},
		{"zcdp without delta", dp.Concentrated(0.5), 0, 0.001, 0, NotDP},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := accountant(t, "owner", tc.budget, Charge{Purpose: "release", Spec: dp.Spec{Mechanism: "laplace", Guarantee: tc.budget}})
			r, err := NewReport(ReportOptions{Method: "m", Calibration: "sound", Composition: Single, Accountants: []*Accountant{a}, DeltaForZCDP: tc.delta})
			if err != nil {
				t.Fatal(err)
			}
			r.ConditionOnGate(GateCondition{Test: "a test", RefusalBound: tc.p, RefusalSource: "measured", Settings: map[string]string{"gate": "true"}})
			if r.Gate == nil || r.Status != tc.status || !strings.Contains(r.Headline(), "conditioned on a test") {
				t.Fatalf("gate %+v, status %q, headline %q; want status %q", r.Gate, r.Status, r.Headline(), tc.status)
			}
			if tc.wantDelta == 0 {
				if !r.Gate.Vacuous {
					t.Errorf("gate %+v: want vacuous", r.Gate)
				}
				return
			}
			if r.Gate.WithGate == nil || math.Abs(r.Gate.WithGate.Delta-tc.wantDelta) > 1e-12 || r.Gate.Vacuous {
				t.Errorf("with the gate %v, want δ = %v", r.Gate.WithGate, tc.wantDelta)
			}
		})
	}
}
