package utility

import (
	"math"
	"testing"

	"github.com/dppub/dppub/data"
)

func TestMarginalTVDKnownAnswer(t *testing.T) {
	s := data.Schema{Attributes: []data.Attribute{
		{Name: "c", Kind: data.Categorical, Categories: []string{"a", "b"}},
		{Name: "x", Kind: data.Numeric, Min: 0, Max: 10},
	}}
	real := &data.Table{Schema: s, Rows: [][]float64{{0, 1}, {0, 9}, {1, 1}, {1, 9}}}
	synth := &data.Table{Schema: s, Rows: [][]float64{{0, 1}, {0, 1}, {0, 1}, {1, 1}}}
	per, mean, err := MarginalTVD(real, synth, 2)
	if err != nil {
		t.Fatal(err)
	}
	// c: real (0.5, 0.5), synth (0.75, 0.25) → 0.25; x: real (0.5, 0.5), synth (1, 0) → 0.5.
	if math.Abs(per["c"]-0.25) > 1e-12 || math.Abs(per["x"]-0.5) > 1e-12 || math.Abs(mean-0.375) > 1e-12 {
		t.Fatalf("tvd %v mean %v", per, mean)
	}
}

// PairTVD is 0 for a table against itself and 1 for two tables whose
// every pair of values differs; it is the mean of the pairs' TVDs.
func TestPairTVD(t *testing.T) {
	s := data.Schema{Attributes: []data.Attribute{
		{Name: "a", Kind: data.Categorical, Categories: []string{"x", "y"}},
		{Name: "b", Kind: data.Numeric, Min: 0, Max: 1},
		{Name: "c", Kind: data.Binary, Categories: []string{"no", "yes"}},
	}}
	one := &data.Table{Schema: s, Rows: [][]float64{{0, 0.1, 0}, {0, 0.2, 0}}}
	other := &data.Table{Schema: s, Rows: [][]float64{{1, 0.9, 1}, {1, 0.8, 1}}}
	for _, c := range []struct {
		name        string
		real, synth *data.Table
		want        float64
	}{
		{"same", one, one, 0},
		{"disjoint", one, other, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := PairTVD(c.real, c.synth, 4)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-c.want) > 1e-12 {
				t.Fatalf("PairTVD = %v, want %v", got, c.want)
			}
		})
	}
}
