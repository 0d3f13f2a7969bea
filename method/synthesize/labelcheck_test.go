package synthesize

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/method/methodtest"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// The label check counts exactly, weights of merged records included: a
// label that is a function of one column is predicted right on every
// record of a table that follows it and wrong on every record of one that
// flips it; at ρ = 10⁶ the noise (σ ≈ 0.0007 records on the integer grid)
// moves no count, so the released accuracy is the exact one.
func TestLabelCheckCountsExactly(t *testing.T) {
	schema := data.Schema{Attributes: []data.Attribute{
		{Name: "a", Kind: data.Categorical, Categories: []string{"w", "x", "y", "z"}},
		{Name: "b", Kind: data.Categorical, Categories: []string{"p", "q", "r"}},
		{Name: "label", Kind: data.Binary, Categories: []string{"even", "odd"}},
	}}
	table := func(flip bool, n int) *data.Table {
		tab := &data.Table{Schema: schema}
		for i := range n {
			a, b := i%4, (i/4)%3
			y := a % 2
			if flip {
				y = 1 - y
			}
			tab.Rows = append(tab.Rows, []float64{float64(a), float64(b), float64(y)})
		}
		return tab
	}
	dom, err := marginal.NewDomain(schema, marginal.DomainOptions{})
	if err != nil {
		t.Fatal(err)
	}
	synth, _, err := dom.Encode(table(false, 400))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		flip bool
		want float64
	}{{"labels as in the synthetic rows", false, 1}, {"labels flipped", true, 0}} {
		t.Run(c.name, func(t *testing.T) {
			ds, _, err := dom.Encode(table(c.flip, 1000))
			if err != nil {
				t.Fatal(err)
			}
			real, err := marginal.Chunks{marginal.CellsOf(ds)}.Merged()
			if err != nil {
				t.Fatal(err)
			}
			if real.Distinct() >= 1000 {
				t.Fatalf("%d distinct rows: the records were not merged, so weights go untested", real.Distinct())
			}
			acct, err := privacy.NewAccountant(privacy.AccountantOptions{Party: "owner", Budget: dp.Concentrated(1e6)})
			if err != nil {
				t.Fatal(err)
			}
			got, err := checkLabel("label", dom, real, synth, 1000, 1e6, acct, randx.NewSeeded(1))
			if err != nil {
				t.Fatal(err)
			}
			if got.Real != c.want || got.Synthetic != 1 || got.Majority != 0.5 || got.Trained != 200 {
				t.Errorf("real %v (want %v), synthetic %v (want 1), majority %v (want 0.5), trained on %d (want 200)",
					got.Real, c.want, got.Synthetic, got.Majority, got.Trained)
			}
			if s := acct.Spent(); s.Rho != 1e6 {
				t.Errorf("spent %v, want ρ = 1e6 charged for the one count", s)
			}
		})
	}
}

// On Adult at ε = 1, the check costs its share of ρ inside the budget,
// the report covers it, and its figures are those of a useful model: the
// real accuracy well above the majority class (0.75) and within 0.03 of
// the synthetic one (logistic regression on the real records reaches about
// 0.85). Without a label, or with a negative share, nothing is checked
// and nothing is spent on it.
func TestLabelCheckOnAdult(t *testing.T) {
	tab, err := datasets.Load("adult")
	if err != nil {
		t.Skipf("adult not available: %v", err)
	}
	for _, c := range []struct {
		name  string
		label string
		share float64
		check bool
	}{
		{"label, default share", "income", 0, true},
		{"label, no check", "income", -1, false},
		{"no label", "", 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Publish(context.Background(), Options{Table: tab, Epsilon: 1, Label: c.label, LabelCheckShare: c.share,
				Method: marginal.MethodPaper, Rounds: 5, Source: randx.NewSeeded(5)})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Report.WithinBudget() {
				t.Fatal("the run overspent")
			}
			lc := res.LabelCheck
			if (lc != nil) != c.check {
				t.Fatalf("label check %v, want one: %v", lc, c.check)
			}
			covered := slices.ContainsFunc(res.Report.Covered, func(s string) bool { return strings.Contains(s, "label check") })
			if covered != c.check {
				t.Errorf("report covers the check: %v, want %v", covered, c.check)
			}
			if !c.check {
				return
			}
			if want := DefaultLabelCheckShare * res.Rho; math.Abs(lc.Rho-want) > 1e-12*want {
				t.Errorf("check ρ = %v, want %v", lc.Rho, want)
			}
			if sigma := 1 / math.Sqrt(2*lc.Rho); math.Abs(lc.Sigma-sigma) > 1e-9*sigma {
				t.Errorf("σ = %v, want 1/√(2ρ) = %v", lc.Sigma, sigma)
			}
			if !(lc.Real > lc.Majority+0.05 && lc.Real < 0.9 && math.Abs(lc.Loss()) < 0.03) {
				t.Errorf("real accuracy %.3f, synthetic %.3f, majority %.3f: want a useful model", lc.Real, lc.Synthetic, lc.Majority)
			}
		})
	}
}

// The share is refused where it cannot apply, naming its flag.
func TestLabelCheckShareMistakes(t *testing.T) {
	methodtest.CheckMistakes(t, []methodtest.Mistake[Settings]{
		methodtest.Wrong("share of 1", Settings{Rho: 1, EngineSettings: method.EngineSettings{Label: "income"}, LabelCheckShare: 1}, "label_check_share", "below 1"),
		methodtest.Wrong("NaN share", Settings{Rho: 1, EngineSettings: method.EngineSettings{Label: "income"}, LabelCheckShare: math.NaN()}, "label_check_share", "below 1"),
		methodtest.Wrong("no label", Settings{Rho: 1, LabelCheckShare: 0.1}, "label_check_share", "needs a label"),
		methodtest.Wrong("several parties", Settings{Rho: 1, EngineSettings: method.EngineSettings{Label: "income"}, Parties: 2, LabelCheckShare: 0.1}, "label_check_share", "one party"),
	})
}
