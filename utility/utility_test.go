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
