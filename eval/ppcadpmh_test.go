package eval

import (
	"context"
	"testing"

	"github.com/dppub/dppub/randx"
)

func accuracyOf(rows []Row, method, calibration string) (float64, bool) {
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
	for _, c := range []struct {
		task     Task
		k        int
		majority float64
	}{{NLTCSOutside, 8, 0.555}, {AdultSalary, 35, 0.752}} {
		rows, err := PPCAFigure(context.Background(), PPCAOptions{Figure: 2, Reps: 1, Source: randx.NewSeeded(11),
			Epsilons: []float64{1e4}, Ks: []int{c.k}, Tasks: []Task{c.task}})
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
