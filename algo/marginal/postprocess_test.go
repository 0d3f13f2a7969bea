package marginal

import (
	"math"
	"testing"

	"github.com/dppub/dppub/randx"
)

func TestNormSub(t *testing.T) {
	cases := []struct {
		in    []float64
		total float64
		want  []float64
	}{
		{[]float64{3, -1, 1}, 3, []float64{2.5, 0, 0.5}},        // θ = 0.5
		{[]float64{1, 1, 1, 1}, 8, []float64{2, 2, 2, 2}},       // θ = −1
		{[]float64{-5, -1, -3}, 2, []float64{0, 2, 0}},          // all negative
		{[]float64{0.2, 0.7, 0.1}, 1, []float64{0.2, 0.7, 0.1}}, // already feasible
		{[]float64{4, 2}, 0, []float64{0, 0}},
	}
	for _, c := range cases {
		got := append([]float64(nil), c.in...)
		NormSub(got, c.total)
		for i := range got {
			if math.Abs(got[i]-c.want[i]) > 1e-12 {
				t.Errorf("NormSub(%v, %v) = %v, want %v", c.in, c.total, got, c.want)
				break
			}
		}
	}
}

func TestMerge(t *testing.T) {
	a := &Noisy{Marginal: &Marginal{Attrs: []int{0}, Sizes: []int{2}, Counts: []float64{10, 0}}, Variance: 1}
	b := &Noisy{Marginal: &Marginal{Attrs: []int{0}, Sizes: []int{2}, Counts: []float64{4, 6}}, Variance: 3}
	m, err := Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	// Weights 1 and 1/3: (10 + 4/3)/(4/3) = 8.5, (0 + 2)/(4/3) = 1.5.
	if math.Abs(m.Counts[0]-8.5) > 1e-12 || math.Abs(m.Counts[1]-1.5) > 1e-12 || math.Abs(m.Variance-0.75) > 1e-12 {
		t.Errorf("merged %v variance %v", m.Counts, m.Variance)
	}
	c := &Noisy{Marginal: &Marginal{Attrs: []int{1}, Sizes: []int{2}, Counts: []float64{1, 1}}, Variance: 1}
	if _, err := Merge(a, c); err == nil {
		t.Error("merging different attribute sets: no error")
	}
}

// Noisy marginals (0,1), (1,2) and (1) of a real dataset come out
// non-negative, summing to n, agreeing on attribute 1, and closer to the
// truth than before.
func TestConsistent(t *testing.T) {
	src := randx.NewSeeded(7)
	ds := randomDataset([]int{3, 4, 5}, 3000, 0.6, src)
	n := float64(ds.Len())
	var noisy []*Noisy
	var exact []*Marginal
	before := 0.0
	for _, attrs := range [][]int{{0, 1}, {1, 2}, {1}} {
		m, _ := Count(ds, attrs)
		exact = append(exact, m.Clone())
		for c := range m.Counts {
			m.Counts[c] += 20 * src.NormFloat64()
			before += math.Abs(m.Counts[c] - exact[len(exact)-1].Counts[c])
		}
		noisy = append(noisy, &Noisy{Marginal: m, Variance: 400})
	}
	if err := Consistent(noisy, ConsistencyOptions{Total: n, Rounds: 3}); err != nil {
		t.Fatal(err)
	}
	after := 0.0
	for i, m := range noisy {
		if math.Abs(m.Total()-n) > 1e-6 {
			t.Errorf("%v sums to %v, want %v", m.Attrs, m.Total(), n)
		}
		for c, v := range m.Counts {
			if v < 0 {
				t.Fatalf("%v has a negative cell %v", m.Attrs, v)
			}
			after += math.Abs(v - exact[i].Counts[c])
		}
	}
	if after >= before {
		t.Errorf("post-processing raised the L1 error from %v to %v", before, after)
	}
	p0, _ := noisy[0].Project([]int{1})
	p1, _ := noisy[1].Project([]int{1})
	for c := range p0.Counts {
		// The last NormSub may undo a little agreement; the counts are
		// in the hundreds, so a gap of 1 is 0.1–0.3%.
		if d := math.Abs(p0.Counts[c] - p1.Counts[c]); d > 1 || math.Abs(p0.Counts[c]-noisy[2].Counts[c]) > 1 {
			t.Errorf("attribute 1 disagrees: %v / %v / %v", p0.Counts, p1.Counts, noisy[2].Counts)
			break
		}
	}
	dup := []*Noisy{noisy[2], {Marginal: noisy[2].Clone(), Variance: 1}}
	if err := Consistent(dup, ConsistencyOptions{Total: n}); err == nil {
		t.Error("duplicate attribute sets: no error")
	}
}
