package marginal

import (
	"math"
	"slices"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/randx"
)

// pixel is an 8×8 digits pixel: integers 0..16.
var pixel = data.Attribute{Name: "p35", Kind: data.Numeric, Min: 0, Max: 16, Integer: true}

// p35 and p34 are the training counts of two pixels of sklearn's digits
// (docs/results/synthesis/tables.py's split, 1 438 rows), values 0..16.
var (
	p35 = []float64{293, 75, 70, 62, 69, 52, 45, 69, 70, 57, 64, 53, 69, 62, 54, 86, 188}
	p34 = []float64{248, 46, 25, 23, 32, 31, 26, 32, 48, 50, 45, 53, 75, 83, 103, 129, 389}
)

// digitsBinRho is what one pixel's "bins of" release gets on digits at
// ε = 1, δ = 1e-5 under add/remove: 5 % of ρ = 0.03056 over 64 pixels
// (σ ≈ 145 per value), and digitsSigma the adaptive engine's first-round
// noise per cell there (0.9 of ρ·0.94 over 130 rounds: σ ≈ 50).
const (
	digitsBinRho = 0.05 * 0.0305566 / 64
	digitsSigma  = 50.1
)

// On a digits pixel at ε = 1 the release's noise (σ ≈ 145 per value
// under add/remove, 205 under replace-one) is about the floor (3σ of the
// engine's measurements: 150 and 213 records), so most values between
// the point masses read light and merge into runs below the floor, while
// 0 (248–1438 records) stays alone; a value whose noise pushed it
// over the floor stays too (the rule reads released counts only). The
// pieces are the old bins, so values are still drawn per value.
func TestCoarsenMergesBinsTheNoiseSwamps(t *testing.T) {
	floor := CoarsenFloor(digitsSigma, 1411, 16)
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
		{"p35 add-remove", p35, dp.NeighboursAddRemove, 1, []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 15}},
		{"p34 add-remove", p34, dp.NeighboursAddRemove, 2, []float64{0, 1, 8, 9, 11, 12, 13, 14, 15}},
		{"p00 add-remove", blank, dp.NeighboursAddRemove, 4, []float64{0, 1, 7, 8, 15}},
		{"p35 replace-one", p35, dp.NeighboursReplaceOne, 3, []float64{0, 1, 2, 3, 4, 11, 12, 13, 14, 15}},
		// two of every three values of a blank pixel read above 213
		// from noise alone here: the rule keeps what the release shows.
		{"p00 replace-one", blank, dp.NeighboursReplaceOne, 5, []float64{0, 1, 2, 3, 5, 6, 7, 8, 9, 12, 13, 15}},
	} {
		t.Run(c.name, func(t *testing.T) {
			floor := floor
			if c.nb == dp.NeighboursReplaceOne {
				floor = CoarsenFloor(digitsSigma*math.Sqrt2, 1438, 16)
			}
			opts := func(floor float64) CutsOptions {
				return CutsOptions{Bins: 16, Rho: digitsBinRho, Accountant: zcdpAccountant(t, "o", 1), Source: randx.NewSeeded(c.seed),
					Neighbours: c.nb, Records: 1411, Floor: floor}
			}
			before, err := ChooseBinsFromFine(pixel, slices.Clone(c.counts), opts(0))
			if err != nil {
				t.Fatal(err)
			}
			after, err := ChooseBinsFromFine(pixel, slices.Clone(c.counts), opts(floor))
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
			s := data.Schema{Attributes: []data.Attribute{pixel}}
			var do DomainOptions
			do.SetChosen(pixel.Name, after)
			if _, err := NewDomain(s, do); err != nil {
				t.Fatalf("coarsened bins are no domain: %v", err)
			}
		})
	}
}

// Where the bins stand clear of the floor, where the release cannot
// resolve the floor, or with no floor, Coarsen returns the bins it was
// given, so their outputs stay byte-identical.
func TestCoarsenLeavesBinsAlone(t *testing.T) {
	grid := PublicGrid(pixel, DefaultGrid)
	heavy := slices.Repeat([]float64{300}, 17)
	b := BinsFromHistogram(pixel, grid, heavy, 17*300, 16, 145, RefineDecoded)
	cont := data.Attribute{Name: "radius_mean", Kind: data.Numeric, Min: 0, Max: 50}
	cgrid := PublicGrid(cont, DefaultGrid)
	light := make([]float64, len(cgrid))
	light[40] = 455
	cb := BinsFromHistogram(cont, cgrid, light, 455, 16, 99, RefineDecoded)
	for _, c := range []struct {
		name         string
		a            data.Attribute
		b            ChosenBins
		grid, counts []float64
		sigma, floor float64
	}{
		{"no floor", pixel, b, grid, p34, 145, 0},
		{"every bin above the floor", pixel, b, grid, heavy, 145, 150},
		// WDBC at ε = 1: 16 grid cells a bin, σ = 99 each: a bin's
		// count carries σ·4 ≈ 400 against a floor of 105.
		{"floor below the bins' noise", cont, cb, cgrid, light, 99, 105},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Coarsen(c.a, c.b, c.grid, c.counts, c.sigma, c.floor)
			if !slices.Equal(got.Cuts, c.b.Cuts) || got.Pieces != c.b.Pieces {
				t.Fatalf("cuts %v, want %v unchanged", got.Cuts, c.b.Cuts)
			}
		})
	}
}

