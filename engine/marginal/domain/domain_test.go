package domain

import (
	"math"
	"slices"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/randx"
)

func testSchema() data.Schema {
	return data.Schema{Attributes: []data.Attribute{
		{Name: "age", Kind: data.Numeric, Min: 0, Max: 99, Integer: true},
		{Name: "score", Kind: data.Numeric, Min: -1, Max: 1},
		{Name: "colour", Kind: data.Categorical, Categories: []string{"red", "green", "blue"}},
		{Name: "smoker", Kind: data.Binary, Categories: []string{"no", "yes"}},
		{Name: "grade", Kind: data.Numeric, Min: 1, Max: 5, Integer: true},
	}}
}

func TestDomainSizesAndBins(t *testing.T) {
	d, err := New(testSchema(), Options{Bins: 10, BinsFor: map[string]int{"score": 4}})
	if err != nil {
		t.Fatal(err)
	}
	// age: 100 integers in 10 bins of 10; score: 4 bins of width 0.5;
	// grade: 5 integers < 10 bins, so one bin per value.
	want := []int{10, 4, 3, 2, 5}
	for j, w := range want {
		if d.Size(j) != w {
			t.Errorf("size of %s = %d, want %d", d.Name(j), d.Size(j), w)
		}
	}
	cases := []struct {
		attr    int
		v       float64
		bin     int
		clamped bool
	}{
		{0, 0, 0, false}, {0, 9, 0, false}, {0, 10, 1, false}, {0, 99, 9, false}, {0, 120, 9, true}, {0, -3, 0, true},
		{1, -1, 0, false}, {1, -0.5, 1, false}, {1, 0.49, 2, false}, {1, 1, 3, false}, {1, 7, 3, true},
		{2, 2, 2, false}, {4, 1, 0, false}, {4, 5, 4, false},
	}
	for _, c := range cases {
		b, cl := d.Bin(c.attr, c.v)
		if b != c.bin || cl != c.clamped {
			t.Errorf("Bin(%s, %v) = %d, %v; want %d, %v", d.Name(c.attr), c.v, b, cl, c.bin, c.clamped)
		}
	}
}

// Every integer of an integer attribute falls in exactly the bin whose
// BinRange contains it, for awkward ratios of span to bins.
func TestIntegerBinRangesPartition(t *testing.T) {
	for _, bins := range []int{1, 3, 7, 16, 73, 74} {
		s := data.Schema{Attributes: []data.Attribute{{Name: "age", Kind: data.Numeric, Min: 17, Max: 90, Integer: true}}}
		d, err := New(s, Options{Bins: bins})
		if err != nil {
			t.Fatal(err)
		}
		next := 17.0
		for b := range d.Size(0) {
			lo, hi := d.BinRange(0, b)
			if lo != next || hi < lo {
				t.Fatalf("bins=%d: bin %d covers %v..%v, want to start at %v", bins, b, lo, hi, next)
			}
			for v := lo; v <= hi; v++ {
				if got, _ := d.Bin(0, v); got != b {
					t.Fatalf("bins=%d: %v is in bin %d, BinRange says %d", bins, v, got, b)
				}
			}
			next = hi + 1
		}
		if next != 91 {
			t.Fatalf("bins=%d: bins end at %v, want 90", bins, next-1)
		}
	}
}

// An integer attribute's equal-width bins are the continuous rule
// ⌊(v − Min)/(Max − Min)·bins⌋ (Max in the last bin) applied to its
// integers: the bins utility and quality score with, and the equal-width
// edges FineEdges and measurement.ChooseCuts refine. With another rule a point mass on
// an edge is measured in one bin and scored in the next: Shuttle's V2
// (−10000..10000, 0 in 82 % of rows) put 0 in bin 7 (−1249..0), its
// decoded values in 7 while the scoring counted the real zeros in 8.
func TestIntegerBinsAreTheContinuousRule(t *testing.T) {
	cases := []struct {
		name     string
		min, max float64
		bins     int
		v        float64
		bin      int
	}{
		{"shuttle zero", -10000, 10000, 16, 0, 8},
		{"shuttle below zero", -10000, 10000, 16, -1, 7},
		{"shuttle max", -10000, 10000, 16, 10000, 15},
		{"one more integer than bins", 0, 16, 16, 16, 15},
		{"age", 17, 90, 16, 22, 1},
		{"one bin per value", 1, 5, 16, 3, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := data.Attribute{Name: "x", Kind: data.Numeric, Min: c.min, Max: c.max, Integer: true}
			d, err := New(data.Schema{Attributes: []data.Attribute{a}}, Options{Bins: c.bins})
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := d.Bin(0, c.v); got != c.bin {
				t.Fatalf("Bin(%v) = %d, want %d", c.v, got, c.bin)
			}
			fine := FineEdges(a, c.bins, DefaultGrid)
			for v := c.min; v <= c.max; v += math.Max(1, math.Floor((c.max-c.min)/4000)) {
				got, _ := d.Bin(0, v)
				want := int((v - c.min) / (c.max - c.min) * float64(d.Size(0)))
				if d.Size(0) == int(c.max-c.min)+1 {
					want = int(v - c.min)
				}
				if want = min(want, d.Size(0)-1); got != want {
					t.Fatalf("Bin(%v) = %d, the continuous rule says %d", v, got, want)
				}
				if lo, _ := d.BinRange(0, got); v == lo && !slices.Contains(fine, lo) {
					t.Fatalf("bin %d starts at %v, not an edge FineEdges refines (%v…)", got, lo, fine[:min(len(fine), 8)])
				}
			}
		})
	}
}

