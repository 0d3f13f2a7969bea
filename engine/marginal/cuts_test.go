package marginal

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/internal/enginetest"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/randx"
)

// Read at 16 equal-width bins, real Adult rows put through the adaptive
// bins (ChooseCuts at 5 % of ρ(ε = 1), as synthesize.Publish spends it)
// and decoded keep every one-way marginal: the decoding moves no mass
// across an equal-width edge (TVD below 0.001 per attribute; it was
// 0.015–0.044 for the six numeric attributes when a bin could straddle
// an edge; domain.New's default integer bins, equal counts of integers,
// put 39..44 in one bin and move hours-per-week's mass at 40 across the
// edge at 43.875: 0.141).
func TestAdaptiveBinsDecodeAtEqualWidth(t *testing.T) {
	tab, dom, _ := adultAdaptive(t, 1, 1)
	ds, _, err := dom.Encode(tab)
	if err != nil {
		t.Fatal(err)
	}
	back, err := dom.Decode(ds, randx.NewSeeded(2))
	if err != nil {
		t.Fatal(err)
	}
	for j, a := range tab.Schema.Attributes {
		if a.Kind != data.Numeric {
			continue
		}
		if d := equalWidthTVD(tab, back, j, domain.DefaultBins); d > 0.001 {
			t.Errorf("%s: one-way TVD %.4f at %d equal-width bins after decoding (domain size %d)", a.Name, d, domain.DefaultBins, dom.Size(j))
		}
	}
}

// equalWidthTVD is the TVD of attribute j's one-way marginal of two
// tables at bins equal-width bins (categories as they are).
func equalWidthTVD(real, syn *data.Table, j, bins int) float64 {
	a := real.Schema.Attributes[j]
	hist := func(t *data.Table) []float64 {
		size := bins
		if a.Kind != data.Numeric {
			size = len(a.Categories)
		}
		h := make([]float64, size)
		for _, r := range t.Rows {
			b := int(r[j])
			if a.Kind == data.Numeric {
				b = enginetest.EqualWidthBin(a, r[j], bins)
			}
			h[b] += 1 / float64(t.Len())
		}
		return h
	}
	p, q := hist(real), hist(syn)
	s := 0.0
	for i := range p {
		s += math.Abs(p[i] - q[i])
	}
	return s / 2
}

// Counting values in FineEdges' cells and choosing the bins from those
// counts releases the same histogram, with the same draws, as ChooseCuts
// on the values, and the cells recode to the bins the values fall in.
func TestChooseBinsFromFineCells(t *testing.T) {
	cases := []struct {
		name string
		a    data.Attribute
		bins int
		draw func(*randx.Source) float64
	}{
		{"small integer span", data.Attribute{Name: "age", Kind: data.Numeric, Min: 17, Max: 90, Integer: true}, 16,
			func(s *randx.Source) float64 { return 17 + math.Floor(s.Float64()*s.Float64()*74) }},
		{"wide integer span with a point mass", data.Attribute{Name: "gain", Kind: data.Numeric, Min: 0, Max: 99999, Integer: true}, 16,
			func(s *randx.Source) float64 {
				if s.Float64() < 0.9 {
					return 0
				}
				return math.Floor(s.Float64() * 120000) // some above Max: clamped
			}},
		{"continuous", data.Attribute{Name: "w", Kind: data.Numeric, Min: -1, Max: 2.5}, 7,
			func(s *randx.Source) float64 { return -1.2 + 3.9*s.Float64()*s.Float64() }},
		{"continuous with point masses at zero and the maximum", data.Attribute{Name: "z", Kind: data.Numeric, Min: 0, Max: 10}, 16,
			func(s *randx.Source) float64 {
				switch u := s.Float64(); {
				case u < 0.5:
					return 0
				case u < 0.75:
					return 10 + 5*s.Float64() // at the cap, or above it: clamped
				}
				return 10 * s.Float64() * s.Float64()
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := randx.NewSeeded(8)
			values := make([]float64, 5000)
			for i := range values {
				values[i] = c.draw(src)
			}
			s := data.Schema{Attributes: []data.Attribute{c.a}}
			fine := domain.FineEdges(c.a, c.bins, domain.DefaultGrid)
			fd, err := domain.New(s, domain.Options{Cuts: map[string][]float64{c.a.Name: fine}})
			if err != nil {
				t.Fatal(err)
			}
			counts := make([]float64, len(fine))
			codes := make([]int, len(values))
			for i, v := range values {
				codes[i], _ = fd.Bin(0, v)
				counts[codes[i]]++
			}
			want, err := measurement.ChooseCuts(c.a, values, measurement.CutsOptions{Bins: c.bins, Rho: 0.5, Accountant: zcdpAccountant(t, "o", 1), Source: randx.NewSeeded(9)})
			if err != nil {
				t.Fatal(err)
			}
			chosen, err := measurement.ChooseBinsFromFine(c.a, counts, measurement.CutsOptions{Bins: c.bins, Rho: 0.5, Accountant: zcdpAccountant(t, "o", 1), Source: randx.NewSeeded(9), Refine: domain.RefineMeasured})
			got := chosen.Cuts
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("cuts from fine cells %v, from values %v", got, want)
			}
			cd, err := domain.New(s, domain.Options{Cuts: map[string][]float64{c.a.Name: got}})
			if err != nil {
				t.Fatal(err)
			}
			lut, err := domain.Recoding(fd, cd)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range values {
				if b, _ := cd.Bin(0, v); int(lut[0][codes[i]]) != b {
					t.Fatalf("value %v: fine cell %d recodes to bin %d, the value's bin is %d", v, codes[i], lut[0][codes[i]], b)
				}
			}
		})
	}
	// A coarse domain with an edge the fine one lacks cannot be recoded.
	a := cases[0].a
	s := data.Schema{Attributes: []data.Attribute{a}}
	fd, _ := domain.New(s, domain.Options{Cuts: map[string][]float64{a.Name: {17, 30, 60}}})
	cd, _ := domain.New(s, domain.Options{Cuts: map[string][]float64{a.Name: {17, 31}}})
	if _, err := domain.Recoding(fd, cd); err == nil || !strings.Contains(err.Error(), "31") {
		t.Errorf("recoding to an edge the fine domain lacks: error %v", err)
	}
}

