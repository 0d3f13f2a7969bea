package figures

import (
	"context"
	"math"
	"testing"

	"github.com/dppub/dppub/eval"
	"github.com/dppub/dppub/randx"
)

// DP-SUBN3 over two owners at ε = 0.8 on NLTCS, as LDA-DP Fig. 2 runs it:
// an accuracy and a misclassification row per task, summing to 1, and an
// SVM on the synthetic rows that beats a coin.
func TestDPSUBN3BaselineRows(t *testing.T) {
	rows, err := eval.BaselineRows(context.Background(), Baseline(), eval.BaselineOptions{Reps: 1, Source: randx.NewSeeded(2),
		Comparison: eval.Comparison{Paper: "lda-dp", Figure: 2, Tasks: []eval.Task{eval.NLTCSMoney, eval.NLTCSOutside},
			Epsilons: []float64{0.8}, Parties: []int{2}, Metric: "misclassification"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 {
		t.Fatalf("%d rows, want accuracy and misclassification for 2 tasks", len(rows))
	}
	for i := 0; i < 4; i += 2 {
		acc, mis := rows[i], rows[i+1]
		if acc.Metric != "accuracy" || mis.Metric != "misclassification" || math.Abs(acc.Mean+mis.Mean-1) > 1e-12 ||
			acc.Parties != 2 || acc.Method != "dp-subn3" || !(acc.Mean > 0.5 && acc.Mean <= 1) {
			t.Errorf("rows %+v %+v", acc, mis)
		}
	}
}
