package data_test

import (
	"math"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
)

// The row encoder refuses a categorical or binary cell that is not a
// category index, naming the attribute and the value, and accepts every
// index.
func TestRowEncoderRefusesBadCells(t *testing.T) {
	s := data.Schema{Attributes: []data.Attribute{
		{Name: "color", Kind: data.Categorical, Categories: []string{"red", "green", "blue"}},
		{Name: "yes", Kind: data.Binary, Categories: []string{"no", "yes"}},
	}}
	enc, err := data.NewEncoder(s, data.EncoderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	re, err := enc.RowEncoder(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		row  []float64
		want string // "" accepts
	}{
		{"first", []float64{0, 0}, ""},
		{"last", []float64{2, 1}, ""},
		{"past the end", []float64{3, 0}, `"color" holds 3`},
		{"negative", []float64{-1, 0}, `"color" holds -1`},
		{"fraction", []float64{1.5, 0}, `"color" holds 1.5`},
		{"NaN", []float64{math.NaN(), 0}, `"color" holds NaN`},
		{"binary 2", []float64{0, 2}, `"yes" holds 2`},
		{"binary half", []float64{0, 0.5}, `"yes" holds 0.5`},
	} {
		t.Run(c.name, func(t *testing.T) {
			idx, val, _, err := re.Sparse(c.row, nil, nil)
			if c.want == "" {
				if err != nil || len(idx) != 1+int(c.row[1]) || idx[0] != int(c.row[0]) || val[0] != 1 {
					t.Fatalf("Sparse(%v) = %v, %v, %v", c.row, idx, val, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Sparse(%v): error %v, want one with %q", c.row, err, c.want)
			}
		})
	}
}
