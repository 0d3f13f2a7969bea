package infer

import (
	"context"
	"slices"
	"testing"

	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/internal/domaintest"
	"github.com/dppub/dppub/engine/marginal/internal/enginetest"
	"github.com/dppub/dppub/randx"
)

func exactTargets(t *testing.T, ds *domain.Dataset, sets ...[]int) []*domain.Marginal {
	t.Helper()
	var out []*domain.Marginal
	for _, s := range sets {
		m, err := domain.Count(ds, s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// From exact marginals of a dependent dataset, GUM reproduces them closely
// and far better than independent attributes would.
func TestGUMFitsExactMarginals(t *testing.T) {
	ds := domaintest.RandomDataset([]int{6, 6, 4, 3}, 5000, 0.8, randx.NewSeeded(11))
	targets := exactTargets(t, ds, []int{0}, []int{1}, []int{2}, []int{3}, []int{0, 1}, []int{1, 2})
	var syn *domain.Dataset
	for _, mode := range []GUMMode{MoveCells, MoveBoth, MoveConditional} {
		rounds := 0
		var err error
		syn, err = GUM(context.Background(), ds.Sizes, targets, GUMOptions{Rows: 5000, Source: randx.NewSeeded(12), Mode: mode,
			Progress: func(done, total int) { rounds = done }})
		if err != nil {
			t.Fatal(err)
		}
		if rounds != 30 {
			t.Errorf("progress reported %d rounds, want 30", rounds)
		}
		for _, tg := range targets {
			got, _ := domain.Count(syn, tg.Attrs)
			// A chain of two pairs is consistent and exactly reachable;
			// every mode gets within 0.001 of every target (tolerance 5×).
			if d := enginetest.TVD(tg.Counts, got.Counts); d > 0.005 {
				t.Errorf("mode %d, marginal %v: TVD %.4f to its target", mode, tg.Attrs, d)
			}
		}
	}
	indep, err := GUM(context.Background(), ds.Sizes, targets[:4], GUMOptions{Rows: 5000, Source: randx.NewSeeded(12)})
	if err != nil {
		t.Fatal(err)
	}
	real01 := targets[4]
	s01, _ := domain.Count(syn, []int{0, 1})
	i01, _ := domain.Count(indep, []int{0, 1})
	if a, b := enginetest.TVD(real01.Counts, s01.Counts), enginetest.TVD(real01.Counts, i01.Counts); a > b/10 {
		t.Errorf("pair (0,1): TVD %.4f with its marginal, %.4f without: the dependency is not reproduced", a, b)
	}
}

func TestGUMDeterministic(t *testing.T) {
	ds := domaintest.RandomDataset([]int{5, 5, 3}, 2000, 0.5, randx.NewSeeded(1))
	targets := exactTargets(t, ds, []int{0, 1}, []int{2})
	run := func(seed uint64) *domain.Dataset {
		out, err := GUM(context.Background(), ds.Sizes, targets, GUMOptions{Rows: 1500, Rounds: 5, Source: randx.NewSeeded(seed)})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	a, b, c := run(3), run(3), run(4)
	if !slices.EqualFunc(a.Cols, b.Cols, slices.Equal) {
		t.Error("two runs with the same seed differ")
	}
	if slices.EqualFunc(a.Cols, c.Cols, slices.Equal) {
		t.Error("runs with different seeds are identical")
	}
	if a.Len() != 1500 {
		t.Errorf("%d rows, want 1500", a.Len())
	}
}

func TestGUMErrors(t *testing.T) {
	sizes := []int{2, 3}
	good := &domain.Marginal{Attrs: []int{0}, Sizes: []int{2}, Counts: []float64{1, 2}}
	src := randx.NewSeeded(1)
	cases := map[string]struct {
		targets []*domain.Marginal
		o       GUMOptions
	}{
		"no rows":        {[]*domain.Marginal{good}, GUMOptions{Source: src}},
		"no source":      {[]*domain.Marginal{good}, GUMOptions{Rows: 5}},
		"negative count": {[]*domain.Marginal{{Attrs: []int{0}, Sizes: []int{2}, Counts: []float64{-1, 2}}}, GUMOptions{Rows: 5, Source: src}},
		"wrong sizes":    {[]*domain.Marginal{{Attrs: []int{1}, Sizes: []int{2}, Counts: []float64{1, 2}}}, GUMOptions{Rows: 5, Source: src}},
		"empty target":   {[]*domain.Marginal{{Attrs: []int{0}, Sizes: []int{2}, Counts: []float64{0, 0}}}, GUMOptions{Rows: 5, Source: src}},
		"bad duplicate":  {[]*domain.Marginal{good}, GUMOptions{Rows: 5, Source: src, Duplicate: 2}},
	}
	for name, c := range cases {
		if _, err := GUM(context.Background(), sizes, c.targets, c.o); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := GUM(ctx, sizes, []*domain.Marginal{good}, GUMOptions{Rows: 5, Source: src}); err == nil {
		t.Error("cancelled context: no error")
	}
}

func TestApportion(t *testing.T) {
	src := randx.NewSeeded(2)
	for range 200 {
		w := []float64{src.Float64(), 0, src.Float64() * 3, src.Float64()}
		total := src.IntN(50)
		got := apportion(w, total, src)
		sum := 0.0
		for _, v := range w {
			sum += v
		}
		n := 0
		for i, c := range got {
			n += c
			share := w[i] / sum * float64(total)
			if float64(c) < share-1-1e-9 || float64(c) > share+1+1e-9 {
				t.Fatalf("apportion(%v, %d) = %v: cell %d far from its share %v", w, total, got, i, share)
			}
		}
		if n != total || got[1] != 0 {
			t.Fatalf("apportion(%v, %d) = %v", w, total, got)
		}
	}
}
