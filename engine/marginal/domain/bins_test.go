package domain

import (
	"math"
	"slices"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/engine/marginal/internal/enginetest"
	"github.com/dppub/dppub/randx"
)

// The adaptive bins refine the equal-width ones: every equal-width edge
// is a cut, whatever the noisy histogram, for continuous attributes, for
// integer ones with a grid cell per value and for integer ones whose grid
// holds the minimum alone and then wider cells; the cuts are valid
// domain cuts; a heavy cell stays a bin of its own. (The cuts were
// equal-frequency bins before, and a value drawn uniformly inside one
// spread its mass over the equal-width bins it straddled: on Adult the
// hours-per-week one-way TVD read at 16 equal-width bins was 0.043.)
func TestCutsRefineEqualWidthBins(t *testing.T) {
	attrs := []data.Attribute{
		{Name: "continuous", Kind: data.Numeric, Min: -3.5, Max: 12.25},
		{Name: "age", Kind: data.Numeric, Min: 17, Max: 90, Integer: true},
		{Name: "hours", Kind: data.Numeric, Min: 1, Max: 99, Integer: true},
		{Name: "education-num", Kind: data.Numeric, Min: 1, Max: 16, Integer: true},
		{Name: "few", Kind: data.Numeric, Min: 0, Max: 5, Integer: true},
		{Name: "capital-loss", Kind: data.Numeric, Min: 0, Max: 4356, Integer: true},
		{Name: "fnlwgt", Kind: data.Numeric, Min: 0, Max: 1500000, Integer: true},
		{Name: "span-258", Kind: data.Numeric, Min: 10, Max: 267, Integer: true},
		{Name: "signed", Kind: data.Numeric, Min: -10000, Max: 10000, Integer: true},
		{Name: "signed-odd", Kind: data.Numeric, Min: -7, Max: 300, Integer: true},
	}
	src := randx.NewSeeded(3)
	for _, a := range attrs {
		for _, bins := range []int{16, 7} {
			grid := PublicGrid(a, DefaultGrid)
			for trial := range 20 {
				n := 20000.0
				counts := make([]float64, len(grid))
				for i := range counts {
					counts[i] = n/float64(len(grid))*src.Float64()*2 + 30*src.NormFloat64()
				}
				heavy := src.IntN(len(grid))
				counts[heavy] = n / 3
				cuts := BinsFromHistogram(a, grid, counts, n, bins, 30, RefineMeasured).Cuts
				if err := checkCuts(a, cuts); err != nil {
					t.Fatalf("%s, bins %d, trial %d: %v", a.Name, bins, trial, err)
				}
				for _, e := range enginetest.EqualWidthEdges(a, bins) {
					if _, ok := slices.BinarySearch(cuts, e); !ok {
						t.Fatalf("%s, bins %d, trial %d: equal-width edge %v is not among the cuts %v", a.Name, bins, trial, e, cuts)
					}
				}
				if _, ok := slices.BinarySearch(cuts, grid[heavy]); !ok {
					t.Fatalf("%s, bins %d: the heavy cell at %v does not start a bin: %v", a.Name, bins, grid[heavy], cuts)
				}
				if heavy+1 < len(grid) {
					next := grid[heavy+1]
					if k, _ := slices.BinarySearch(cuts, grid[heavy]); k+1 < len(cuts) && cuts[k+1] > next {
						t.Fatalf("%s, bins %d: the heavy cell at %v shares its bin (cuts %v)", a.Name, bins, grid[heavy], cuts)
					}
				}
			}
		}
	}
}

