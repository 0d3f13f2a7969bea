package dppcasvm

import (
	"strings"
	"testing"

	"github.com/dppub/dppub/learn"
	"github.com/dppub/dppub/method/dppcasvm/dppca"
	"github.com/dppub/dppub/method/methodtest"
	"github.com/dppub/dppub/randx"
)

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
			pred, err := res.Model.Apply(tab)
			if err != nil {
				t.Fatal(err)
			}
			truth, _, err := res.Model.Truth(tab)
			if err != nil {
				t.Fatal(err)
			}
			acc, maj := learn.Accuracy(pred, truth), learn.MajorityShare(truth)
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
