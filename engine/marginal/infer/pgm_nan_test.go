package infer

import (
	"math"
	"slices"
	"testing"
)

// A fitting step that overflows or underflows every potential must leave
// a usable model: with counts of 24 records and noise of σ ≈ 10 (ρ =
// 0.02 on a tiny table) a step could once turn the model's marginals into
// NaN, which selection then refused.
func TestNormaliseToNeverReturnsNaN(t *testing.T) {
	cases := map[string][]float64{
		"all zero":     {0, 0, 0, 0},
		"overflowed":   {math.Inf(1), 1, 2, 3},
		"nan":          {math.NaN(), 1, 2, 3},
		"ordinary":     {1, 2, 3, 4},
		"one non-zero": {0, 0, 5, 0},
	}
	for name, v := range cases {
		t.Run(name, func(t *testing.T) {
			normaliseTo(v, 24)
			s := 0.0
			for _, x := range v {
				if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
					t.Fatalf("entry %v", x)
				}
				s += x
			}
			if math.Abs(s-24) > 1e-9 {
				t.Fatalf("sum %v, want 24", s)
			}
		})
	}
	v := []float64{math.Inf(1), 1}
	rescale(v)
	if !math.IsInf(v[0], 1) || v[1] != 1 {
		t.Fatalf("rescale by an infinite top changed %v", v)
	}
}

// A separator cell both cliques make all but impossible (log-potentials
// near −745, past float64's smallest normal number) sends a subnormal
// message up while the parent's belief there underflows to 0: the
// downward pass once computed 0·(k/v) = 0·∞ = NaN there and left NaN
// beliefs in the child, which a later selection refused (Big5 at ε = 1,
// seed 2100). The beliefs must stay finite, sum to the total, and put
// all the mass on the other separator value.
func TestCalibrateSubnormalMessage(t *testing.T) {
	sizes := []int{2, 2, 2}
	const total = 100
	m := newModel(sizes, [][]int{{0, 1}, {1, 2}}, total)
	// Cells are laid out last attribute fastest: attribute 1 is 1 in cells
	// 1 and 3 of {0, 1} and in cells 2 and 3 of {1, 2}.
	for r, cells := range [][2]int{{1, 3}, {2, 3}} {
		m.theta[r].Counts[cells[0]], m.theta[r].Counts[cells[1]] = -740, -745
	}
	m.propagate()
	for c, b := range m.belief {
		sum, ones := 0.0, 0.0
		for x, v := range b.Counts {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				t.Fatalf("clique %v: belief %v", b.Attrs, b.Counts)
			}
			sum += v
			if i := slices.Index(b.Attrs, 1); (x>>(len(b.Attrs)-1-i))&1 == 1 {
				ones += v
			}
		}
		if math.Abs(sum-total) > 1e-9*total || ones > 1e-9 {
			t.Errorf("clique %d %v: belief %v sums to %v with %v on attribute 1 = 1", c, b.Attrs, b.Counts, sum, ones)
		}
	}
}
