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

// DPPCA-SVM on WDBC (569 rows, d = 30) at ε = 1: the noise on XᵀX/n has
// a largest eigenvalue near 1.7, above the 1 the data can carry, so the
// report must warn; at ε = 4 it is near 0.42, and on the whole of Adult
// at ε = 1 near 0.14. At ε = 0.1 the classifier does no better than the
// majority class on its own training rows, which the owner's terminal
// must say.
func TestDPPCANoiseAndClassifierWarnings(t *testing.T) {
	for _, c := range []struct {
		name, dataset, label string
		eps                  float64
		noise, classifier    bool
	}{
		{"wdbc at eps 1", "wdbc", "diagnosis", 1, true, false},
		{"wdbc at eps 0.1", "wdbc", "diagnosis", 0.1, true, true},
		{"wdbc at eps 4", "wdbc", "diagnosis", 4, false, false},
		{"adult at eps 1", "adult", "income", 1, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.dataset == "adult" && testing.Short() {
				t.Skip("trains on the whole of Adult; skipped with -short")
			}
			tab := firstRows(t, c.dataset, 0)
			res, err := DPPCASVM(DPPCASVMOptions{Method: dppca.DPPCASVM, Table: tab, Label: c.label, Epsilon: c.eps, Source: randx.NewSeeded(1)})
			if err != nil {
				t.Fatal(err)
			}
			w := DPPCANoiseWarning(res.Fit, len(res.Model.Preprocess.Columns))
			if got := w != ""; got != c.noise {
				t.Fatalf("noise warning %v, want %v: %q", got, c.noise, w)
			}
			if c.noise && (!strings.Contains(w, "mostly noise") || !strings.Contains(w, "ag-svm")) {
				t.Errorf("the warning does not say what would do better: %q", w)
			}
			pred, err := res.Model.Apply(tab)
			if err != nil {
				t.Fatal(err)
			}
			truth, _, err := res.Model.Truth(tab)
			if err != nil {
				t.Fatal(err)
			}
			cw := ClassifierWarning(learn.Accuracy(pred, truth), majorityRate(truth))
			if c.classifier && !strings.Contains(cw, "no better than always predicting the most common class") {
				t.Errorf("accuracy %.3f, majority %.3f: classifier warning %q", learn.Accuracy(pred, truth), majorityRate(truth), cw)
			}
		})
	}
	if w := DPPCANoiseWarning(&dppca.Result{}, 30); w != "" {
		t.Errorf("pca-dpsvm (no noise on A) warned: %q", w)
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