// With RefineDecoded the measured cuts are the equal-width edges plus the
// point mass's two ends, and every cut of the measured refinement is a
// piece, weighing its cells' noisy mass: the same release read two ways.
func TestDecodedRefinementMeasuresCoarseBins(t *testing.T) {
	a := data.Attribute{Name: "V2", Kind: data.Numeric, Min: -10000, Max: 10000, Integer: true}
	grid := domain.PublicGrid(a, domain.DefaultGrid)
	src := randx.NewSeeded(5)
	n := 40000.0
	counts := make([]float64, len(grid))
	for k := 100; k < 160; k++ { // the values pile up around zero
		counts[k] = 0.4 * n / 60
	}
	z, _ := slices.BinarySearch(grid, 0)
	counts[z] += 0.6 * n
	for k := range counts {
		counts[k] += 40 * src.NormFloat64()
	}
	measured := domain.BinsFromHistogram(a, grid, counts, n, domain.DefaultBins, 40, domain.RefineMeasured)
	decoded := domain.BinsFromHistogram(a, grid, counts, n, domain.DefaultBins, 40, domain.RefineDecoded)
	if measured.Pieces != nil || decoded.Pieces == nil {
		t.Fatalf("pieces: measured %v, decoded %v", measured.Pieces != nil, decoded.Pieces != nil)
	}
	if !slices.Equal(decoded.Pieces.Edges, measured.Cuts) {
		t.Fatalf("pieces %v differ from the measured cuts %v", decoded.Pieces.Edges, measured.Cuts)
	}
	want := append(enginetest.EqualWidthEdges(a, domain.DefaultBins), 1)
	slices.Sort(want)
	if !slices.Equal(decoded.Cuts, want) {
		t.Fatalf("decoded cuts %v, want the equal-width edges and the zero's ends %v", decoded.Cuts, want)
	}
	if len(measured.Cuts) <= len(decoded.Cuts) {
		t.Fatalf("the refinement cut only %d bins against %d measured: the test needs a finer one", len(measured.Cuts), len(decoded.Cuts))
	}
	total, positive := 0.0, 0.0
	for _, c := range counts {
		positive += math.Max(c, 0)
	}
	for _, w := range decoded.Pieces.Weights {
		total += w
	}
	if math.Abs(total-positive) > 1e-6*positive {
		t.Errorf("pieces weigh %v, the histogram's positive mass is %v", total, positive)
	}
	if _, err := domain.New(data.Schema{Attributes: []data.Attribute{a}}, domain.Options{
		Cuts: map[string][]float64{a.Name: decoded.Cuts}, Within: map[string]domain.Pieces{a.Name: *decoded.Pieces}}); err != nil {
		t.Fatalf("the decoded bins are not a valid domain: %v", err)
	}
}
