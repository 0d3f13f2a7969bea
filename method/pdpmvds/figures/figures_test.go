package figures

import (
	"context"
	"testing"

	"github.com/dppub/dppub/eval"
	"github.com/dppub/dppub/randx"
)

func synthMetric(rows []eval.Row, method, noise, metric string) (float64, bool) {
	for _, r := range rows {
		if r.Method == method && r.Noise == noise && r.Metric == metric {
			return r.Mean, true
		}
	}
	return 0, false
}

// Adult at ρ = 0.5, one owner: the synthetic data's marginals are close to
// the real ones and an SVM trained on it predicts salary on real held-out
// rows clearly better than the majority rate (0.752).
func TestSynthFigureAdult(t *testing.T) {
	if testing.Short() {
		t.Skip("figure runs on Adult (about 6–12 s on 2 cores); runs without -short")
	}
	rows, err := Run(context.Background(), Options{Figure: 1, Reps: 1, Rhos: []float64{0.5},
		Datasets: []string{"adult"}, Source: randx.NewSeeded(1)})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		t.Logf("%s %s %s ρ=%v %s = %.4f", r.Dataset, r.Method, r.Noise, r.Epsilon, r.Metric, r.Mean)
	}
	tvd, ok := synthMetric(rows, "pdp-mvds", "one owner", MetricTVD)
	acc, ok2 := synthMetric(rows, "pdp-mvds", "one owner", MetricAccuracy)
	real, ok3 := synthMetric(rows, "no-privacy", "", MetricAccuracy)
	if !ok || !ok2 || !ok3 {
		t.Fatalf("missing rows in %v", rows)
	}
	if tvd > 0.03 {
		t.Errorf("mean TVD %.4f over 1- and 2-way marginals", tvd)
	}
	if acc < 0.752+0.03 || acc > real+0.01 {
		t.Errorf("accuracy %.3f on synthetic data (real %.3f, majority 0.752)", acc, real)
	}
}
