package figures

import (
	"context"
	"testing"

	"github.com/dppub/dppub/eval"
	"github.com/dppub/dppub/randx"
)

func accuracyOf(rows []eval.Row, method, calibration string) (float64, bool) {
	for _, r := range rows {
		if r.Method == method && r.Calibration == calibration && r.Metric == "accuracy" {
			return r.Mean, true
		}
	}
	return 0, false
}

// With negligible noise (ε = 10⁴) the PPCA synthetic data must carry the
// label signal: an SVM trained on it beats the majority rate by a margin.
func TestPPCANoiselessCarriesSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("accuracy over repeated noiseless fits (about 8–16 s on 2 cores); runs without -short")
	}
	for _, c := range []struct {
		task     eval.Task
		k        int
		majority float64
	}{{eval.NLTCSOutside, 8, 0.555}, {eval.AdultSalary, 35, 0.752}} {
		rows, err := Run(context.Background(), Options{Figure: 2, Reps: 1, Source: randx.NewSeeded(11),
			Epsilons: []float64{1e4}, Ks: []int{c.k}, Tasks: []eval.Task{c.task}})
		if err != nil {
			t.Fatal(err)
		}
		acc, _ := accuracyOf(rows, "ppca-dp-mh", "sound")
		real, _ := accuracyOf(rows, "no-privacy", "")
		t.Logf("%s: synthetic %.3f, real %.3f, majority %.3f", c.task.Name, acc, real, c.majority)
		if acc < c.majority+0.02 {
			t.Errorf("%s: accuracy %.3f on noiseless synthetic data is not above the majority rate %.3f", c.task.Name, acc, c.majority)
		}
	}
}

// PPCA-DP-MH §5.1: at k = 8, ε = 0.1, m = 3 the paper's calibration gives
// ≈ 0.80 for NLTCS "outside". Across repetitions our accuracy has sd ≈ 0.03,
// so the mean of 3 seeded runs has sd ≈ 0.018; 0.72 is more than 4 sd below
// the paper's figure.
func TestPPCAFigure2PaperPointOnNLTCS(t *testing.T) {
	if testing.Short() {
		t.Skip("a figure point averaged over repetitions (about 5–10 s on 2 cores); runs without -short")
	}
	rows, err := Run(context.Background(), Options{Figure: 2, Reps: 3, Source: randx.NewSeeded(21),
		Ks: []int{8}, Tasks: []eval.Task{eval.NLTCSOutside}})
	if err != nil {
		t.Fatal(err)
	}
	acc, ok := accuracyOf(rows, "ppca-dp-mh", "paper")
	if !ok {
		t.Fatal("no paper-calibration row")
	}
	t.Logf("NLTCS outside, k=8, ε=0.1, m=3, paper calibration: accuracy %.3f (paper ≈ 0.80)", acc)
	if acc < 0.72 || acc > 0.85 {
		t.Fatalf("accuracy %.3f far from the paper's ≈ 0.80", acc)
	}
}
