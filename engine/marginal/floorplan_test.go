package marginal

import (
	"fmt"
	"math"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
)

// TestFloorPlanCarriedNoise plans the coarsening floor of zeroinfl's
// shape (27 attributes, 22 numeric, 8 000 records) for the paper engine
// at ε = 0.3 (ρ = 0.00330299, less the 5 % bin share): each combined
// marginal gets 0.8·ρ/54, σ = 146.7 calibrated, a floor of 440 under the
// 500 records of the average equal-width bin, so one owner does not
// coarsen. Three owners of rows in insider-safe mode carry 4/3 of that
// variance (σ = 169.4): their floor is 508 and their bins coarsen, as
// one owner's would at that noise. Before FloorPlan read NoiseVariance
// the owners planned from the calibrated σ and never coarsened here.
func TestFloorPlanCarriedNoise(t *testing.T) {
	var attrs []data.Attribute
	for j := range 27 {
		a := data.Attribute{Name: fmt.Sprint("a", j), Kind: data.Numeric, Min: 0, Max: 100}
		if j < 5 {
			a = data.Attribute{Name: a.Name, Kind: data.Categorical, Categories: []string{"x", "y"}}
		}
		attrs = append(attrs, a)
	}
	rho := 0.00330299 * (1 - 0.05)
	sigma := 1 / math.Sqrt(0.8*rho/54)
	for _, tc := range []struct {
		name     string
		variance float64
		want     float64
	}{
		{"one owner", 0, 0},
		{"exact noise", 1, 0},
		{"10 owners insider-safe", 11.0 / 10, 0},
		{"3 owners insider-safe", 4.0 / 3, 3 * sigma * math.Sqrt(4.0/3)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := FloorPlan{Method: MethodPaper, Neighbours: dp.NeighboursReplaceOne, Schema: data.Schema{Attributes: attrs},
				Records: 8000, Rho: rho, NoiseVariance: tc.variance}
			if got := p.Floor(); math.Abs(got-tc.want) > 1e-6*math.Max(1, tc.want) {
				t.Errorf("floor %.2f, want %.2f (σ = %.2f calibrated)", got, tc.want, sigma)
			}
		})
	}
}
