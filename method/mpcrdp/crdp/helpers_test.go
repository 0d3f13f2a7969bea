package crdp

import (
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/method/methodtest"
	"github.com/dppub/dppub/method/mpcrdp/correlation"
)

// wdbcParties returns WDBC with its 30 features split 10/10/10 and the
// parties' local analyses at w0 = 0.9.
func wdbcParties(t testing.TB) (*data.Table, []PartyFeatures, []PartyAnalysis) {
	t.Helper()
	w := methodtest.Table(t, "wdbc")
	f := w.Schema.Names()[1:]
	parties := []PartyFeatures{{"p1", f[:10]}, {"p2", f[10:20]}, {"p3", f[20:]}}
	var an []PartyAnalysis
	for _, pf := range parties {
		a, _, err := LocalAnalysis(pf.Name, w, pf.Features, 0.9, 10)
		if err != nil {
			t.Fatal(err)
		}
		an = append(an, a)
	}
	return w, parties, an
}

func labelsOf(t testing.TB, tab *data.Table, label string) []int {
	t.Helper()
	col, err := tab.Column(label)
	if err != nil {
		t.Fatal(err)
	}
	y := make([]int, len(col))
	for i, v := range col {
		y[i] = int(v)
	}
	return y
}

func discretizeForTest(tab *data.Table, features []string) (*correlation.Codes, error) {
	return correlation.Discretize(tab, features, correlation.DiscretizeOptions{})
}
