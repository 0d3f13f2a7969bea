package figures

import (
	"bytes"
	"context"
	"math"
	"testing"

	"github.com/dppub/dppub/eval"
	"github.com/dppub/dppub/randx"
)

func mpcrdpRow(rows []eval.Row, exp, ds, method, metric string, k int) (eval.Row, bool) {
	for _, r := range rows {
		if r.Experiment == exp && r.Dataset == ds && r.Method == method && r.Metric == metric && r.K == k {
			return r, true
		}
	}
	return eval.Row{}, false
}

func TestMPCRDPFigure6WDBC(t *testing.T) {
	rows, err := Run(context.Background(), Options{Figures: []int{6}, Datasets: []string{"wdbc"}, Reps: 1, Source: randx.NewSeeded(1)})
	if err != nil {
		t.Fatal(err)
	}
	mcd, ok := mpcrdpRow(rows, "mp-crdp-fig6", "wdbc", "MCD", "mcd", 30)
	if !ok || math.Abs(mcd.Mean-0.9257) > 1e-3 {
		t.Errorf("WDBC MCD %+v, want ≈ 0.9257", mcd)
	}
	for n := 1; n <= 30; n++ {
		gs, ok1 := mpcrdpRow(rows, "mp-crdp-fig6", "wdbc", "ΔGS", "correlation", n)
		cs, ok2 := mpcrdpRow(rows, "mp-crdp-fig6", "wdbc", "ΔCS", "correlation", n)
		csp, ok3 := mpcrdpRow(rows, "mp-crdp-fig6", "wdbc", "ΔCS_p", "correlation", n)
		if !ok1 || !ok2 || !ok3 || !(csp.Mean <= cs.Mean && cs.Mean <= gs.Mean && csp.Mean >= 1) {
			t.Errorf("N = %d: ΔGS %v, ΔCS %v, ΔCS_p %v (want 1 ≤ ΔCS_p ≤ ΔCS ≤ ΔGS)", n, gs.Mean, cs.Mean, csp.Mean)
		}
	}
	// One feature: records agree exactly, so ΔGS = ΔCS = the largest bin.
	if gs, _ := mpcrdpRow(rows, "mp-crdp-fig6", "wdbc", "ΔGS", "correlation", 1); gs.Mean < 100 {
		t.Errorf("one feature: ΔGS = %v, want a large bin", gs.Mean)
	}
	var png bytes.Buffer
	for _, po := range Plots(6) {
		png.Reset()
		if err := eval.WritePNG(&png, PlotRows(rows, 6), po); err != nil || png.Len() == 0 {
			t.Errorf("plot %s: %v", po.Metric, err)
		}
	}
}

func TestMPCRDPTable1(t *testing.T) {
	rows, err := Run(context.Background(), Options{Table: 1, Reps: 1, Source: randx.NewSeeded(2)})
	if err != nil {
		t.Fatal(err)
	}
	var merged, paper eval.Row
	for _, r := range rows {
		switch {
		case r.Task == "merged" && r.Method == "svm" && r.Noise == "standardize" && r.Metric == "test_accuracy":
			merged = r
		case r.Task == "merged" && r.Method == "svm" && r.Calibration == "paper":
			paper = r
		}
	}
	// A linear SVM on z-scored WDBC reaches ≈ 0.97 on held-out rows; one
	// split of 114 test rows varies by about ±0.02.
	if paper.Mean != 0.9789 || merged.Mean < 0.93 {
		t.Errorf("Table 1 merged SVM: measured %v, paper %v", merged.Mean, paper.Mean)
	}
}

func TestMPCRDPTradeOffSmoke(t *testing.T) {
	rows, err := Run(context.Background(), Options{Figures: []int{3, 4, 5}, Datasets: []string{"adult"},
		AdultRows: 2000, Reps: 1, Epsilons: []float64{10}, Queries: 200, Source: randx.NewSeeded(3)})
	if err != nil {
		t.Fatal(err)
	}
	for _, exp := range []string{"mp-crdp-fig3", "mp-crdp-fig4"} {
		for _, task := range []string{"u1", "u2"} {
			for _, m := range []string{MPCRDPNonPrivate, MPCRDPNonPrivateFS, MPCRDPPrivateGS, MPCRDPPrivateCS, MPCRDPPrivateCSp, MPCRDPPrivateStandard} {
				found := false
				for _, r := range rows {
					if r.Experiment == exp && r.Task == task && r.Method == m && r.Metric == "accuracy" {
						found = true
						if !(r.Mean >= 0 && r.Mean <= 1) {
							t.Errorf("%s %s %s: accuracy %v", exp, task, m, r.Mean)
						}
						// Adult's majority class is 75%; every non-private
						// linear model beats it.
						if (m == MPCRDPNonPrivate || m == MPCRDPNonPrivateFS) && r.Mean < 0.78 {
							t.Errorf("%s %s %s: accuracy %v", exp, task, m, r.Mean)
						}
					}
				}
				if !found {
					t.Errorf("no %s %s %s row", exp, task, m)
				}
			}
		}
	}
	plotted := PlotRows(rows, 3)
	if len(plotted) == 0 {
		t.Fatal("nothing to plot")
	}
	for _, r := range plotted {
		if r.Epsilon != 10 {
			t.Errorf("plotted row %+v has no ε", r)
		}
	}
	if _, err := Run(context.Background(), Options{Figures: []int{2}}); err == nil {
		t.Error("figure 2 accepted")
	}
}
