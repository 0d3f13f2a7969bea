package mpcrdp

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/learn"
	algo "github.com/dppub/dppub/method/mpcrdp/crdp"
	"github.com/dppub/dppub/randx"
)

func TestLoadAndSplitMPCRDPData(t *testing.T) {
	d, err := LoadDataset("adult", 10000, randx.NewSeeded(1))
	if err != nil {
		t.Fatal(err)
	}
	if d.Table.Len() != 10000 || len(d.Features) != 12 || d.B != 2 || len(d.Table.IDs) != 10000 {
		t.Fatalf("adult: %d rows, %d features, b = %d", d.Table.Len(), len(d.Features), d.B)
	}
	parts, err := SplitFeatures(d.Table, d.Features, d.Label, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"age", "workclass", "fnlwgt", "education", "income"},
		{"education-num", "marital-status", "occupation", "relationship"},
		{"race", "sex", "hours-per-week", "native-country"},
	}
	for k, p := range parts {
		if !slices.Equal(p.Schema.Names(), want[k]) || !slices.Equal(p.IDs, d.Table.IDs) {
			t.Errorf("party %d holds %v", k+1, p.Schema.Names())
		}
	}
	w, err := LoadDataset("wdbc", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if w.Table.Len() != 569 || len(w.Features) != 30 || w.B != 4 {
		t.Errorf("wdbc: %d rows, %d features", w.Table.Len(), len(w.Features))
	}
	if _, err := LoadDataset("nltcs", 0, nil); err == nil {
		t.Error("an unsupported dataset accepted")
	}
}

func wdbcMPCRDP(t *testing.T, c algo.Config, qs []algo.NamedQuery) *Result {
	t.Helper()
	return wdbcMPCRDPQueries(t, 5, c, qs)
}

func wdbcMPCRDPSeeded(t *testing.T, seed uint64, c algo.Config) *Result {
	t.Helper()
	return wdbcMPCRDPQueries(t, seed, c, nil)
}

