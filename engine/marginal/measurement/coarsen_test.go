package measurement

import (
	"math"
	"slices"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/internal/enginetest"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// digitsBinRho is what one pixel's "bins of" release gets on digits at
// ε = 1, δ = 1e-5 under add/remove: 5 % of ρ = 0.03056 over 64 pixels
// (σ ≈ 145 per value), and digitsSigma the adaptive engine's first-round
// noise per cell there (0.9 of ρ·0.94 over 130 rounds: σ ≈ 50).
const (
	digitsBinRho = 0.05 * 0.0305566 / 64
	digitsSigma  = 50.1
)

// On a digits enginetest.Pixel at ε = 1 the release's noise (σ ≈ 145 per value
// under add/remove, 205 under replace-one) is about the floor (3σ of the
// engine's measurements: 150 and 213 records), so most values between
// the point masses read light and merge into runs below the floor, while
// 0 (248–1438 records) stays alone; a value whose noise pushed it
// over the floor stays too (the rule reads released counts only). The
// pieces are the old bins, so values are still drawn per value.
func TestCoarsenMergesBinsTheNoiseSwamps(t *testing.T) {
	floor := domain.CoarsenFloor(digitsSigma, 1411, 16)
	if math.Abs(floor-150.3) > 0.01 {
		t.Fatalf("floor %v, want 3·50.1", floor)
	}
	blank := make([]float64, 17)
	blank[0] = 1438 // p00: 0 in every training row
	for _, c := range []struct {
		name   string
		counts []float64
		nb     dp.Neighbours
		seed   uint64
		want   []float64
	}{
		{"p35 add-remove", enginetest.P35, dp.NeighboursAddRemove, 1, []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 15}},
		{"p34 add-remove", enginetest.P34, dp.NeighboursAddRemove, 2, []float64{0, 1, 8, 9, 11, 12, 13, 14, 15}},
		{"p00 add-remove", blank, dp.NeighboursAddRemove, 4, []float64{0, 1, 7, 8, 15}},
		{"p35 replace-one", enginetest.P35, dp.NeighboursReplaceOne, 3, []float64{0, 1, 2, 3, 4, 11, 12, 13, 14, 15}},
		// two of every three values of a blank enginetest.Pixel read above 213
		// from noise alone here: the rule keeps what the release shows.
		{"p00 replace-one", blank, dp.NeighboursReplaceOne, 5, []float64{0, 1, 2, 3, 5, 6, 7, 8, 9, 12, 13, 15}},
	} {
		t.Run(c.name, func(t *testing.T) {
			floor := floor
			if c.nb == dp.NeighboursReplaceOne {
				floor = domain.CoarsenFloor(digitsSigma*math.Sqrt2, 1438, 16)
			}
			opts := func(floor float64) CutsOptions {
				return CutsOptions{Bins: 16, Rho: digitsBinRho, Accountant: accountant(t), Source: randx.NewSeeded(c.seed),
					Neighbours: c.nb, Records: 1411, Floor: floor}
			}
			before, err := ChooseBinsFromFine(enginetest.Pixel, slices.Clone(c.counts), opts(0))
			if err != nil {
				t.Fatal(err)
			}
			after, err := ChooseBinsFromFine(enginetest.Pixel, slices.Clone(c.counts), opts(floor))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("cuts %v → %v, pieces %v", before.Cuts, after.Cuts, after.Pieces.Weights)
			if len(before.Cuts) != 16 {
				t.Fatalf("before: %d bins %v, want the 16 equal-width ones", len(before.Cuts), before.Cuts)
			}
			if !slices.Equal(after.Cuts, c.want) {
				t.Fatalf("after: cuts %v, want %v", after.Cuts, c.want)
			}
			for _, e := range after.Cuts {
				if !slices.Contains(before.Cuts, e) {
					t.Fatalf("after: edge %v is not one of %v", e, before.Cuts)
				}
			}
			if !slices.Equal(after.Pieces.Edges, before.Pieces.Edges) {
				t.Fatalf("pieces %v, want the old bins %v", after.Pieces.Edges, before.Pieces.Edges)
			}
			s := data.Schema{Attributes: []data.Attribute{enginetest.Pixel}}
			var do domain.Options
			do.SetChosen(enginetest.Pixel.Name, after)
			if _, err := domain.New(s, do); err != nil {
				t.Fatalf("coarsened bins are no domain: %v", err)
			}
		})
	}
}

// accountant is a fresh ρ = 1 zCDP accountant.
func accountant(t *testing.T) *privacy.Accountant {
	t.Helper()
	a, err := privacy.NewAccountant(privacy.AccountantOptions{Party: "o", Budget: dp.Concentrated(1)})
	if err != nil {
		t.Fatal(err)
	}
	return a
}
