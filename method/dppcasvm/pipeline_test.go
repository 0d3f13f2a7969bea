package dppcasvm

import (
	"math"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/internal/testenv"
	"github.com/dppub/dppub/learn"
	"github.com/dppub/dppub/method/dppcasvm/dppca"
	"github.com/dppub/dppub/method/methodtest"
	"github.com/dppub/dppub/randx"
)

func dppcaSplit(tb testing.TB, name string, seed uint64) (train, test *data.Table) {
	tb.Helper()
	tab, err := datasets.Load(name)
	if err != nil {
		tb.Fatal(err)
	}
	train, test, err = data.TrainTestSplit(tab, 0.8, randx.NewSeeded(seed))
	if err != nil {
		tb.Fatal(err)
	}
	return train, test
}

// testAccuracy is the accuracy of res's model on test.
func testAccuracy(t *testing.T, res *Published, test *data.Table) float64 {
	t.Helper()
	acc, _ := testScores(t, res, test)
	return acc
}

// testScores are the accuracy of res's model on test and the share of
// test's most common class (the accuracy of always predicting it).
func testScores(t *testing.T, res *Published, test *data.Table) (acc, majority float64) {
	t.Helper()
	pred, err := res.Model.Apply(test)
	if err != nil {
		t.Fatal(err)
	}
	truth, ok, err := res.Model.Truth(test)
	if err != nil || !ok {
		t.Fatalf("truth: %v %v", ok, err)
	}
	return learn.Accuracy(pred, truth), learn.MajorityShare(truth)
}

func joined(s []string) string { return strings.Join(s, " | ") }

// Every method on WDBC (embedded; 455 training rows, d = 30, 62.7% benign):
// the report says which parts are DP, the budget is spent exactly, and at
// a large ε the models classify well above the majority rate. The
// features are standardised (not DP): with the public box scaling the top
// component alone reaches α = 0.85 and carries little class signal.
func TestDPPCASVMWDBCReports(t *testing.T) {
	train, test := dppcaSplit(t, "wdbc", 1)
	for _, c := range []struct {
		m          dppca.Method
		cal        dppca.Calibration
		covered    string // a phrase the Covered list must hold ("" none)
		notCovered string
		warning    string
		minAcc     float64
	}{
		{dppca.DPPCASVM, dppca.Sound, "the classifier", "standard deviation", "standardize", 0.9},
		{dppca.DPPCASVM, dppca.Paper, "principal components", "the classifier", "only the components are DP", 0.9},
		{dppca.AGSVM, dppca.Sound, "the classifier", "record count", "", 0.9},
		{dppca.ModSuLQSVM, dppca.Paper, "principal components", "the classifier", "classifier is NOT", 0.9},
		{dppca.PCADPSVM, dppca.Sound, "", "computed exactly from the records", "NOT differentially private", 0.9},
		{dppca.PCADPSVM, dppca.Paper, "", "the intercepts b", "NOT differentially private", 0},
	} {
		res, err := Publish(Options{Method: c.m, Table: train, Label: "diagnosis", Epsilon: 50,
			Calibration: c.cal, Scaling: ScaleStandardize, Source: randx.NewSeeded(2)})
		if err != nil {
			t.Fatalf("%s %s: %v", c.m, c.cal, err)
		}
		r := res.Report
		if strings.Contains(joined(r.Covered), "whole published model") {
			t.Errorf("%s %s: standardised features, yet the report claims the whole model", c.m, c.cal)
		}
		if c.covered == "" && len(r.Covered) != 0 || c.covered != "" && !strings.Contains(joined(r.Covered), c.covered) {
			t.Errorf("%s %s: covered %q", c.m, c.cal, r.Covered)
		}
		if !strings.Contains(joined(r.NotCovered), c.notCovered) || !strings.Contains(joined(r.Warnings), c.warning) {
			t.Errorf("%s %s: not covered %q, warnings %q", c.m, c.cal, r.NotCovered, r.Warnings)
		}
		if math.Abs(r.Parties[0].Spent.Epsilon-50) > 1e-9 || r.Parties[0].Records != 455 {
			t.Errorf("%s %s: spent %v on %d records", c.m, c.cal, r.Parties[0].Spent, r.Parties[0].Records)
		}
		if c.m.Gaussian() && r.Parties[0].Budget.Delta != 1/(455.0*455.0) {
			t.Errorf("%s: δ = %v, want 1/n²", c.m, r.Parties[0].Budget.Delta)
		}
		if res.Model.Privacy != r || res.Model.Method != string(c.m) {
			t.Errorf("%s %s: report not embedded in the model", c.m, c.cal)
		}
		if acc := testAccuracy(t, res, test); acc < c.minAcc {
			t.Errorf("%s %s: test accuracy %.3f < %.2f", c.m, c.cal, acc, c.minAcc)
		}
	}
}