// CoarsenFloor fires only when the average equal-width bin is below
// 3σ: digits (1 411 released records, σ = 50.1) at 150.3, wide (6 400
// rows, paper engine, σ ≈ 46) and Adult not at all.
func TestCoarsenFloor(t *testing.T) {
	for _, c := range []struct {
		name     string
		sigma, n float64
		bins     int
		want     float64
	}{
		{"digits", 50.1, 1411, 16, 150.3},
		{"wide", 46, 6400, 16, 0},
		{"adult", 30, 36179, 16, 0},
		{"no bins", 50, 1411, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := CoarsenFloor(c.sigma, c.n, c.bins); math.Abs(got-c.want) > 1e-9 {
				t.Fatalf("floor %v, want %v", got, c.want)
			}
		})
	}
}

// coarseCuts keeps heavy bins and cuts each light run into bins below
// the floor.
func TestCoarseCuts(t *testing.T) {
	edges := []float64{0, 1, 2, 3, 4, 5}
	for _, c := range []struct {
		name string
		mass []float64
		want []float64
	}{
		{"point masses at both ends", []float64{800, 30, 20, 40, 10, 300}, []float64{0, 1, 5}},
		{"light bins that would reach the floor together stay apart", []float64{500, 100, 100, 100, 100, 500}, edges},
		{"a light run cut below the floor", []float64{500, 100, 100, 30, 10, 500}, []float64{0, 1, 2, 5}},
		{"negative counts weigh nothing", []float64{500, 100, -80, 40, 100, 500}, []float64{0, 1, 4, 5}},
		{"a light run at the start", []float64{10, 20, 800, 30, 40, 160}, []float64{0, 2, 3, 5}},
		{"a light run at the end", []float64{800, 30, 40, 10, 5, 1}, []float64{0, 1}},
		{"nothing light", []float64{800, 300, 400, 160, 500, 200}, edges},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := coarseCuts(edges, c.mass, 150); !slices.Equal(got, c.want) {
				t.Fatalf("cuts %v, want %v", got, c.want)
			}
		})
	}
}

// A merged bin is drawn uniformly where the noise explains its pieces'
// differences and keeps their noisy shape where it does not; the
// measured refinement (no pieces of its own) gets one weight per old bin.
func TestCoarsenPieceWeights(t *testing.T) {
	grid := PublicGrid(pixel, DefaultGrid) // one cell per value 0..16
	for _, c := range []struct {
		name   string
		counts []float64
		sigma  float64
		want   []float64 // weights of values 1..15, merged
	}{
		// noise only (σ = 145, true counts 0): the spikes are not followed
		{"swamped", []float64{1400, 120, -90, 60, 140, -200, 30, 10, -60, 100, 140, -20, 50, 0, 80, 20, 300}, 145,
			slices.Repeat([]float64{380.0 / 15}, 15)},
		// two clear runs (σ = 1): the shape stays, shrunk by 1/(V+1)
		{"clear", []float64{1400, 20, 20, 20, 20, 20, 20, 20, 0, 0, 0, 0, 0, 0, 0, 0, 300}, 1, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			cuts := []float64{0, 1, 16}
			w := pieceWeights(pixel, cuts, grid, grid, c.counts, c.sigma)
			if len(w) != 17 || math.Abs(w[0]-math.Max(c.counts[0], 0)) > 1e-9 {
				t.Fatalf("weights %v: want 17, the first one bin alone at its count", w)
			}
			if c.want != nil {
				for i, v := range c.want {
					if math.Abs(w[1+i]-v) > 1e-9 {
						t.Fatalf("weights %v, want %v for values 1..15", w[1:16], c.want)
					}
				}
				return
			}
			for i := 1; i <= 15; i++ {
				if d := w[i] - c.counts[i]; math.Abs(d) > 0.2 {
					t.Fatalf("value %d weighs %v, count %v: the clear shape is lost", i, w[i], c.counts[i])
				}
			}
		})
	}
	t.Run("measured refinement", func(t *testing.T) {
		b := BinsFromHistogram(pixel, grid, slices.Clone(p34), 1438, 16, 145, RefineMeasured)
		got := Coarsen(pixel, b, grid, p34, 145, 150)
		if got.Pieces == nil || len(got.Pieces.Weights) != len(b.Cuts) {
			t.Fatalf("pieces %+v, want one weight per old bin (%d)", got.Pieces, len(b.Cuts))
		}
		var do DomainOptions
		do.SetChosen(pixel.Name, got)
		if _, err := NewDomain(data.Schema{Attributes: []data.Attribute{pixel}}, do); err != nil {
			t.Fatal(err)
		}
	})
}
