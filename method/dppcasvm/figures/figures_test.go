package figures

import (
	"bytes"
	"context"
	"math"
	"testing"

	"github.com/dppub/dppub/eval"
	"github.com/dppub/dppub/internal/testenv"
	"github.com/dppub/dppub/method/dppcasvm"
	"github.com/dppub/dppub/method/dppcasvm/dppca"
	"github.com/dppub/dppub/randx"
)

// Each row holds one wilderness area and one soil type; class shares
// match Covertype's. With n = 20000 a share p has sd √(p(1−p)/n); 5 sd
// bounds reject a correct generator with probability below 1e-5 in all.
func TestCovertypeLike(t *testing.T) {
	const n = 20000
	X, y := CovertypeLike(n, randx.NewSeeded(1))
	if r, c := X.Dims(); r != n || c != 54 || len(y) != n {
		t.Fatalf("shape %d×%d, %d labels", r, c, len(y))
	}
	counts := make([]float64, 7)
	for i := range n {
		row := X.RawRowView(i)
		var wild, soil float64
		for j, v := range row {
			if v < 0 || v > 1 {
				t.Fatalf("row %d column %d = %v outside [0, 1]", i, j, v)
			}
			switch {
			case j >= 10 && j < 14:
				wild += v
			case j >= 14:
				soil += v
			}
		}
		if wild != 1 || soil != 1 {
			t.Fatalf("row %d: %v wilderness areas and %v soil types set", i, wild, soil)
		}
		counts[y[i]]++
	}
	for c, p := range covertypeClassShare {
		if sd := math.Sqrt(p * (1 - p) / n); math.Abs(counts[c]/n-p) > 5*sd {
			t.Errorf("class %d share %.4f, want %.4f ± %.4f", c+1, counts[c]/n, p, 5*sd)
		}
	}
	// The same seed gives the same table; the structure does not depend on it.
	X2, _ := CovertypeLike(10, randx.NewSeeded(1))
	if X2.At(3, 0) != X.At(3, 0) {
		t.Error("generator is not reproducible")
	}
	var buf bytes.Buffer
	if err := WriteCovertypeLikeCSV(&buf, X2, y[:10]); err != nil {
		t.Fatal(err)
	}
	if lines := bytes.Count(buf.Bytes(), []byte("\n")); lines != 11 {
		t.Errorf("CSV has %d lines, want 11", lines)
	}
}

func TestClaim(t *testing.T) {
	rows := []eval.Row{
		{Method: "dppca-svm", Dataset: "a", Calibration: "paper", Metric: "accuracy", Epsilon: 0.005, Mean: 0.5},
		{Method: "dppca-svm", Dataset: "a", Calibration: "paper", Metric: "accuracy", Epsilon: 0.01, Mean: 0.93},
		{Method: "dppca-svm", Dataset: "a", Calibration: "paper", Metric: "accuracy", Epsilon: 1, Mean: 0.91},
		{Method: "dppca-svm", Dataset: "a", Calibration: "sound", Metric: "accuracy", Epsilon: 1, Mean: 0.80},
		{Method: "ag-svm", Dataset: "a", Calibration: "sound", Metric: "accuracy", Epsilon: 1, Mean: 0.2},
		{Method: "dppca-svm", Dataset: "a", Calibration: "sound", Metric: "components", Epsilon: 1, Mean: 3},
	}
	got := Claim(rows)
	if len(got) != 2 {
		t.Fatalf("%d checks, want 2: %+v", len(got), got)
	}
	if c := got[0]; !c.Holds || c.Worst != 0.91 || c.WorstEpsilon != 1 || c.Points != 2 {
		t.Errorf("paper check %+v", c)
	}
	if c := got[1]; c.Holds || c.Worst != 0.80 {
		t.Errorf("sound check %+v", c)
	}
}

