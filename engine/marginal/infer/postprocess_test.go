package infer

import (
	"math"
	"testing"

	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/internal/domaintest"
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
	a := &Noisy{Marginal: &domain.Marginal{Attrs: []int{0}, Sizes: []int{2}, Counts: []float64{10, 0}}, Variance: 1}
	b := &Noisy{Marginal: &domain.Marginal{Attrs: []int{0}, Sizes: []int{2}, Counts: []float64{4, 6}}, Variance: 3}
	m, err := Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	// Weights 1 and 1/3: (10 + 4/3)/(4/3) = 8.5, (0 + 2)/(4/3) = 1.5.
	if math.Abs(m.Counts[0]-8.5) > 1e-12 || math.Abs(m.Counts[1]-1.5) > 1e-12 || math.Abs(m.Variance-0.75) > 1e-12 {
		t.Errorf("merged %v variance %v", m.Counts, m.Variance)
	}
	c := &Noisy{Marginal: &domain.Marginal{Attrs: []int{1}, Sizes: []int{2}, Counts: []float64{1, 1}}, Variance: 1}
	if _, err := Merge(a, c); err == nil {
		t.Error("merging different attribute sets: no error")
	}
}

// Noisy marginals (0,1), (1,2) and (1) of a real dataset come out
// non-negative, summing to n, agreeing on attribute 1, and closer to the
// truth than before.
func TestConsistent(t *testing.T) {
	src := randx.NewSeeded(7)
	ds := domaintest.RandomDataset([]int{3, 4, 5}, 3000, 0.6, src)
	n := float64(ds.Len())
	var noisy []*Noisy
	var exact []*domain.Marginal
	before := 0.0
	for _, attrs := range [][]int{{0, 1}, {1, 2}, {1}} {
		m, _ := domain.Count(ds, attrs)
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
		// Raking leaves them agreeing (to its convergence; the counts
		// are in the hundreds).
		if d := math.Abs(p0.Counts[c] - p1.Counts[c]); d > 1e-3 || math.Abs(p0.Counts[c]-noisy[2].Counts[c]) > 1e-3 {
			t.Errorf("attribute 1 disagrees: %v / %v / %v", p0.Counts, p1.Counts, noisy[2].Counts)
			break
		}
	}
	dup := []*Noisy{noisy[2], {Marginal: noisy[2].Clone(), Variance: 1}}
	if err := Consistent(dup, ConsistencyOptions{Total: n}); err == nil {
		t.Error("duplicate attribute sets: no error")
	}
}

// A shared set's estimate is made once, from the noisy measurements: a
// one-way marginal shared with a large sparse table comes out as the
// inverse-variance mean of its noisy measurement and the table's noisy
// projection, made non-negative, and the table ends up agreeing with it.
// (Re-estimating it each round from the NormSub'ed table, as PrivSyn
// does, lets the table's clipping bias in: NormSub moves mass from the
// rows spread thin over many small cells to the row of two large ones,
// and the one-way came out as about 3017 / 1965 / 1018 against the
// table's 3197 / 1874 / 928, the truth being 3000 / 2000 / 1000.)
func TestConsistentKeepsMeasuredEstimate(t *testing.T) {
	src := randx.NewSeeded(9)
	const n = 6000.0
	// Attribute 0 has 3 values: value 0 holds 3000 records in 2 cells of
	// attribute 1 (200 values), value 1 holds 2000 spread over 100 cells,
	// value 2 holds 1000 spread over all 200.
	table := &domain.Marginal{Attrs: []int{0, 1}, Sizes: []int{3, 200}, Counts: make([]float64, 600)}
	table.Counts[0], table.Counts[1] = 1500, 1500
	for c := range 100 {
		table.Counts[200+c] = 20
	}
	for c := range 200 {
		table.Counts[400+c] = 5
	}
	one := &domain.Marginal{Attrs: []int{0}, Sizes: []int{3}, Counts: []float64{3000, 2000, 1000}}
	const v2, v1 = 100.0, 400.0
	for c := range table.Counts {
		table.Counts[c] += math.Sqrt(v2) * src.NormFloat64()
	}
	for c := range one.Counts {
		one.Counts[c] += math.Sqrt(v1) * src.NormFloat64()
	}
	proj, _ := table.Project([]int{0})
	w1, w2 := 1/v1, 1/(v2*200)
	want := make([]float64, 3)
	for c := range want {
		want[c] = (w1*one.Counts[c] + w2*proj.Counts[c]) / (w1 + w2)
	}
	NormSub(want, n)
	ms := []*Noisy{{Marginal: one, Variance: v1}, {Marginal: table, Variance: v2}}
	if err := Consistent(ms, ConsistencyOptions{Total: n}); err != nil {
		t.Fatal(err)
	}
	got, _ := ms[1].Project([]int{0})
	for c := range want {
		if math.Abs(ms[0].Counts[c]-want[c]) > 1e-6 || math.Abs(got.Counts[c]-want[c]) > 1e-6 {
			t.Fatalf("one-way %v and the table's projection %v, want both %v", ms[0].Counts, got.Counts, want)
		}
	}
}