// An integer range that straddles zero gets zero as a cell of its own on
// the public grid, so a column that is mostly zeros keeps them as a point
// mass: Shuttle's V2 is 0 in 62 % of rows in [−10000, 10000], where the
// grid's equal cells are 79 integers wide and 0 shared [−78, 0] with
// its neighbours before. Ranges that do not straddle zero keep the grid
// they had (zero is a cell of its own only when it is the minimum).
func TestPublicGridIsolatesZero(t *testing.T) {
	cases := []struct {
		a        data.Attribute
		zeroCell bool
	}{
		{data.Attribute{Name: "V2", Kind: data.Numeric, Min: -10000, Max: 10000, Integer: true}, true},
		{data.Attribute{Name: "odd", Kind: data.Numeric, Min: -7, Max: 300, Integer: true}, true},
		{data.Attribute{Name: "capital-gain", Kind: data.Numeric, Min: 0, Max: 99999, Integer: true}, true}, // the minimum, alone as before
		{data.Attribute{Name: "negative", Kind: data.Numeric, Min: -5000, Max: -1, Integer: true}, false},
		{data.Attribute{Name: "positive", Kind: data.Numeric, Min: 1, Max: 5000, Integer: true}, false},
	}
	for _, c := range cases {
		t.Run(c.a.Name, func(t *testing.T) {
			grid := PublicGrid(c.a, DefaultGrid)
			i, zero := slices.BinarySearch(grid, 0)
			one := zero && i+1 < len(grid) && grid[i+1] == 1
			if zero != c.zeroCell || one != c.zeroCell {
				t.Fatalf("zero is a cell of its own: %v, want %v (grid %v…)", zero && one, c.zeroCell, grid[:min(8, len(grid))])
			}
			if !slices.IsSorted(grid) || len(slices.Compact(slices.Clone(grid))) != len(grid) {
				t.Fatalf("grid not strictly increasing")
			}
			if !c.zeroCell {
				return
			}
			// 60 % of 40 000 records at zero, the rest spread evenly: the
			// zeros come out as the bin [0, 1).
			n := 40000.0
			counts := make([]float64, len(grid))
			for k := range counts {
				counts[k] = 0.4 * n / float64(len(grid))
			}
			counts[i] += 0.6 * n
			cuts := BinsFromHistogram(c.a, grid, counts, n, DefaultBins, 50, RefineMeasured).Cuts
			k, ok := slices.BinarySearch(cuts, 0)
			if !ok || k+1 >= len(cuts) || cuts[k+1] != 1 {
				t.Fatalf("zero is not a bin of its own: cuts %v", cuts)
			}
		})
	}
}

// Where the noise is larger than the data's thresholds (WDBC: 455 rows,
// 5 % of ρ(ε = 1) split over 30 numeric attributes, σ ≈ 140 per grid
// cell against n/16 ≈ 28 records per equal-width bin), the cuts stay the
// equal-width bins: the noise-blind rule made any cell above n/32 a point
// mass and split spans by the noise's positive part, 162 bins for
// perimeter_worst. An empty cell passes cutZ = 3.5σ with probability
// 2.3·10⁻⁴, so a trial's 256 cells make one false point mass with
// probability about 0.06; the test allows 10 such trials of 50 (false
// failure rate below 10⁻⁴), and checks that the noise-blind rule (σ
// taken as 0) does cut the same histograms into many more bins.
func TestCutsIgnoreNoise(t *testing.T) {
	a := data.Attribute{Name: "perimeter", Kind: data.Numeric, Min: 0, Max: 250}
	grid := PublicGrid(a, DefaultGrid)
	src := randx.NewSeeded(11)
	const n, sigma, trials = 455.0, 140.0, 50
	want := enginetest.EqualWidthEdges(a, DefaultBins)
	extra, blind := 0, 0
	for range trials {
		counts := make([]float64, len(grid))
		for range int(n) {
			counts[40+src.IntN(60)]++ // the values sit in a quarter of the range
		}
		for k := range counts {
			counts[k] += sigma * src.NormFloat64()
		}
		cuts := BinsFromHistogram(a, grid, counts, n, DefaultBins, sigma, RefineMeasured).Cuts
		if err := checkCuts(a, cuts); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(cuts, want) {
			extra++
		}
		blind += len(BinsFromHistogram(a, grid, counts, n, DefaultBins, 0, RefineMeasured).Cuts)
	}
	if extra > 10 {
		t.Errorf("%d of %d pure-noise histograms cut beyond the equal-width bins", extra, trials)
	}
	if mean := float64(blind) / trials; mean < 4*DefaultBins {
		t.Errorf("the noise-blind rule made %.1f bins on average; the test's noise should make it cut far more than %d", mean, DefaultBins)
	}
	// A point mass well clear of the noise is still kept: 3 000 of 4 000
	// records on one cell (21σ).
	counts := make([]float64, len(grid))
	counts[50] = 3000
	for k := range counts {
		counts[k] += 1000.0/float64(len(grid)) + sigma*src.NormFloat64()
	}
	cuts := BinsFromHistogram(a, grid, counts, 4000, DefaultBins, sigma, RefineMeasured).Cuts
	if _, ok := slices.BinarySearch(cuts, grid[50]); !ok || !slices.Contains(cuts, grid[51]) {
		t.Errorf("a point mass of 3000 records (%.0fσ) lost: cuts %v", 3000/sigma, cuts)
	}
}

