package domain

import (
	"math"
	"slices"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/engine/marginal/internal/enginetest"
)

// Where the bins stand clear of the floor, where the release cannot
// resolve the floor, or with no floor, Coarsen returns the bins it was
// given, so their outputs stay byte-identical.
func TestCoarsenLeavesBinsAlone(t *testing.T) {
	grid := PublicGrid(enginetest.Pixel, DefaultGrid)
	heavy := slices.Repeat([]float64{300}, 17)
	b := BinsFromHistogram(enginetest.Pixel, grid, heavy, 17*300, 16, 145, RefineDecoded)
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
		{"no floor", enginetest.Pixel, b, grid, enginetest.P34, 145, 0},
		{"every bin above the floor", enginetest.Pixel, b, grid, heavy, 145, 150},
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
	grid := PublicGrid(enginetest.Pixel, DefaultGrid) // one cell per value 0..16
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
			w := pieceWeights(enginetest.Pixel, cuts, grid, grid, c.counts, c.sigma)
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
		b := BinsFromHistogram(enginetest.Pixel, grid, slices.Clone(enginetest.P34), 1438, 16, 145, RefineMeasured)
		got := Coarsen(enginetest.Pixel, b, grid, enginetest.P34, 145, 150)
		if got.Pieces == nil || len(got.Pieces.Weights) != len(b.Cuts) {
			t.Fatalf("pieces %+v, want one weight per old bin (%d)", got.Pieces, len(b.Cuts))
		}
		var do Options
		do.SetChosen(enginetest.Pixel.Name, got)
		if _, err := New(data.Schema{Attributes: []data.Attribute{enginetest.Pixel}}, do); err != nil {
			t.Fatal(err)
		}
	})
}

// PointMassFloor coarsens a count column's light tail when a heavy public
// value leaves the rest of its bins below the floor (zeroinfl's
// days_in_hospital: 8 000 records, 70 % zeros, 2 400 spread over 1–30
// days; the floor of 3 owners of rows on the adaptive engine at ε = 1 is
// 445), and nothing else: a floor the tail's bins clear, a count column
// with no heavy public value, a wide integer column (Adult's capital-gain:
// 390 values a grid cell), a real-valued one. Exact counts (σ = 0) make
// the test deterministic.
func TestPointMassFloor(t *testing.T) {
	days := data.Attribute{Name: "days_in_hospital", Kind: data.Numeric, Integer: true, Min: 0, Max: 30}
	gain := data.Attribute{Name: "capital-gain", Kind: data.Numeric, Integer: true, Min: 0, Max: 99999}
	amount := data.Attribute{Name: "pharmacy", Kind: data.Numeric, Min: 0, Max: 2000, Decimals: 2}
	zeroAndTail := func(a data.Attribute, zeros, tail int, top float64) []float64 {
		v := make([]float64, 0, zeros+tail)
		for range zeros {
			v = append(v, 0)
		}
		for k := range tail {
			v = append(v, 1+math.Floor(float64(k)*(top-1)/float64(tail)))
		}
		return v
	}
	modeAtFive := make([]float64, 0, 8000)
	for k := range 8000 {
		modeAtFive = append(modeAtFive, 5+float64(k%3)-float64(k%2))
	}
	for _, c := range []struct {
		name   string
		a      data.Attribute
		values []float64
		floor  float64
		want   float64
	}{
		{"count column, heavy zero, light tail", days, zeroAndTail(days, 5600, 2400, 30), 445, 445},
		{"tail clears the floor", days, zeroAndTail(days, 5600, 2400, 30), 100, 0},
		{"no floor planned", days, zeroAndTail(days, 5600, 2400, 30), 0, 0},
		{"no heavy public value", days, modeAtFive, 445, 0},
		{"wide integer column", gain, zeroAndTail(gain, 7360, 640, 99999), 445, 0},
		{"real-valued column", amount, zeroAndTail(amount, 5600, 2400, 2000), 445, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			grid := PublicGrid(c.a, DefaultGrid)
			counts := GridCounts(c.a, grid, c.values)
			b := BinsFromHistogram(c.a, grid, counts, float64(len(c.values)), DefaultBins, 0, RefineDecoded)
			if got := PointMassFloor(c.a, b, grid, counts, c.floor); got != c.want {
				t.Fatalf("floor %v, want %v (bins %v)", got, c.want, b.Cuts)
			}
		})
	}
}
