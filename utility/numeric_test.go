package utility

import (
	"math"
	"testing"
)

// W1KS of two sorted samples, the first counted by Histogram, against
// distances worked out by hand.
func TestW1KS(t *testing.T) {
	grid := func(n int, shift float64) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(i)/float64(n) + shift
		}
		return v
	}
	cases := []struct {
		name   string
		x, y   []float64
		w1, ks float64
	}{
		{"identical", []float64{0, 1, 2}, []float64{0, 1, 2}, 0, 0},
		{"two points", []float64{0}, []float64{1}, 1, 1},
		{"same law, other sizes", []float64{0, 0, 1, 1}, []float64{0, 1}, 0, 0},
		{"half moved", []float64{0, 0}, []float64{0, 2}, 1, 0.5},
		// A shift by s moves every quantile by s: W1 = s; KS = 0.11 (the
		// grid points 0, 0.01, ..., 0.10 lie below the shifted sample).
		{"shift", grid(100, 0), grid(100, 0.105), 0.105, 0.11},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w1, ks := W1KS(Histogram(c.x), c.y)
			if math.Abs(w1-c.w1) > 1e-9 || math.Abs(ks-c.ks) > 1e-9 {
				t.Fatalf("w1 %v ks %v, want %v %v", w1, ks, c.w1, c.ks)
			}
		})
	}
}
