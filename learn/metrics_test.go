package learn

import "testing"

// MajorityShare is the accuracy of always predicting the most common class.
func TestMajorityShare(t *testing.T) {
	for _, c := range []struct {
		name string
		y    []int
		want float64
	}{
		{"no labels", nil, 0},
		{"one class", []int{1, 1, 1}, 1},
		{"three of four", []int{0, 1, 1, 1}, 0.75},
		{"tie", []int{2, 0, 2, 0}, 0.5},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := MajorityShare(c.y); got != c.want {
				t.Errorf("MajorityShare(%v) = %v, want %v", c.y, got, c.want)
			}
		})
	}
}
