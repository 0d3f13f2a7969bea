package utility

import (
	"fmt"
	"math"
	"math/rand/v2"
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

// Joint, fed a table in chunks on two counters that are then merged,
// gives the figures SetsTVD gives on the whole tables (the quality dppub
// compare reports), with a categorical attribute large enough that its
// pairs are counted sparsely, and the known answer on a small table.
func TestJointTVDIsSetsTVD(t *testing.T) {
	cats := make([]string, 300)
	for i := range cats {
		cats[i] = fmt.Sprint("c", i)
	}
	s := data.Schema{ID: "id", Attributes: []data.Attribute{
		{Name: "big", Kind: data.Categorical, Categories: cats},
		{Name: "x", Kind: data.Numeric, Min: 0, Max: 10},
		{Name: "y", Kind: data.Numeric, Min: -1, Max: 1},
		{Name: "b", Kind: data.Binary, Categories: []string{"no", "yes"}},
	}}
	table := func(n, seed int) *data.Table {
		r := rand.New(rand.NewPCG(uint64(seed), 1))
		tab := &data.Table{Schema: s}
		for range n {
			tab.Rows = append(tab.Rows, []float64{float64(r.IntN(300)), 12 * r.Float64(), r.NormFloat64(), float64(r.IntN(2))})
		}
		return tab
	}
	real, synth := table(5000, 1), table(3000, 2)
	one, err := SetsTVD(real, synth, [][]int{{0}, {1}, {2}, {3}}, DefaultBins)
	if err != nil {
		t.Fatal(err)
	}
	two, err := PairTVD(real, synth, DefaultBins)
	if err != nil {
		t.Fatal(err)
	}
	count := func(tab *data.Table) *Joint {
		a, _ := NewJoint(tab.Schema, DefaultBins)
		b, _ := NewJoint(tab.Schema, DefaultBins)
		for lo := 0; lo < tab.Len(); lo += 700 {
			half := a
			if lo/700%2 == 1 {
				half = b
			}
			half.AddRows(tab.Rows[lo:min(lo+700, tab.Len())])
		}
		if err := a.Merge(b); err != nil {
			t.Fatal(err)
		}
		return a
	}
	jr, js := count(real), count(synth)
	gotOne, gotTwo, err := JointTVD(jr, js)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(gotOne-one) > 1e-12 || math.Abs(gotTwo-two) > 1e-12 || jr.Len() != 5000 || js.Len() != 3000 {
		t.Fatalf("JointTVD (%v, %v) over %d and %d rows, SetsTVD (%v, %v)", gotOne, gotTwo, jr.Len(), js.Len(), one, two)
	}
	if one < 0.01 || two < one {
		t.Fatalf("the tables differ (x beyond its bounds, y clamped): 1-way %v, 2-way %v", one, two)
	}
	// The known answer of TestMarginalTVDKnownAnswer: 1-way 0.375; the
	// one pair (c, x): real a quarter in each cell, synthetic 3/4 in
	// (a, low) and 1/4 in (b, low) → (0.5 + 0.25 + 0.25 + 0) / 2 = 0.5.
	ks := data.Schema{Attributes: []data.Attribute{
		{Name: "c", Kind: data.Categorical, Categories: []string{"a", "b"}},
		{Name: "x", Kind: data.Numeric, Min: 0, Max: 10},
	}}
	kr, _ := NewJoint(ks, 2)
	kr.AddRows([][]float64{{0, 1}, {0, 9}, {1, 1}, {1, 9}})
	kq, _ := NewJoint(ks, 2)
	kq.AddRows([][]float64{{0, 1}, {0, 1}, {0, 1}, {1, 1}})
	if o, w, err := JointTVD(kr, kq); err != nil || math.Abs(o-0.375) > 1e-12 || math.Abs(w-0.5) > 1e-12 {
		t.Fatalf("known answer: 1-way %v, 2-way %v, %v", o, w, err)
	}
	if _, err := NewJoint(ks, 0); err == nil {
		t.Fatal("0 bins accepted")
	}
}
