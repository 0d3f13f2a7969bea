package audit

import (
	"math"
	"testing"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/privacy"
)

func TestReplayMoveBounds(t *testing.T) {
	gauss := privacy.Charge{Purpose: "g", Spec: dp.Spec{Mechanism: "gaussian", Norm: "L2", Sensitivity: math.Sqrt2, Scale: 10, Guarantee: dp.Concentrated(0.01)}}
	lap := privacy.Charge{Purpose: "l", Spec: dp.Spec{Mechanism: "laplace", Norm: "L1", Sensitivity: 2, Scale: 20, Guarantee: dp.Pure(0.1)}}
	for _, c := range []struct {
		charge   privacy.Charge
		a, b     []float64
		exceeded bool
	}{
		{gauss, []float64{5, 3, 0}, []float64{4, 3, 1}, false},
		{gauss, []float64{5, 3, 0}, []float64{3, 3, 2}, true},
		{lap, []float64{5, 3, 0}, []float64{4, 3, 1}, false},
		{lap, []float64{5, 3, 0}, []float64{4, 2, 2}, true},
	} {
		mv, err := replayMove(c.charge, c.a, c.b)
		if err != nil {
			t.Fatal(err)
		}
		if mv.Exceeded() != c.exceeded || !(mv.Bound >= c.charge.Spec.Sensitivity) || mv.Bound > c.charge.Spec.Sensitivity*1.01 {
			t.Errorf("%s %v vs %v: %v, exceeded %v; want exceeded %v, a bound just above the sensitivity", c.charge.Purpose, c.a, c.b, mv, mv.Exceeded(), c.exceeded)
		}
	}
	bad := gauss
	bad.Spec.Norm = "Linf"
	if _, err := replayMove(bad, []float64{1}, []float64{2}); err == nil {
		t.Error("a sensitivity in an unknown norm accepted")
	}
	if _, err := replayMove(gauss, []float64{1}, []float64{2, 3}); err == nil {
		t.Error("releases of different lengths accepted")
	}
}