func TestEncodeDecode(t *testing.T) {
	s := testSchema()
	d, err := New(s, Options{Bins: 10})
	if err != nil {
		t.Fatal(err)
	}
	tab := &data.Table{Schema: s, Rows: [][]float64{
		{34, 0.3, 2, 1, 3},
		{150, -2, 0, 0, 5}, // two values outside the bounds
	}}
	ds, st, err := d.Encode(tab)
	if err != nil {
		t.Fatal(err)
	}
	if st.Clamped != 2 {
		t.Errorf("clamped %d values, want 2", st.Clamped)
	}
	if ds.Cols[0][0] != 3 || ds.Cols[0][1] != 9 || ds.Cols[1][1] != 0 || ds.Cols[2][0] != 2 || ds.Cols[4][1] != 4 {
		t.Errorf("unexpected cells %v", ds.Cols)
	}
	out, err := d.Decode(ds, randx.NewSeeded(1))
	if err != nil {
		t.Fatal(err)
	}
	if err := out.Validate(); err != nil {
		t.Fatal(err)
	}
	for i := range tab.Rows {
		for j := range s.Attributes {
			b, _ := d.Bin(j, out.Rows[i][j])
			if b != int(ds.Cols[j][i]) {
				t.Errorf("decoded %v of %s lies in bin %d, not %d", out.Rows[i][j], d.Name(j), b, ds.Cols[j][i])
			}
		}
		if a := out.Rows[i][0]; a != math.Trunc(a) {
			t.Errorf("integer attribute decoded to %v", a)
		}
		if out.Rows[i][2] != tab.Rows[i][2] || out.Rows[i][4] != tab.Rows[i][4] {
			t.Errorf("categorical or one-value bins changed: %v vs %v", out.Rows[i], tab.Rows[i])
		}
	}
}