func TestDPPCASVMScalings(t *testing.T) {
	train, _ := dppcaSplit(t, "wdbc", 3)
	for _, s := range []Scaling{ScaleNone, ScaleBox, ScaleStandardize} {
		// The sound calibration: DP end to end unless standardised.
		res, err := Publish(Options{Method: dppca.DPPCASVM, Table: train, Label: "diagnosis", Epsilon: 1,
			Scaling: s, Source: randx.NewSeeded(4)})
		if err != nil {
			t.Fatal(err)
		}
		p := res.Model.Preprocess
		switch s {
		case ScaleNone:
			if p.Centre != nil || p.Scale != nil {
				t.Errorf("none: centre %v scale %v", p.Centre, p.Scale)
			}
		case ScaleBox:
			if p.Centre[0] != 0.5 || p.Scale != nil {
				t.Errorf("box: centre %v scale %v", p.Centre[:1], p.Scale)
			}
		case ScaleStandardize:
			if p.Centre[0] <= 0 || p.Centre[0] >= 1 || p.Scale[0] <= 0 ||
				!strings.Contains(joined(res.Report.Warnings), "NOT differentially private") ||
				!strings.Contains(joined(res.Report.NotCovered), "standard deviation") {
				t.Errorf("standardize: centre %v scale %v warnings %q", p.Centre[:1], p.Scale[:1], res.Report.Warnings)
			}
		}
		whole := strings.Contains(joined(res.Report.Covered), "whole published model")
		if whole != (s != ScaleStandardize) {
			t.Errorf("%s: report claims the whole model: %v", s, whole)
		}
		if p.ClipL2 != 1 {
			t.Errorf("%s: clip %v", s, p.ClipL2)
		}
	}
}

func TestDPPCASVMErrors(t *testing.T) {
	train, _ := dppcaSplit(t, "wdbc", 5)
	for name, c := range map[string]struct {
		o    Options
		want string
	}{
		"numeric label": {Options{Method: dppca.DPPCASVM, Table: train, Label: "radius_mean", Epsilon: 1}, "numeric"},
		"unknown label": {Options{Method: dppca.DPPCASVM, Table: train, Label: "nope", Epsilon: 1}, `"nope"`},
		"no table":      {Options{Method: dppca.DPPCASVM, Label: "diagnosis", Epsilon: 1}, "at least 2 rows"},
		"scaling":       {Options{Method: dppca.DPPCASVM, Table: train, Label: "diagnosis", Epsilon: 1, Scaling: "minmax"}, `"minmax"`},
		"epsilon":       {Options{Method: dppca.DPPCASVM, Table: train, Label: "diagnosis", Epsilon: math.Inf(1)}, "epsilon"},
		"k":             {Options{Method: dppca.AGSVM, Table: train, Label: "diagnosis", Epsilon: 1, K: 31}, "k = 31"},
	} {
		_, err := Publish(c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "publish: ") {
			t.Errorf("%s: error %v, want one containing %q", name, err, c.want)
		}
	}
}

