package privacy

import (
	"strings"
	"testing"

	"github.com/dppub/dppub/dp"
)

// A report that names its neighbouring relation states it in the
// headline, the JSON and the relation's sentence; one that does not is
// unchanged.
func TestReportNamesTheNeighbouringRelation(t *testing.T) {
	for _, tc := range []struct {
		nb       dp.Neighbours
		headline string
		relation string
		json     string
	}{
		{"", "holds: ρ=0.5 (zCDP) per record", "replace one record", ""},
		{dp.NeighboursReplaceOne, "holds: ρ=0.5 (zCDP) per record (replace-one neighbours, n public)", "replace one record", `"neighbours": "replace-one"`},
		{dp.NeighboursAddRemove, "holds: ρ=0.5 (zCDP) per record (add/remove neighbours)", "add or remove one record", `"neighbours": "add-remove"`},
	} {
		t.Run(string(tc.nb), func(t *testing.T) {
			a, err := NewAccountant(AccountantOptions{Party: "owner", Budget: dp.Concentrated(1)})
			if err != nil {
				t.Fatal(err)
			}
			if err := a.Spend(Charge{Purpose: "counts", Spec: dp.Spec{Mechanism: "gaussian", Guarantee: dp.Concentrated(0.5)}}); err != nil {
				t.Fatal(err)
			}
			r, err := NewReport(ReportOptions{Method: "m", Calibration: "sound", Accountants: []*Accountant{a}, Neighbours: tc.nb, Composition: Single})
			if err != nil {
				t.Fatal(err)
			}
			if h := r.Headline(); h != tc.headline {
				t.Errorf("headline %q, want %q", h, tc.headline)
			}
			js, err := r.JSON()
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(r.Neighbouring, tc.relation) || (tc.json == "") == strings.Contains(string(js), `"neighbours"`) || !strings.Contains(string(js), tc.json) {
				t.Errorf("relation %q; JSON %s", r.Neighbouring, js)
			}
		})
	}
	a, _ := NewAccountant(AccountantOptions{Party: "owner", Budget: dp.Concentrated(1)})
	if _, err := NewReport(ReportOptions{Method: "m", Accountants: []*Accountant{a}, Neighbours: "swap"}); err == nil {
		t.Error("a report with an unknown relation")
	}
}