// A continuous attribute's public values (the minimum, zero inside the
// bounds, the maximum) are cells of their own on the public grid, a heavy
// one becomes a bin (or, with RefineDecoded and a lighter share of its
// equal-width bin, a piece) of its own, and that bin or piece decodes to
// exactly the value: a column that is 0 in 60 % of rows, or at its cap
// in 30 %, keeps that share. On the equal-width grid alone the zeros
// shared the cell [0, 20/256) and decoded uniformly inside it: 0 % zeros.
// The histograms are exact (σ = 0) and the shares drawn from them are
// checked to 0.02: a piece's share is a binomial proportion of 4 000
// draws, off by more than 0.02 with probability below 10⁻⁴.
func TestPublicValuesKeepTheirPointMass(t *testing.T) {
	cases := []struct {
		name  string
		a     data.Attribute
		v     float64 // the point mass
		share float64
		// rest draws the other values.
		rest func(*randx.Source) float64
	}{
		{"zero floor", data.Attribute{Name: "z60", Kind: data.Numeric, Min: 0, Max: 20}, 0, 0.6,
			func(s *randx.Source) float64 { return math.Exp(s.NormFloat64()) }},
		{"zero floor, a piece of its bin", data.Attribute{Name: "light", Kind: data.Numeric, Min: 0, Max: 20}, 0, 0.2,
			func(s *randx.Source) float64 { return 1.25 * s.Float64() }}, // the rest fills the zero's equal-width bin
		{"cap at the maximum", data.Attribute{Name: "capped", Kind: data.Numeric, Min: 0, Max: 10}, 10, 0.3,
			func(s *randx.Source) float64 { return math.Min(10, math.Exp(1+s.NormFloat64())) }},
		{"zero inside signed bounds", data.Attribute{Name: "signed", Kind: data.Numeric, Min: -10, Max: 10}, 0, 0.5,
			func(s *randx.Source) float64 { return 3 * s.NormFloat64() }},
		{"negative floor", data.Attribute{Name: "floor", Kind: data.Numeric, Min: -2.5, Max: 7.5}, -2.5, 0.4,
			func(s *randx.Source) float64 { return -2.5 + 10*s.Float64() }},
		{"integer cap at the maximum", data.Attribute{Name: "icapped", Kind: data.Numeric, Min: 0, Max: 100000, Integer: true}, 100000, 0.3,
			func(s *randx.Source) float64 { return math.Floor(100000 * s.Float64()) }},
	}
	for _, c := range cases {
		for _, refine := range []Refinement{RefineMeasured, RefineDecoded} {
			t.Run(c.name+"/"+string(refine), func(t *testing.T) {
				grid := PublicGrid(c.a, DefaultGrid)
				i, ok := slices.BinarySearch(grid, c.v)
				if !ok || (i+1 < len(grid) && grid[i+1] != nextValue(c.a, c.v)) {
					t.Fatalf("%v is not a cell of its own on the grid (%v…)", c.v, grid[max(0, i-2):min(len(grid), i+3)])
				}
				src := randx.NewSeeded(21)
				const n = 4000
				values := make([]float64, n)
				for k := range values {
					values[k] = c.rest(src)
					if k < int(c.share*n) {
						values[k] = c.v
					}
				}
				chosen := BinsFromHistogram(c.a, grid, GridCounts(c.a, grid, values), n, DefaultBins, 0, refine)
				s := data.Schema{Attributes: []data.Attribute{c.a}}
				var o Options
				o.SetChosen(c.a.Name, chosen)
				dom, err := New(s, o)
				if err != nil {
					t.Fatal(err)
				}
				ds, _, err := dom.Encode(&data.Table{Schema: s, Rows: rowsOf(values)})
				if err != nil {
					t.Fatal(err)
				}
				back, err := dom.Decode(ds, randx.NewSeeded(22))
				if err != nil {
					t.Fatal(err)
				}
				if got, want := shareAt(back.Rows, c.v), shareAt(rowsOf(values), c.v); math.Abs(got-want) > 0.02 {
					t.Errorf("%v in %.3f of the decoded values, %.3f of the real ones (cuts %v…)", c.v, got, want, chosen.Cuts[:min(len(chosen.Cuts), 6)])
				}
				for k, r := range back.Rows {
					if b, _ := dom.Bin(0, r[0]); b != int(ds.Cols[0][k]) {
						t.Fatalf("record %d: bin %d decoded to %v, which lies in bin %d", k, ds.Cols[0][k], r[0], b)
					}
				}
			})
		}
	}
}