func wdbcMPCRDPQueries(t *testing.T, seed uint64, c algo.Config, qs []algo.NamedQuery) *Result {
	t.Helper()
	d, err := LoadDataset("wdbc", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	parts, err := SplitFeatures(d.Table, d.Features, d.Label, 3)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Publish(context.Background(), Options{Parties: parts, Source: randx.NewSeeded(seed), Settings: Settings{Label: d.Label, Config: c, Queries: qs}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestMPCRDPModelAndHonestReport(t *testing.T) {
	res := wdbcMPCRDP(t, algo.Config{Epsilon: 2, B: 4, Utility: algo.U1, Notion: algo.MPCRDP, Release: algo.SVM}, nil)
	r := res.Report
	if !r.WithinBudget() || math.Abs(r.Claimed.Epsilon-2) > 1e-9 || len(r.Parties) != 4 {
		t.Errorf("report: overall %v, %d ledgers", r.Claimed, len(r.Parties))
	}
	joined := strings.Join(r.NotCovered, "\n") + strings.Join(r.Warnings, "\n")
	if !strings.Contains(joined, "NOT standard") || !strings.Contains(joined, "ΔCS_p") {
		t.Errorf("the mp-crdp notion is not flagged as non-standard: %v / %v", r.NotCovered, r.Warnings)
	}
	if res.Model == nil || res.Model.Method != "mp-crdp-svm" {
		t.Fatal("no SVM model")
	}
	pred, err := res.Model.Apply(res.Merged)
	if err != nil {
		t.Fatal(err)
	}
	if len(pred) != 569 || len(res.Model.Preprocess.Scale) != len(res.Model.Preprocess.Columns) {
		t.Errorf("model applies to %d rows, scale %d for %d columns", len(pred), len(res.Model.Preprocess.Scale), len(res.Model.Preprocess.Columns))
	}
	// The model must score exactly as the pipeline's own output.
	out := res.Result.Output
	X, _, _ := out.Encoder.Encode(res.Merged)
	for i := range 50 {
		x := X.RawRowView(i)
		for j := range x {
			x[j] /= out.Scale
		}
		if want := out.Model.Score(x) > 0; (pred[i] == 1) != want {
			t.Fatalf("row %d: model predicts %d, the released weights say %v", i, pred[i], want)
		}
	}
}

func TestMPCRDPStandardNotionIsCovered(t *testing.T) {
	res := wdbcMPCRDP(t, algo.Config{Epsilon: 50, B: 4, Utility: algo.U1, Notion: algo.Standard, Release: algo.LogReg}, nil)
	r := res.Report
	if strings.Contains(strings.Join(r.Warnings, " "), "NOT standard") || !strings.Contains(strings.Join(r.Covered, " "), "standard ε-DP") {
		t.Errorf("standard notion: covered %v, warnings %v", r.Covered, r.Warnings)
	}
	// At ε = 50 (release ε2/2 = 12.5) the functional mechanism beats the
	// majority class (62.7%) on WDBC, but its noise still rivals the signal
	// of features squeezed into [0, 0.5] by WDBC's generous declared
	// bounds: one run falls below 0.65 about one time in six (2 of 12
	// seeds measured, mean 0.79), so the median of 9 runs is tested; it is
	// below 0.65 with probability ≈ 0.016 for a correct implementation.
	accs := []float64{accuracyOf(res)}
	for seed := uint64(6); len(accs) < 9; seed++ {
		accs = append(accs, accuracyOf(wdbcMPCRDPSeeded(t, seed, algo.Config{Epsilon: 50, B: 4, Utility: algo.U1, Notion: algo.Standard, Release: algo.LogReg})))
	}
	slices.Sort(accs)
	if accs[4] < 0.65 {
		t.Errorf("median training accuracy %.4f at ε = 50 over 9 runs %v", accs[4], accs)
	}
}

func accuracyOf(res *Result) float64 {
	pred, _ := res.Model.Apply(res.Merged)
	truth, _, _ := res.Model.Truth(res.Merged)
	return learn.Accuracy(pred, truth)
}

func TestMPCRDPQueriesFromFile(t *testing.T) {
	qs, err := ParseQueries(strings.NewReader("# two queries\nradius_worst=12; texture_worst=20\n\nconcave_points_worst=0.1\nnot_a_feature=1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 3 || qs[0][1].Feature != "texture_worst" || qs[0][1].Value != "20" {
		t.Fatalf("parsed %v", qs)
	}
	c := algo.Config{Epsilon: 1, B: 4, Utility: algo.U1, Calibration: algo.Paper, Release: algo.Queries}
	res := wdbcMPCRDP(t, c, qs)
	out := res.Result.Output
	if out.Skipped < 1 || len(res.Answers)+out.Skipped != 3 || len(res.QueryText) != len(res.Answers) {
		t.Errorf("answered %d, skipped %d: %v", len(res.Answers), out.Skipped, res.QueryText)
	}
	if _, err := ParseQueries(strings.NewReader("radius_worst\n")); err == nil {
		t.Error("a condition without = accepted")
	}
	found := false
	for _, p := range res.Report.Parties[0].Charges {
		if p.Actual != nil && strings.Contains(p.Purpose, "count queries") && p.Actual.Epsilon == 3*p.Spec.Guarantee.Epsilon {
			found = true
		}
	}
	if !found {
		t.Error("the paper's per-query charge does not state the composed guarantee Q·ε2/2")
	}
}

func TestQueryStringRendersBins(t *testing.T) {
	d, _ := LoadDataset("adult", 100, randx.NewSeeded(1))
	s := d.Table.Schema
	q := algo.Query{{Feature: 0, Code: 2}, {Feature: 1, Code: 3}, {Feature: 2, Code: 9}}
	got := QueryString(s, []string{"age", "workclass", "education-num"}, q, 10)
	if got != "age=[31.6,38.9); workclass=Federal-gov; education-num=[14.5,16]" {
		t.Errorf("rendered %q", got)
	}
	// With 16 bins education-num's 16 levels keep their values.
	if got := QueryString(s, []string{"education-num"}, algo.Query{{Feature: 0, Code: 15}}, 16); got != "education-num=16" {
		t.Errorf("rendered %q", got)
	}
}
