package privacy

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dppub/dppub/dp"
)

func charge(purpose string, g dp.Guarantee) Charge {
	return Charge{Purpose: purpose, Spec: dp.Spec{Mechanism: "laplace", Guarantee: g}}
}

func TestAccountantRefusesOverspending(t *testing.T) {
	a, err := NewAccountant(AccountantOptions{Party: "owner-1", Budget: dp.Pure(1)})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Spend(charge("mean", dp.Pure(0.5))); err != nil {
		t.Fatal(err)
	}
	if err := a.Spend(charge("second moment", dp.Pure(0.5))); err != nil {
		t.Fatal(err)
	}
	err = a.Spend(charge("extra", dp.Pure(0.01)))
	if err == nil {
		t.Fatal("overspending accepted")
	}
	for _, want := range []string{`"owner-1"`, "remaining", `"extra"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
	if got := a.Spent().Epsilon; got != 1 {
		t.Fatalf("spent %v after a refused charge, want 1", got)
	}
	if len(a.Charges()) != 2 {
		t.Fatalf("refused charge was recorded")
	}
}

func TestZCDPAccountantConvertsPureAndRefusesApprox(t *testing.T) {
	a, _ := NewAccountant(AccountantOptions{Party: "p", Budget: dp.Concentrated(0.5)})
	if err := a.Spend(charge("1-way", dp.Pure(0.6))); err != nil { // ρ = 0.18
		t.Fatal(err)
	}
	if err := a.Spend(charge("gauss", dp.Approx(0.1, 1e-6))); err == nil {
		t.Fatal("approx charge with delta accepted into a zCDP budget")
	}
	if err := a.Spend(charge("pairs", dp.Concentrated(0.33))); err == nil {
		t.Fatal("0.18 + 0.33 > 0.5 accepted")
	}
	if r := a.Remaining().Rho; r < 0.319 || r > 0.321 {
		t.Fatalf("remaining rho %v, want 0.32", r)
	}
}

func TestReportParallelCompositionAndJSON(t *testing.T) {
	var accts []*Accountant
	for _, name := range []string{"owner-1", "owner-2"} {
		a, _ := NewAccountant(AccountantOptions{Party: name, Budget: dp.Pure(1)})
		_ = a.Spend(charge("stats", dp.Pure(0.8)))
		accts = append(accts, a)
	}
	r, err := NewReport(ReportOptions{Method: "m", Composition: ParallelOverOwners, Accountants: accts,
		NotCovered: []string{"record counts"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Claimed.Epsilon != 0.8 || !r.WithinBudget() {
		t.Fatalf("overall %v within %v; want ε=0.8 within", r.Claimed, r.WithinBudget())
	}
	b, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Parties[1].Spent.Epsilon != 0.8 || back.Parties[1].Spent.Notion != dp.PureDP {
		t.Fatalf("round trip lost the spend: %+v", back.Parties[1])
	}
	if !strings.Contains(r.Text(), "NOT covered by DP") {
		t.Fatal("text report lacks the not-covered section")
	}
}