// Table 3 on Musk: with the standardisation the paper's k = 20 implies we
// get k ≈ 19 at α = 0.85 (the paper's exact preprocessing is unknown, so
// ±5 is allowed); with the public box scaling far fewer components reach α.
func TestDPPCATable3Musk(t *testing.T) {
	testenv.SharedData(t, "musk2")
	rows, err := Run(context.Background(), Options{Table: 3, Reps: 1, Source: randx.NewSeeded(2),
		Tasks: []eval.Task{Musk2Target}})
	if err != nil {
		t.Fatal(err)
	}
	k := map[string]float64{}
	for _, r := range rows {
		if r.Dataset == "musk2" && r.Metric == "k_at_alpha_0.85" {
			k[r.Noise] = r.Mean
		}
	}
	t.Logf("Musk k at α = 0.85: %v (paper 20)", k)
	if k["standardize"] < 15 || k["standardize"] > 25 || k["box"] >= k["standardize"] {
		t.Errorf("k = %v, want standardize within 20 ± 5 and box below it", k)
	}
}

// Figure 1 at one ε on Musk: the paper calibration keeps the paper's claim
// (> 0.90; one split has sd ≈ 0.01, hence 0.89), while the paper's
// PCA-DPSVM noise (2Cnd/ε ≈ 3.5e6 per weight at ε = 0.5) leaves it no
// better than a coin or the majority class (0.846).
func TestDPPCAFigure1Musk(t *testing.T) {
	testenv.SharedData(t, "musk2")
	rows, err := Run(context.Background(), Options{Figure: 1, Reps: 1, Source: randx.NewSeeded(3),
		Tasks: []eval.Task{Musk2Target}, Epsilons: []float64{0.5},
		Variants: []DPPCAVariant{{dppca.Paper, dppcasvm.ScaleStandardize}}})
	if err != nil {
		t.Fatal(err)
	}
	acc := map[string]float64{}
	for _, r := range rows {
		if r.Metric == "accuracy" {
			acc[r.Method] = r.Mean
		}
	}
	t.Logf("Musk, ε = 0.5, paper calibration: %v", acc)
	if acc["dppca-svm"] < 0.89 || acc["pca-dpsvm"] > 0.87 || acc["no-privacy"] < 0.9 {
		t.Errorf("accuracies %v", acc)
	}
}

func TestDPPCATimingFigure(t *testing.T) {
	rows, err := Run(context.Background(), Options{Figure: 4, Reps: 1, Source: randx.NewSeeded(4),
		Tasks: []eval.Task{}, CovertypeRows: 3000})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 7 {
		t.Fatalf("%d timing rows, want 7", len(rows))
	}
	for _, r := range rows {
		if r.Metric != "seconds" || !(r.Mean > 0) || r.Dataset != CovertypeLikeName {
			t.Errorf("row %+v", r)
		}
	}
	var png bytes.Buffer
	if err := WritePNG(&png, rows, 4); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png.Bytes(), []byte("\x89PNG")) {
		t.Error("figure 4 is not a PNG")
	}
}

func TestWriteDPPCAPNGBySize(t *testing.T) {
	base := eval.Row{Experiment: "dppca-svm-fig3", Dataset: "musk2", Task: "target", Method: "dppca-svm", Calibration: "paper",
		Noise: "standardize", Epsilon: 0.005}
	var rows []eval.Row
	for _, n := range []float64{500, 1000, 4000} {
		acc, k, size := base, base, base
		acc.Metric, acc.Mean = "accuracy", 0.8+n/1e5
		k.Metric, k.Mean = "components", 10
		size.Metric, size.Mean = "train_records", n
		rows = append(rows, acc, k, size)
	}
	rows = append(rows, eval.Row{Dataset: "musk2", Task: "target", Method: "no-privacy", Metric: "accuracy", Mean: 0.95})
	by := accuracyBySize(rows)
	if len(by) != 4 || by[0].Epsilon != 500 || by[2].Epsilon != 4000 || by[3].Method != "no-privacy" {
		t.Fatalf("accuracyBySize: %+v", by)
	}
	var png bytes.Buffer
	if err := WritePNG(&png, rows, 3); err != nil {
		t.Fatal(err)
	}
	if png.Len() < 1000 {
		t.Errorf("figure 3 PNG has %d bytes", png.Len())
	}
	if err := WritePNG(&png, rows, 7); err == nil {
		t.Error("figure 7 accepted")
	}
}
