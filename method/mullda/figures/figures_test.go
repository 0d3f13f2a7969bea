package figures_test

import (
	"context"
	"testing"

	"github.com/dppub/dppub/eval"
	"github.com/dppub/dppub/eval/all"
	"github.com/dppub/dppub/method/mullda/figures"
	"github.com/dppub/dppub/randx"
)

func ldaRow(rows []eval.Row, method, calibration string, parties int) (eval.Row, bool) {
	for _, r := range rows {
		if r.Method == method && r.Calibration == calibration && r.Parties == parties {
			return r, true
		}
	}
	return eval.Row{}, false
}

// One repetition of Fig. 1 on NLTCS (money) at ε = 1: the no-privacy SVM
// error is ≈ 0.14 and the majority rate 0.235. The sound release must be
// within 3 points of no privacy (measured gap ≈ 1 point at ε = 1), the
// paper calibration (σ ≈ 160× larger) must be no better than it, and the
// PPCA-DP-MH baseline must run.
func TestLDAFigure1Smoke(t *testing.T) {
	ppca, err := all.Baseline("ppca-dp-mh")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := figures.Run(context.Background(), figures.Options{Figure: 1, Reps: 1, Source: randx.NewSeeded(3),
		Epsilons: []float64{1}, Tasks: []eval.Task{eval.NLTCSMoney}, Baseline: ppca})
	if err != nil {
		t.Fatal(err)
	}
	np, _ := ldaRow(rows, "no-privacy", "", 0)
	sound, ok1 := ldaRow(rows, "lda-dp", "sound", 1)
	paper, ok2 := ldaRow(rows, "lda-dp[real Xw]", "paper", 1)
	_, ok3 := ldaRow(rows, "ppca-dp-mh", "sound", 1)
	if !ok1 || !ok2 || !ok3 || len(rows) != 6 {
		t.Fatalf("rows %+v", rows)
	}
	t.Logf("no privacy %.3f, lda-dp sound %.3f, paper (real Xw) %.3f", np.Mean, sound.Mean, paper.Mean)
	if np.Mean > 0.17 || sound.Mean > np.Mean+0.03 || paper.Mean < sound.Mean {
		t.Fatalf("no privacy %.3f, sound %.3f, paper %.3f", np.Mean, sound.Mean, paper.Mean)
	}
	if sound.Metric != "misclassification" || sound.Delta != 0.001 || sound.Reps != 1 {
		t.Fatalf("row %+v", sound)
	}
}

func TestLDAFigureRejectsBadOptions(t *testing.T) {
	for _, o := range []figures.Options{{Figure: 4}, {Figure: 1, Reps: 2, BaselineReps: 3}} {
		if _, err := figures.Run(context.Background(), o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
}
