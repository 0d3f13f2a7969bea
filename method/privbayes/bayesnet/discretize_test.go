package bayesnet

import (
	"math"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/randx"
)

func TestDiscretizeAdult(t *testing.T) {
	tab, err := datasets.Load("adult")
	if err != nil {
		t.Fatal(err)
	}
	z, err := NewDiscretizer(tab.Schema, DiscretizeOptions{Bins: 8})
	if err != nil {
		t.Fatal(err)
	}
	// age [17,90] → its minimum and 8 bins; education-num [1,16] has
	// 16 > 8 values → its minimum and 8 bins; income is binary.
	cards := z.Cards()
	if cards[0] != 9 || cards[3] != 16 || cards[4] != 9 || cards[14] != 2 || cards[13] != 41 {
		t.Errorf("cards %v", cards)
	}
	d, clamped, err := z.Discretize(tab)
	if err != nil {
		t.Fatal(err)
	}
	if clamped != 0 || d.N != float64(tab.Len()) {
		t.Errorf("clamped %d, N %v", clamped, d.N)
	}
	// Decoding a code and encoding it again gives the same code, and the
	// decoded table is valid.
	rows := make([][]int, 0, 200)
	for i := range 200 {
		rows = append(rows, d.Rows[i])
	}
	back := z.Undiscretize(rows, randx.NewSeeded(1))
	if err := back.Validate(); err != nil {
		t.Fatal(err)
	}
	again, _, err := z.Discretize(back)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		for j, c := range d.Rows[i] {
			if again.Marginal([]int{j}).Counts[c] == 0 {
				t.Fatalf("row %d attribute %d: code %d lost on the round trip", i, j, c)
			}
		}
	}
	for i, r := range back.Rows {
		for j, v := range r {
			c, _, _ := z.code(j, v)
			if c != rows[i][j] {
				t.Fatalf("row %d attribute %q: code %d decoded to %v, re-encoded to %d", i, tab.Schema.Attributes[j].Name, rows[i][j], v, c)
			}
		}
	}
}

func TestDiscretizeSmallIntegerAndClamp(t *testing.T) {
	s := data.Schema{Attributes: []data.Attribute{
		{Name: "n", Kind: data.Numeric, Min: 1, Max: 4, Integer: true},
		{Name: "x", Kind: data.Numeric, Min: 0, Max: 1},
	}}
	z, err := NewDiscretizer(s, DiscretizeOptions{Bins: 4})
	if err != nil {
		t.Fatal(err)
	}
	tab := &data.Table{Schema: s, Rows: [][]float64{{1, 0}, {4, 1}, {3, 0.49}, {9, -2}}}
	d, clamped, err := z.Discretize(tab)
	if err != nil {
		t.Fatal(err)
	}
	if clamped != 2 {
		t.Errorf("clamped %d values, want 2", clamped)
	}
	// x: code 0 is the point 0, codes 1–4 the bins of width 0.25.
	want := map[[2]int]bool{{0, 0}: true, {3, 4}: true, {2, 2}: true, {3, 0}: true}
	for _, r := range d.Rows {
		if !want[[2]int{r[0], r[1]}] {
			t.Errorf("unexpected codes %v", r)
		}
	}
}

// Every code of attributes with point masses decodes to a value that
// encodes back to it: the points to themselves, the bins (drawn 200 times
// each) never to a point. An integer bin holding a point draws only its
// other integers.
func TestDiscretizePointMassesRoundTrip(t *testing.T) {
	s := data.Schema{Attributes: []data.Attribute{
		{Name: "gain", Kind: data.Numeric, Min: 0, Max: 99999, Integer: true},
		{Name: "delta", Kind: data.Numeric, Min: -5, Max: 5, Integer: true},
		{Name: "x", Kind: data.Numeric, Min: -1, Max: 3},
	}}
	z, err := NewDiscretizer(s, DiscretizeOptions{Bins: 4})
	if err != nil {
		t.Fatal(err)
	}
	if got := z.Cards(); got[0] != 5 || got[1] != 6 || got[2] != 6 {
		t.Fatalf("cards %v, want [5 6 6] (points {0}, {-5, 0}, {-1, 0} and 4 bins each)", got)
	}
	points := map[string][]float64{"gain": {0}, "delta": {-5, 0}, "x": {-1, 0}}
	src := randx.NewSeeded(5)
	for j, a := range s.Attributes {
		t.Run(a.Name, func(t *testing.T) {
			for c := range z.Cards()[j] {
				for range 200 {
					v := z.value(j, c, src)
					if back, _, _ := z.code(j, v); back != c {
						t.Fatalf("code %d decoded to %v, which encodes to %d", c, v, back)
					}
					if c < len(points[a.Name]) && v != points[a.Name][c] {
						t.Fatalf("point code %d decoded to %v, want %v", c, v, points[a.Name][c])
					}
					if a.Integer && v != math.Trunc(v) {
						t.Fatalf("integer attribute decoded to %v", v)
					}
				}
			}
		})
	}
}
