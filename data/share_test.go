package data

import "testing"

// Share counts exact values only: 0 in two of four rows, 0.5 in none
// (0.5 lies between rows' values), and an unknown column is an error.
func TestTableShare(t *testing.T) {
	tab := &Table{Schema: Schema{Attributes: []Attribute{{Name: "x", Kind: Numeric, Min: 0, Max: 2}}},
		Rows: [][]float64{{0}, {1}, {0}, {2}}}
	for _, c := range []struct {
		v, want float64
	}{{0, 0.5}, {2, 0.25}, {0.5, 0}} {
		got, err := tab.Share("x", c.v)
		if err != nil || got != c.want {
			t.Errorf("Share(x, %v) = %v, %v; want %v", c.v, got, err, c.want)
		}
	}
	if _, err := tab.Share("y", 0); err == nil {
		t.Error("an unknown column was accepted")
	}
}