func TestDomainErrors(t *testing.T) {
	s := testSchema()
	for name, o := range map[string]Options{
		"negative bins":      {Bins: -1},
		"too many bins":      {Bins: 1 << 17},
		"bins of categories": {BinsFor: map[string]int{"colour": 3}},
		"bins of unknown":    {BinsFor: map[string]int{"height": 3}},
		"zero bins for one":  {BinsFor: map[string]int{"score": 0}},
	} {
		if _, err := New(s, o); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	d, _ := New(s, Options{})
	other := &data.Table{Schema: data.Schema{Attributes: s.Attributes[:2]}}
	if _, _, err := d.Encode(other); err == nil {
		t.Error("encoding a table of another schema: no error")
	}
}

// Pieces only change where a value is drawn inside its bin: with age's
// bin 0..24 split into the single value 0 (weight 9), 1..9 (weight 1)
// and 10..24 (weight 0), decoding bin 0 gives 0 nine times in ten,
// never 10..24, and the other bins stay uniform. 4 000 draws: the share
// of zeros has standard deviation 0.0047, so the test allows ±0.03
// (6σ; false failure rate below 10⁻⁸).
func TestPiecesDrawInsideTheBin(t *testing.T) {
	s := testSchema()
	d, err := New(s, Options{Bins: 4, Within: map[string]Pieces{
		"age": {Edges: []float64{0, 1, 10, 25, 50, 75}, Weights: []float64{9, 1, 0, 1, 1, 1}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	const n = 4000
	ds := NewDataset(d.Sizes(), n)
	for i := range n {
		ds.Cols[0][i] = uint16(i % 2 * 3) // bins 0 and 3 of age
	}
	back, err := d.Decode(ds, randx.NewSeeded(4))
	if err != nil {
		t.Fatal(err)
	}
	zeros, high := 0, []float64{}
	for i, r := range back.Rows {
		v := r[0]
		switch {
		case i%2 == 0 && v == 0:
			zeros++
		case i%2 == 0 && v >= 10:
			t.Fatalf("bin 0 decoded to %v, in a piece of weight 0", v)
		case i%2 == 1:
			high = append(high, v)
		}
	}
	if share := float64(zeros) / (n / 2); math.Abs(share-0.9) > 0.03 {
		t.Errorf("share of zeros in bin 0: %.3f, want 0.9", share)
	}
	if lo, hi := slices.Min(high), slices.Max(high); lo < 75 || hi > 99 || hi-lo < 20 {
		t.Errorf("bin 3 decoded over [%v, %v], want spread over 75..99", lo, hi)
	}
}

func TestPiecesErrors(t *testing.T) {
	s := testSchema()
	for name, p := range map[string]Pieces{
		"bin edge missing":   {Edges: []float64{0, 1, 30, 50, 75}, Weights: []float64{1, 1, 1, 1, 1}},
		"weights short":      {Edges: []float64{0, 25, 50, 75}, Weights: []float64{1, 1, 1}},
		"negative weight":    {Edges: []float64{0, 25, 50, 75}, Weights: []float64{1, -1, 1, 1}},
		"NaN weight":         {Edges: []float64{0, 25, 50, 75}, Weights: []float64{1, math.NaN(), 1, 1}},
		"not from minimum":   {Edges: []float64{1, 25, 50, 75}, Weights: []float64{1, 1, 1, 1}},
		"edges not integers": {Edges: []float64{0, 12.5, 25, 50, 75}, Weights: []float64{1, 1, 1, 1, 1}},
	} {
		if _, err := New(s, Options{Bins: 4, Within: map[string]Pieces{"age": p}}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := New(s, Options{Within: map[string]Pieces{"height": {Edges: []float64{0}, Weights: []float64{1}}}}); err == nil {
		t.Error("pieces of an unknown attribute: no error")
	}
}

// A continuous bin that holds one value, [v, Nextafter(v, +∞)) or the
// maximum's [Max, Max] (singleValueEdges), decodes to exactly v, every
// time; a uniform draw inside [0, 5e-324) gave 5e-324, a value of the
// next bin, in half of the draws.
func TestSingleValueBinsDecodeExactly(t *testing.T) {
	a := data.Attribute{Name: "x", Kind: data.Numeric, Min: 0, Max: 10}
	s := data.Schema{Attributes: []data.Attribute{a}}
	cuts := append([]float64{0, math.Nextafter(0, 1), 5}, 10)
	dom, err := New(s, Options{Cuts: map[string][]float64{"x": cuts}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		v   float64
		bin int
	}{{0, 0}, {10, 3}, {12, 3}} {
		if b, _ := dom.Bin(0, c.v); b != c.bin {
			t.Fatalf("value %v in bin %d, want %d", c.v, b, c.bin)
		}
		ds := NewDataset(dom.Sizes(), 1000)
		for i := range ds.Cols[0] {
			ds.Cols[0][i] = uint16(c.bin)
		}
		back, err := dom.Decode(ds, randx.NewSeeded(4))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range back.Rows {
			if want := math.Min(c.v, a.Max); r[0] != want {
				t.Fatalf("bin %d decoded to %v, want %v", c.bin, r[0], want)
			}
		}
	}
	if b, _ := dom.Bin(0, math.Nextafter(10, 0)); b != 2 {
		t.Errorf("the value below the maximum is in bin %d, want 2", b)
	}
}

// With PublicValueBins an attribute without Cuts gets its equal-width
// bins with the minimum, the maximum and 0 inside the bounds each a bin
// of its own, which decodes to that value; every other bin is the part of
// an equal-width bin the public values leave; an integer attribute whose
// bins already hold one value each keeps them; and every edge is an edge
// of the public grid or of the equal-width bins, so a fine domain
// (FineEdges plus the equal-width edges, ownerstats) can be recoded to it.
func TestPublicValueBins(t *testing.T) {
	cases := []struct {
		a    data.Attribute
		size int
	}{
		{data.Attribute{Name: "floor", Kind: data.Numeric, Min: 0, Max: 20}, 18},
		{data.Attribute{Name: "signed", Kind: data.Numeric, Min: -10, Max: 10}, 19},
		{data.Attribute{Name: "odd", Kind: data.Numeric, Min: -3, Max: 10.5}, 20}, // 0 inside an equal-width bin splits it in three
		{data.Attribute{Name: "age", Kind: data.Numeric, Min: 17, Max: 90, Integer: true}, 18},
		{data.Attribute{Name: "gain", Kind: data.Numeric, Min: 0, Max: 99999, Integer: true}, 18},
		{data.Attribute{Name: "few", Kind: data.Numeric, Min: 0, Max: 9, Integer: true}, 10},
	}
	for _, c := range cases {
		t.Run(c.a.Name, func(t *testing.T) {
			s := data.Schema{Attributes: []data.Attribute{c.a}}
			dom, err := New(s, Options{PublicValueBins: true})
			if err != nil {
				t.Fatal(err)
			}
			eq, err := New(s, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if dom.Size(0) != c.size {
				t.Fatalf("%d bins, want %d", dom.Size(0), c.size)
			}
			allowed := FineEdges(c.a, DefaultBins, DefaultGrid)
			for b := range eq.Size(0) {
				lo, _ := eq.BinRange(0, b)
				allowed = append(allowed, lo)
			}
			slices.Sort(allowed)
			for b := range dom.Size(0) {
				lo, _ := dom.BinRange(0, b)
				if _, ok := slices.BinarySearch(allowed, lo); !ok {
					t.Fatalf("bin %d starts at %v, neither a grid edge nor an equal-width one", b, lo)
				}
			}
			src := randx.NewSeeded(6)
			for _, v := range PublicValues(c.a) {
				b, _ := dom.Bin(0, v)
				for range 50 {
					if got := dom.decodeCell(0, b, src); got != v {
						t.Fatalf("the bin of %v decodes to %v", v, got)
					}
				}
			}
		})
	}
}