// The paper's claim on Musk (§4.2, conclusion): DPPCA-SVM accuracy > 0.90
// for ε > 0.005, here at ε = 0.01 with the paper calibration and the
// standardisation its Table 3 implies. Across 80/20 splits the accuracy
// has sd ≈ 0.01 (0.909–0.928 over 5 seeds); 0.89 leaves 2 sd of slack
// below the claim for one split.
func TestDPPCASVMMuskPaperClaim(t *testing.T) {
	testenv.SharedData(t, "musk2")
	train, test := dppcaSplit(t, "musk2", 7)
	res, err := Publish(Options{Method: dppca.DPPCASVM, Table: train, Label: "target", Epsilon: 0.01,
		Calibration: dppca.Paper, Scaling: ScaleStandardize, Source: randx.NewSeeded(8)})
	if err != nil {
		t.Fatal(err)
	}
	acc := testAccuracy(t, res, test)
	t.Logf("Musk v2, paper calibration, ε = 0.01: k = %d, accuracy %.4f (paper: > 0.90)", res.Fit.Components.K, acc)
	if acc < 0.89 {
		t.Errorf("accuracy %.4f, the paper claims > 0.90", acc)
	}
	if res.Model.Classifier.Multiclass != "binary" || len(res.Model.Projection.Components) != res.Fit.Components.K {
		t.Errorf("model: %s with %d components", res.Model.Classifier.Multiclass, len(res.Model.Projection.Components))
	}
}

// Shuttle (7 classes, 46400 training rows): the sound end-to-end model
// spends ε/2 on the components and ε/14 on each one-vs-rest SVM, and the
// paper calibration with standardisation reaches the paper's > 0.90 (it
// gets ≈ 0.955; the majority class is 78.6%).
func TestDPPCASVMShuttle(t *testing.T) {
	testenv.SharedData(t, "shuttle")
	train, test := dppcaSplit(t, "shuttle", 9)
	sound, err := Publish(Options{Method: dppca.DPPCASVM, Table: train, Label: "Class", Epsilon: 1,
		Source: randx.NewSeeded(10)})
	if err != nil {
		t.Fatal(err)
	}
	charges := sound.Report.Parties[0].Charges
	if len(charges) != 8 || charges[0].Spec.Guarantee != dp.Pure(0.5) || math.Abs(charges[7].Spec.Guarantee.Epsilon-0.5/7) > 1e-12 {
		t.Errorf("sound charges: %d, first %v, last %v", len(charges), charges[0].Spec.Guarantee, charges[len(charges)-1].Spec.Guarantee)
	}
	paper, err := Publish(Options{Method: dppca.DPPCASVM, Table: train, Label: "Class", Epsilon: 0.01,
		Calibration: dppca.Paper, Scaling: ScaleStandardize, Source: randx.NewSeeded(11)})
	if err != nil {
		t.Fatal(err)
	}
	acc := testAccuracy(t, paper, test)
	t.Logf("Shuttle, paper calibration, ε = 0.01: k = %d, accuracy %.4f; sound ε = 1: k = %d, accuracy %.4f",
		paper.Fit.Components.K, acc, sound.Fit.Components.K, testAccuracy(t, sound, test))
	if acc < 0.93 {
		t.Errorf("paper calibration accuracy %.4f, want ≈ 0.955", acc)
	}
}

// DPPCA-SVM on WDBC at ε = 0.1 does no better than the majority class
// on its own training rows, which the owner's terminal must say; at ε = 4
// it does better. (The published report's warning that the components
// are mostly noise is dppca.NoiseWarning, tested in method/dppcasvm/dppca and
// dppcasvm.go.)
func TestClassifierWarning(t *testing.T) {
	tab := methodtest.Table(t, "wdbc")
	for _, c := range []struct {
		name string
		eps  float64
		warn bool
	}{
		{"wdbc at eps 0.1", 0.1, true},
		{"wdbc at eps 4", 4, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Publish(Options{Method: dppca.DPPCASVM, Table: tab, Label: "diagnosis", Epsilon: c.eps, Source: randx.NewSeeded(1)})
			if err != nil {
				t.Fatal(err)
			}
			acc, maj := testScores(t, res, tab)
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
