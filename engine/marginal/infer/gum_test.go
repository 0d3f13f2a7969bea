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

// The counting sort lists every cell's records, and only them, in
// increasing record order, with the cells computed as domain.CellIndex
// computes them, for targets of one, two and three attributes (each with
// its own indexing loop) and with one part or three.
func TestSortByCell(t *testing.T) {
	sizes := []int{7, 5, 4, 3}
	for _, c := range []struct {
		name    string
		attrs   []int
		rows    int
		workers int
	}{
		{"one attribute", []int{2}, 1000, 1},
		{"two attributes", []int{0, 3}, 1000, 1},
		{"three attributes", []int{1, 2, 3}, 1000, 1},
		{"three attributes in three parts", []int{0, 1, 3}, 3*minPart + 5, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			ds := domaintest.RandomDataset(sizes, c.rows, 0.7, randx.NewSeeded(8))
			target := exactTargets(t, ds, c.attrs)[0]
			u := newUpdater(ds, withSource(GUMOptions{Rows: c.rows}, 1), c.workers)
			if len(u.parts) != c.workers {
				t.Fatalf("%d parts, want %d", len(u.parts), c.workers)
			}
			start := u.sortByCell(target)
			cell := make([]int32, c.rows)
			domain.CellIndex(ds, c.attrs, cell)
			want := make([][]int32, target.Cells())
			for r, k := range cell {
				want[k] = append(want[k], int32(r))
			}
			for k := range want {
				if got := u.order[start[k]:start[k+1]]; !slices.Equal(got, want[k]) {
					t.Fatalf("cell %d lists records %v, want %v", k, head(got), head(want[k]))
				}
			}
		})
	}
}

// The updater's two speed-ups change no draw: GUM with its passes split
// among goroutines and a target's cells kept across that target's updates
// (updater.moved) makes exactly the moves of the plain updater, one
// goroutine finding every record's cell afresh on every update, in every
// mode, with one part or several (70 000 records make up to two parts of
// at least minPart). TestSortByCell checks the plain updater's sort
// against domain.CellIndex.
func TestGUMMatchesPlainUpdater(t *testing.T) {
	cases := []struct {
		name    string
		sizes   []int
		rows    int
		mode    GUMMode
		workers int
		sets    [][]int
	}{
		{"conditional", []int{6, 5, 4, 3}, 3000, MoveConditional, 1, [][]int{{0}, {1}, {0, 1}, {1, 2, 3}}},
		{"cells", []int{6, 5, 4, 3}, 3000, MoveCells, 1, [][]int{{0}, {2}, {0, 1}, {1, 2, 3}}},
		{"both", []int{7, 2, 9}, 2500, MoveBoth, 1, [][]int{{0, 1}, {1, 2}, {0, 2}}},
		{"few rows many cells", []int{40, 30}, 500, MoveBoth, 1, [][]int{{0}, {0, 1}}},
		{"parallel conditional", []int{12, 5, 4, 3}, 70000, MoveConditional, 3, [][]int{{0}, {1}, {0, 1}, {1, 2, 3}, {0, 3}}},
		{"parallel both", []int{12, 5, 4}, 70000, MoveBoth, 2, [][]int{{0, 1}, {1, 2}, {2}}},
		{"one target", []int{5, 4, 3}, 3000, MoveBoth, 1, [][]int{{0, 1, 2}}},
		{"parallel cells", []int{12, 5, 4}, 70000, MoveCells, 2, [][]int{{0, 1}, {2}, {0, 1, 2}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ds := domaintest.RandomDataset(c.sizes, c.rows+17, 0.7, randx.NewSeeded(21))
			targets := exactTargets(t, ds, c.sets...)
			o := GUMOptions{Rows: c.rows, Rounds: 4, Mode: c.mode}
			want, err := gum(context.Background(), c.sizes, targets, withSource(o, 5), 1, true)
			if err != nil {
				t.Fatal(err)
			}
			got, err := gum(context.Background(), c.sizes, targets, withSource(o, 5), c.workers, false)
			if err != nil {
				t.Fatal(err)
			}
			for j := range c.sizes {
				if i := firstDiff(got.Cols[j], want.Cols[j]); i >= 0 {
					t.Fatalf("attribute %d first differs at record %d of %d: %d, plain updater %d", j, i, c.rows, got.Cols[j][i], want.Cols[j][i])
				}
			}
		})
	}
}

// head is the first records of a list, for a message.
func head(rs []int32) []int32 { return rs[:min(len(rs), 8)] }

func withSource(o GUMOptions, seed uint64) GUMOptions {
	o.Source = randx.NewSeeded(seed)
	if err := o.defaults(); err != nil {
		panic(err)
	}
	return o
}

func firstDiff(a, b []uint16) int {
	if len(a) != len(b) {
		return 0
	}
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// A table whose sizes are another domain's is refused, named as what it
// was given as: GUM's target or a measurement the model is fitted to.
func TestRefusesTablesOffTheDomain(t *testing.T) {
	sizes := []int{3, 5}
	off, err := domain.NewMarginal([]int{3, 4}, []int{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	off.Counts[0] = 1
	for _, c := range []struct {
		name string
		run  func() error
		want string
	}{
		{"gum target", func() error {
			_, err := GUM(context.Background(), sizes, []*domain.Marginal{off}, GUMOptions{Rows: 10, Source: randx.NewSeeded(1)})
			return err
		}, "infer: gum: target over [0 1] does not fit the domain"},
		{"measurement", func() error {
			_, err := groupMeasurements(sizes, []*Noisy{{Marginal: off, Variance: 1}})
			return err
		}, "infer: measurement over [0 1] does not fit the domain"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := c.run(); err == nil || err.Error() != c.want {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
}
