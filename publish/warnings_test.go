package publish

import (
	"context"
	"strings"
	"testing"

	"github.com/dppub/dppub/algo/dppca"
	"github.com/dppub/dppub/algo/marginal"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/learn"
	"github.com/dppub/dppub/randx"
)

// firstRows is the table's first n rows, as a small owner's file would be.
func firstRows(tb testing.TB, name string, n int) *data.Table {
	tb.Helper()
	tab, err := datasets.Load(name)
	if err != nil {
		tb.Fatal(err)
	}
	if n <= 0 || n >= tab.Len() {
		return tab
	}
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	return tab.Subset(rows)
}

// The marginal engine's measured marginals are mostly noise on a few
// hundred rows at a small budget (Adult's first 300 rows at ρ = 0.01:
// per-cell σ many times the average count), and not on the whole of
// Adult at ρ = 0.1 (σ at most an eighth of it).
func TestMarginalNoiseWarning(t *testing.T) {
	for _, c := range []struct {
		name string
		rows int
		rho  float64
		want bool
	}{
		{"adult 300 rows, rho 0.01", 300, 0.01, true},
		{"adult, rho 0.1", 0, 0.1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !c.want && testing.Short() {
				t.Skip("synthesises the whole of Adult; skipped with -short")
			}
			tab := firstRows(t, "adult", c.rows)
			res, err := Synthesize(context.Background(), SynthesizeOptions{Table: tab, Rho: c.rho, Source: randx.NewSeeded(1)})
			if err != nil {
				t.Fatal(err)
			}
			w := marginal.NoiseWarning(res.Engine, res.Domain, tab.Len())
			if got := w != ""; got != c.want {
				t.Fatalf("warns %v, want %v: %q", got, c.want, w)
			}
			if c.want && (!strings.Contains(w, "mostly noise") || !strings.Contains(w, "would do better") || !strings.Contains(w, "(worst: ")) {
				t.Errorf("the warning does not say what is noise and what would do better: %q", w)
			}
		})
	}
	if w := marginal.NoiseWarning(nil, nil, 10); w != "" {
		t.Errorf("no result: %q", w)
	}
}

// DPPCA-SVM on WDBC at ε = 0.1 does no better than the majority class
// on its own training rows, which the owner's terminal must say; at ε = 4
// it does better. (The published report's warning that the components
// are mostly noise is dppca.NoiseWarning, tested in algo/dppca and
// method/dppcasvm.)
func TestClassifierWarning(t *testing.T) {
	tab := firstRows(t, "wdbc", 0)
	for _, c := range []struct {
		name string
		eps  float64
		warn bool
	}{
		{"wdbc at eps 0.1", 0.1, true},
		{"wdbc at eps 4", 4, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := DPPCASVM(DPPCASVMOptions{Method: dppca.DPPCASVM, Table: tab, Label: "diagnosis", Epsilon: c.eps, Source: randx.NewSeeded(1)})
			if err != nil {
				t.Fatal(err)
			}
			pred, err := res.Model.Apply(tab)
			if err != nil {
				t.Fatal(err)
			}
			truth, _, err := res.Model.Truth(tab)
			if err != nil {
				t.Fatal(err)
			}
			acc, maj := learn.Accuracy(pred, truth), majorityRate(truth)
			cw := ClassifierWarning(acc, maj)
			if got := cw != ""; got != c.warn {
				t.Fatalf("accuracy %.3f, majority %.3f: warns %v, want %v: %q", acc, maj, got, c.warn, cw)
			}
			if c.warn && !strings.Contains(cw, "no better than always predicting the most common class") {
				t.Errorf("classifier warning %q", cw)
			}
		})
	}
	if ClassifierWarning(0.9, 0.6) != "" || ClassifierWarning(0.6, 0.6) == "" {
		t.Error("ClassifierWarning's threshold")
	}
}

func majorityRate(y []int) float64 {
	counts := map[int]int{}
	best := 0
	for _, v := range y {
		counts[v]++
		best = max(best, counts[v])
	}
	return float64(best) / float64(len(y))
}
