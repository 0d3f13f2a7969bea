package privbayes

import (
	"context"
	"slices"
	"testing"

	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/method/methodtest"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// Every mistake is named by its key, so that a command line (PrivBayes'
// and DP-SUBN3's) can name its flag.
func TestValidateNamesTheKey(t *testing.T) {
	methodtest.CheckMistakes(t, []methodtest.Mistake[Settings]{
		methodtest.Wrong("no budget", Settings{}, "epsilon", "got 0"),
		methodtest.Wrong("beta", Settings{Epsilon: 1, Beta: 1}, "beta", "(0, 1)"),
		methodtest.Wrong("theta", Settings{Epsilon: 1, Theta: -1}, "theta", "got -1"),
		methodtest.Wrong("k", Settings{Epsilon: 1, K: -1}, "k", "got -1"),
		methodtest.Wrong("one bin", Settings{Epsilon: 1, Bins: 1}, "bins", "at least 2"),
		methodtest.Wrong("score", Settings{Epsilon: 1, Score: "f"}, "score", `"f"`),
	})
}

// A seeded central run is reproducible, spends exactly the owner's ε in
// two charges (structure, marginals) and publishes as many rows as the
// owner holds.
func TestRunSpendsTheBudgetOnce(t *testing.T) {
	tab := methodtest.Table(t, "nltcs")
	run := func() *method.Outcome {
		facts := &method.Facts{}
		out, err := method.RunCentral(context.Background(), Spec, &Settings{Epsilon: 0.5},
			method.Local{Table: tab, Source: randx.NewSeeded(1), Facts: facts})
		if err != nil {
			t.Fatal(err)
		}
		if facts.Rows != tab.Len() {
			t.Fatalf("facts: %d rows, want %d", facts.Rows, tab.Len())
		}
		return out
	}
	a, b := run(), run()
	r := a.Report
	if a.Table.Len() != tab.Len() || r.Claimed.Epsilon != 0.5 || r.Composition != privacy.Single || !r.WithinBudget() || len(r.Parties[0].Charges) != 2 {
		t.Fatalf("%d rows; report %+v", a.Table.Len(), r)
	}
	if _, ok := a.Detail.(*Result); !ok {
		t.Fatalf("detail %T, want *Result", a.Detail)
	}
	if !slices.EqualFunc(a.Table.Rows, b.Table.Rows, slices.Equal[[]float64]) {
		t.Fatal("two runs with the same seed published different rows")
	}
}
