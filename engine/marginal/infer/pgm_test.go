package infer

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/internal/domaintest"
	"github.com/dppub/dppub/randx"
)

// exactMeasurements returns the true marginals of ds over sets as
// noiseless measurements (unit variance: the loss weights only).
func exactMeasurements(t *testing.T, ds *domain.Dataset, sets [][]int) []*Noisy {
	t.Helper()
	var ms []*Noisy
	for _, s := range sets {
		m, err := domain.Count(ds, s)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, &Noisy{Marginal: m, Variance: 1})
	}
	return ms
}

// chainDataset is 4 000 records of six attributes with a chain of
// dependencies 0→1→2→3→4 plus an independent attribute 5.
func chainDataset() *domain.Dataset {
	sizes := []int{3, 4, 2, 5, 3, 2}
	src := randx.NewSeeded(7)
	ds := domain.NewDataset(sizes, 4000)
	for i := range 4000 {
		prev := src.IntN(3)
		ds.Cols[0][i] = uint16(prev)
		for j := 1; j < 6; j++ {
			v := src.IntN(sizes[j])
			if j < 5 && src.Float64() < 0.6 {
				v = prev % sizes[j]
			}
			ds.Cols[j][i] = uint16(v)
			prev = v
		}
	}
	return ds
}

// maxCellError is the largest absolute difference between two marginals'
// counts.
func maxCellError(a, b *domain.Marginal) float64 {
	e := 0.0
	for c := range a.Counts {
		e = math.Max(e, math.Abs(a.Counts[c]-b.Counts[c]))
	}
	return e
}

// With exact measurements the fitted model reproduces every measured
// marginal, whatever the shape of the measured sets: a chain, a cycle
// (the junction tree must triangulate it), overlapping triples, and an
// attribute no set holds.
func TestEstimateRecoversExactMarginals(t *testing.T) {
	ds := chainDataset()
	sizes := ds.Sizes
	cases := []struct {
		name string
		sets [][]int
	}{
		{"chain", [][]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}}},
		{"cycle", [][]int{{0, 1}, {1, 2}, {2, 3}, {0, 3}}},
		{"triples", [][]int{{0, 1, 2}, {1, 2, 3}, {3, 4}, {0}, {5}}},
		{"uncovered", [][]int{{0, 2}, {2, 4}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ms := exactMeasurements(t, ds, tc.sets)
			model, err := Estimate(context.Background(), sizes, ms, EstimateOptions{Total: 4000, Iters: 3000})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range ms {
				got, err := model.Marginal(m.Attrs)
				if err != nil {
					t.Fatal(err)
				}
				// 0.5 record per cell out of 4000: the fit has converged.
				if e := maxCellError(got, m.Marginal); e > 0.5 {
					t.Errorf("marginal %v: max cell error %.3g records", m.Attrs, e)
				}
			}
			// Every marginal sums to the total, measured or not.
			for a := range sizes {
				got, _ := model.Marginal([]int{a})
				if math.Abs(got.Total()-4000) > 1e-6 {
					t.Errorf("one-way %d sums to %v", a, got.Total())
				}
			}
		})
	}
}

// On a decomposable model the pair marginal across two cliques that
// variable elimination computes equals the product formula
// p(a, c) = Σ_b p(a, b)·p(b, c)/p(b).
func TestModelMarginalAcrossCliques(t *testing.T) {
	sizes := []int{3, 4, 2}
	src := randx.NewSeeded(3)
	ds := domaintest.RandomDataset(sizes, 3000, 0.5, src)
	for i := range 3000 {
		if src.Float64() < 0.5 {
			ds.Cols[2][i] = ds.Cols[1][i] % 2
		}
	}
	ms := exactMeasurements(t, ds, [][]int{{0, 1}, {1, 2}})
	model, err := Estimate(context.Background(), sizes, ms, EstimateOptions{Total: 3000, Iters: 2000})
	if err != nil {
		t.Fatal(err)
	}
	got, err := model.Marginal([]int{0, 2})
	if err != nil {
		t.Fatal(err)
	}
	ab, bc := ms[0].Marginal, ms[1].Marginal
	b, _ := ab.Project([]int{1})
	want := newFactor(sizes, []int{0, 2})
	for a := range 3 {
		for c := range 2 {
			for bv := range 4 {
				want.Counts[a*2+c] += ab.Counts[a*4+bv] * bc.Counts[bv*2+c] / b.Counts[bv]
			}
		}
	}
	if e := maxCellError(got, want); e > 0.5 {
		t.Errorf("p(0, 2): max cell error %.3g records; got %v want %v", e, got.Counts, want.Counts)
	}
}

