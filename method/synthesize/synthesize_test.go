package synthesize

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/randx"
)

// Every mistake is named by its key, so that the command line can name
// its flag.
func TestValidateNamesTheKey(t *testing.T) {
	cases := []struct {
		name string
		st   Settings
		key  string
		want string
	}{
		{"no budget", Settings{}, "rho", "must be positive and finite, got 0"},
		{"negative rho", Settings{Rho: -1}, "rho", "got -1"},
		{"epsilon and rho", Settings{Epsilon: 1, Rho: 0.5}, "epsilon", "cannot be combined"},
		{"epsilon and parties", Settings{Epsilon: 1, Parties: 2}, "epsilon", "cannot be combined"},
		{"delta", Settings{Rho: 1, Delta: 1}, "delta", "(0, 1)"},
		{"score", Settings{Rho: 1, Score: "mi"}, "score", `"mi"`},
		{"method", Settings{Rho: 1, Method: "mst"}, "method", `"mst"`},
		{"bad party", Settings{Rho: 1, Party: []string{"nocolon"}}, "party", "NAME:ATTR"},
		{"party budget", Settings{PartyBudgets: []float64{1, 0}}, "party_budgets", "got 0"},
		{"rows", Settings{Rho: 1, Rows: -1}, "rows", "got -1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.st.SetDefaults()
			err := c.st.Validate()
			var fe method.FieldError
			if !errors.As(err, &fe) || fe.Key != c.key || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want a mistake in %s saying %q", err, c.key, c.want)
			}
		})
	}
	ok := []Settings{{Rho: 1}, {Epsilon: 1, Delta: 1e-6}, {PartyBudgets: []float64{1, 0.1}, Parties: 2}}
	for _, st := range ok {
		st.SetDefaults()
		if err := st.Validate(); err != nil {
			t.Errorf("%+v: %v", st, err)
		}
	}
}

var schema = data.Schema{Attributes: []data.Attribute{
	{Name: "a", Kind: data.Binary, Categories: []string{"no", "yes"}},
	{Name: "b", Kind: data.Binary, Categories: []string{"no", "yes"}},
	{Name: "c", Kind: data.Binary, Categories: []string{"no", "yes"}},
}}

// The parties of columns and their budgets come from the settings and
// the schema: named groups, contiguous groups, one owner, or none for an
// (ε, δ) budget.
func TestPartyList(t *testing.T) {
	cases := []struct {
		name  string
		st    Settings
		names []string
		rhos  []float64
		err   string
	}{
		{"one owner", Settings{Rho: 0.5}, []string{"owner"}, []float64{0.5}, ""},
		{"contiguous", Settings{Rho: 1, Parties: 2, PartyBudgets: []float64{1, 0.1}}, []string{"party-1", "party-2"}, []float64{1, 0.1}, ""},
		{"named", Settings{Rho: 2, Party: []string{"x:a,b", "y:c"}}, []string{"x", "y"}, []float64{2, 2}, ""},
		{"epsilon", Settings{Epsilon: 1}, nil, nil, ""},
		{"too many", Settings{Rho: 1, Parties: 4}, nil, nil, "parties must be in 1..3"},
		{"budgets mismatch", Settings{Rho: 1, Parties: 2, PartyBudgets: []float64{1}}, nil, nil, "1 values for 2 parties"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.st.SetDefaults()
			ps, err := c.st.partyList(schema)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("got %v, want an error saying %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			var rhos []float64
			for _, p := range ps {
				names, rhos = append(names, p.Name), append(rhos, p.Rho)
			}
			if !slices.Equal(names, c.names) || !slices.Equal(rhos, c.rhos) {
				t.Fatalf("parties %v at %v, want %v at %v", names, rhos, c.names, c.rhos)
			}
		})
	}
}

// A seeded central run publishes as many rows as the table holds, with a
// report, and the same rows for the same seed.
func TestRunIsSeededAndReported(t *testing.T) {
	tab := &data.Table{Schema: schema}
	for i := range 200 {
		tab.Rows = append(tab.Rows, []float64{float64(i % 2), float64(i % 3 % 2), float64(i % 5 % 2)})
	}
	run := func() *method.Outcome {
		out, err := method.RunCentral(context.Background(), Spec, &Settings{Rho: 1, Rounds: 5},
			method.Local{Table: tab, Source: randx.NewSeeded(4), Facts: &method.Facts{}})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	a, b := run(), run()
	if a.Table.Len() != 200 || a.Report == nil || !a.Report.WithinBudget() {
		t.Fatalf("%d rows, report %v", a.Table.Len(), a.Report)
	}
	if !slices.EqualFunc(a.Table.Rows, b.Table.Rows, slices.Equal[[]float64]) {
		t.Fatal("two runs with the same seed published different rows")
	}
}
