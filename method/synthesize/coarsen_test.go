package synthesize

import (
	"fmt"
	"math"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/engine/marginal/measurement"
)

// digitsSchema is sklearn's digits as the benchmark declares it
// (docs/results/synthesis/tables.py): 64 integer pixels in [0, 16] and
// the digit.
func digitsSchema() data.Schema {
	var s data.Schema
	for i := range 64 {
		s.Attributes = append(s.Attributes, data.Attribute{Name: fmt.Sprintf("p%d%d", i/8, i%8), Kind: data.Numeric, Min: 0, Max: 16, Integer: true})
	}
	digits := make([]string, 10)
	for i := range digits {
		digits[i] = fmt.Sprint(i)
	}
	return data.Schema{Attributes: append(s.Attributes, data.Attribute{Name: "digit", Kind: data.Categorical, Categories: digits})}
}

// engineRho is the engine's share of the owner's ρ at (ε, δ) = (eps,
// 1e-5): what Publish passes to coarsenFloor (the bins' 5 % and, under
// add/remove, the record count's 1 % taken off).
func engineRho(t *testing.T, eps float64, nb dp.Neighbours) float64 {
	t.Helper()
	rho, err := marginal.RhoFor(eps, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	rest := rho * (1 - DefaultBinShare)
	if !nb.PublicCount() {
		rest -= measurement.DefaultCountShare * rho
	}
	return rest
}

// On digits at ε = 1 the adaptive engine's first rounds carry σ ≈ 50
// records per cell under add/remove (71 under replace-one), against 88
// records per equal-width bin (1 411 released records over 16): the
// floor is 3σ and numeric bins are coarsened. At ε = 4 the engine runs
// 2·d rounds, as on every table of more than 16 attributes whose rounds
// would carry more than 0.25 % of n (marginal.DefaultRounds), so σ falls
// to 14 (3σ = 43, under half a bin) and the floor does not fire; before
// the wide tables' rounds were cut, DefaultRounds grew with ρ there, σ
// fell only to 41 and the floor, 122, fired.
func TestCoarsenFloorDigits(t *testing.T) {
	s := digitsSchema()
	for _, c := range []struct {
		name string
		eps  float64
		nb   dp.Neighbours
		n    int
		want float64
	}{
		{"ε = 1 add/remove", 1, dp.NeighboursAddRemove, 1411, 150.43},
		{"ε = 1 replace-one", 1, dp.NeighboursReplaceOne, 1438, 211.62},
		{"ε = 0.3 add/remove", 0.3, dp.NeighboursAddRemove, 1411, 457.55},
		{"ε = 4 add/remove", 4, dp.NeighboursAddRemove, 1411, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := Options{Method: marginal.MethodAdaptive, Neighbours: c.nb}
			got := coarsenFloor(o, s, c.n, engineRho(t, c.eps, c.nb))
			if math.Abs(got-c.want) > 0.01 {
				t.Fatalf("floor %.2f, want %v", got, c.want)
			}
		})
	}
}

// On Adult (36 179 training rows here, 6 numeric columns) the average
// equal-width bin stands far above 3σ at every budget the benchmark
// runs, for both engines and both relations: the floor is 0, Coarsen
// returns the bins unchanged, and seeded outputs stay byte-identical
// (TestReplaceOneOutputsUnchanged checks the digests).
func TestCoarsenFloorAdultNeverFires(t *testing.T) {
	tab, err := datasets.Load("adult")
	if err != nil {
		t.Skipf("adult not available: %v", err)
	}
	for _, m := range []marginal.Method{marginal.MethodPaper, marginal.MethodAdaptive} {
		for _, nb := range []dp.Neighbours{dp.NeighboursReplaceOne, dp.NeighboursAddRemove} {
			for _, eps := range []float64{0.3, 1, 4} {
				t.Run(fmt.Sprintf("%s/%s/ε=%v", m, nb, eps), func(t *testing.T) {
					o := Options{Method: m, Neighbours: nb}
					if got := coarsenFloor(o, tab.Schema, tab.Len(), engineRho(t, eps, nb)); got != 0 {
						t.Fatalf("floor %v on %d rows, want 0", got, tab.Len())
					}
				})
			}
		}
	}
}