// Sampling reproduces the model's clique marginals to within a record or
// two per cell (apportioning, not independent draws), and the marginals
// across cliques to within a few: each clique's cells are dealt evenly
// along the records ordered by the attributes drawn before, where a
// random assignment within each separator cell left 8–49 records of error
// per cell on these sets (seeds 12–16).
func TestSampleMatchesModel(t *testing.T) {
	sizes := []int{3, 4, 2, 5}
	src := randx.NewSeeded(11)
	ds := domaintest.RandomDataset(sizes, 5000, 0.7, src)
	sets := [][]int{{0, 1}, {1, 2}, {2, 3}}
	ms := exactMeasurements(t, ds, sets)
	model, err := Estimate(context.Background(), sizes, ms, EstimateOptions{Total: 5000, Iters: 2000})
	if err != nil {
		t.Fatal(err)
	}
	syn, err := model.Sample(5000, randx.NewSeeded(12))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sets {
		got, _ := domain.Count(syn, s)
		want, _ := model.Marginal(s)
		// Each step apportions within a record per cell, and a clique's
		// cells are fixed after at most two steps along the tree.
		if e := maxCellError(got, want); e > 3 {
			t.Errorf("sampled marginal %v: max cell error %.3g records", s, e)
		}
	}
	for _, s := range [][]int{{0, 2}, {1, 3}, {0, 3}, {0, 1, 3}} {
		got, _ := domain.Count(syn, s)
		want, err := model.Marginal(s)
		if err != nil {
			t.Fatal(err)
		}
		if e := maxCellError(got, want); e > 5 {
			t.Errorf("sampled marginal %v across cliques: max cell error %.3g records", s, e)
		}
	}
}

// A set lives in the clique with the fewest cells that holds it, not the
// one with the fewest attributes: attribute 1 is in {0, 1} (200 cells)
// and in {1, 2, 3} (8 cells).
func TestJTreeHomeIsSmallestClique(t *testing.T) {
	tr := newJTree([]int{100, 2, 2, 2}, [][]int{{0, 1}, {1, 2, 3}})
	c := tr.home([]int{1})
	if c < 0 || !slices.Equal(tr.cliques[c], []int{1, 2, 3}) {
		t.Errorf("{1} homed in %v of %v, want [1 2 3]", tr.cliques[max(c, 0)], tr.cliques)
	}
}

// Momentum reaches the same minimiser as plain mirror descent: noisy
// measurements (σ = 20 records) of a cycle and of overlapping triples,
// after 3 000 steps both losses agree to 0.1 %. On the triples, which
// plain mirror descent fits slowly (loss 11.8 after 40 steps, 10.0 after
// 60, 9.0 at the minimum), momentum is there sooner: 9.9 and 9.0. (The
// cycle is fitted within 20 steps either way.)
func TestEstimateMomentumSameMinimumSooner(t *testing.T) {
	ds := chainDataset()
	for _, c := range []struct {
		sets   [][]int
		sooner bool
	}{
		{[][]int{{0, 1}, {1, 2}, {2, 3}, {0, 3}}, false},
		{[][]int{{0, 1, 2}, {1, 2, 3}, {3, 4}, {0}, {5}}, true},
	} {
		sets := c.sets
		t.Run(fmt.Sprint(sets), func(t *testing.T) {
			ms := exactMeasurements(t, ds, sets)
			src := randx.NewSeeded(5)
			for _, m := range ms {
				m.Variance = 400
				for c := range m.Counts {
					m.Counts[c] += 20 * src.NormFloat64()
				}
			}
			loss := func(iters int, momentum bool) float64 {
				model, err := Estimate(context.Background(), ds.Sizes, ms, EstimateOptions{Total: 4000, Iters: iters, Momentum: momentum})
				if err != nil {
					t.Fatal(err)
				}
				l := 0.0
				for _, m := range ms {
					got, _ := model.Marginal(m.Attrs)
					for c, v := range got.Counts {
						l += (v - m.Counts[c]) * (v - m.Counts[c]) / (2 * m.Variance)
					}
				}
				return l
			}
			if c.sooner {
				plain, fast := loss(60, false), loss(60, true)
				t.Logf("loss after 60 steps: mirror descent %.2f, momentum %.2f", plain, fast)
				if !(fast < 0.95*plain) {
					t.Errorf("after 60 steps momentum's loss %.2f is not 5 %% below mirror descent's %.2f", fast, plain)
				}
			}
			plain, fast := loss(3000, false), loss(3000, true)
			if math.Abs(plain-fast) > 1e-3*plain {
				t.Errorf("after 3000 steps the losses differ: mirror descent %.4f, momentum %.4f", plain, fast)
			}
		})
	}
}

func TestJTreeRunningIntersection(t *testing.T) {
	sizes := []int{2, 3, 4, 2, 3, 2, 2}
	sets := [][]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6}, {1, 4}}
	tr := newJTree(sizes, sets)
	for _, s := range sets {
		if tr.home(s) < 0 {
			t.Errorf("set %v lies in no clique of %v", s, tr.cliques)
		}
	}
	// Every attribute's cliques form a connected subtree: exactly one of
	// them has a parent outside it.
	for a := range sizes {
		tops := 0
		for c, cl := range tr.cliques {
			if slices.Contains(cl, a) && (tr.parent[c] < 0 || !slices.Contains(tr.cliques[tr.parent[c]], a)) {
				tops++
			}
		}
		if tops != 1 {
			t.Errorf("attribute %d: %d disconnected parts in %v", a, tops, tr.cliques)
		}
	}
}