// rowsOf makes one-column rows of values.
func rowsOf(values []float64) [][]float64 {
	out := make([][]float64, len(values))
	for i, v := range values {
		out[i] = []float64{v}
	}
	return out
}

// shareAt is the share of rows whose first value is exactly v.
func shareAt(rows [][]float64, v float64) float64 {
	at := 0
	for _, r := range rows {
		if r[0] == v {
			at++
		}
	}
	return float64(at) / float64(len(rows))
}

// TestHeavyZeroStaysCoarseUnderNoise is two columns of zeroinfl's 8 000
// training rows at ε = 0.3 whose zeros lost their own bin in a run:
// pharmacy (5 257 zeros and 270 more amounts in the first of 16
// equal-width bins over [0, 2000], released with σ = 365 a grid cell, one
// owner's default 5 % bin share) and w_thanks (5 224 zeros and 1 792 more
// in [0, 1.25) of [0, 20], σ = 421: three owners of rows, insider-safe).
// The zero must be a measured (coarse) bin of its own, not a piece of the
// bin decoded by noisy weights (48 % zeros against 66 %, 40 % against
// 65 % in the runs that found them). Pharmacy failed "half of its run" in
// 63 of 20 000 trials when the run's mass summed each cell clipped at 0,
// 4 with the noisy total clipped once; w_thanks, whose run's total
// carries σ·√17 ≈ 1 740 of noise against a margin of 1 716, in 2.4 % of
// trials (about 480), until a heavy public value's cell became a coarse
// bin whatever its run holds. Now a trial fails only when the zero's own
// count falls below the heavy threshold 3.5σ, at least 8.9σ below it: the
// test's false-rejection rate is below 10⁻¹⁴.
func TestHeavyZeroStaysCoarseUnderNoise(t *testing.T) {
	for _, tc := range []struct {
		name         string
		max, nearTop float64
		zeros, near  int
		sigma        float64
	}{
		{"pharmacy", 2000, 125, 5257, 270, 365},
		{"w_thanks", 20, 1.25, 5224, 1792, 421},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := data.Attribute{Name: tc.name, Kind: data.Numeric, Min: 0, Max: tc.max, Decimals: 2}
			grid := PublicGrid(a, DefaultGrid)
			src := randx.NewSeeded(37)
			const n = 8000
			values := make([]float64, 0, n)
			for k := 0; k < n; k++ {
				switch {
				case k < tc.zeros:
					values = append(values, 0)
				case k < tc.zeros+tc.near:
					values = append(values, 0.01+(tc.nearTop-0.02)*src.Float64())
				default:
					values = append(values, tc.nearTop+(tc.max-tc.nearTop)*src.Float64())
				}
			}
			exact := GridCounts(a, grid, values)
			failed := 0
			for trial := 0; trial < 20000; trial++ {
				noisy := slices.Clone(exact)
				for i := range noisy {
					noisy[i] += tc.sigma * src.NormFloat64()
				}
				b := BinsFromHistogram(a, grid, noisy, n, DefaultBins, tc.sigma, RefineDecoded)
				if !slices.Contains(b.Cuts, nextValue(a, 0)) {
					failed++
				}
			}
			if failed > 0 {
				t.Errorf("the zeros were a coarse bin of their own in %d of 20000 trials, want all", 20000-failed)
			}
		})
	}
}
