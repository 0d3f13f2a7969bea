package synthesize

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/engine/marginal/domain"
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
		{"score", Settings{Rho: 1, EngineSettings: method.EngineSettings{Score: "mi"}}, "score", `"mi"`},
		{"method", Settings{Rho: 1, EngineSettings: method.EngineSettings{Method: "mst"}}, "method", `must be auto, adaptive or paper, got "mst"`},
		{"bad party", Settings{Rho: 1, Party: []string{"nocolon"}}, "party", "NAME:ATTR"},
		{"party budget", Settings{PartyBudgets: []float64{1, 0}}, "party_budgets", "got 0"},
		{"rows", Settings{Rho: 1, EngineSettings: method.EngineSettings{Rows: -1}}, "rows", "got -1"},
		{"bin share too large", Settings{Rho: 1, EngineSettings: method.EngineSettings{BinShare: 0.5}}, "bin_share", "got 0.5"},
		{"bin share and parties", Settings{Rho: 1, Parties: 2, EngineSettings: method.EngineSettings{BinShare: 0.1}}, "bin_share", "got 0.1"},
		{"bin refine unknown", Settings{Rho: 1, EngineSettings: method.EngineSettings{BinRefine: "both"}}, "bin_refine", `"both"`},
		{"bin refine on equal-width bins", Settings{Rho: 1, EngineSettings: method.EngineSettings{BinShare: -1, BinRefine: domain.RefineMeasured}}, "bin_refine", "bin_share ≥ 0"},
		{"bin refine and parties", Settings{Rho: 1, Parties: 2, EngineSettings: method.EngineSettings{BinRefine: domain.RefineDecoded}}, "bin_refine", "one party"},
		{"model cells", Settings{Rho: 1, EngineSettings: method.EngineSettings{MaxModelCells: 0.5}}, "max_model_cells", "got 0.5"},
		{"optimizer", Settings{Rho: 1, EngineSettings: method.EngineSettings{Optimizer: "adam"}}, "optimizer", `must be auto, mirror-descent or momentum, got "adam"`},
		{"label check share of 1", Settings{Rho: 1, EngineSettings: method.EngineSettings{Label: "income"}, LabelCheckShare: 1}, "label_check_share", "below 1"},
		{"label check share NaN", Settings{Rho: 1, EngineSettings: method.EngineSettings{Label: "income"}, LabelCheckShare: math.NaN()}, "label_check_share", "below 1"},
		{"label check without a label", Settings{Rho: 1, LabelCheckShare: 0.1}, "label_check_share", "needs a label"},
		{"label check and parties", Settings{Rho: 1, EngineSettings: method.EngineSettings{Label: "income"}, Parties: 2, LabelCheckShare: 0.1}, "label_check_share", "one party"},
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
	type E = method.EngineSettings
	ok := []Settings{{Rho: 1}, {Epsilon: 1, Delta: 1e-6}, {PartyBudgets: []float64{1, 0.1}, Parties: 2},
		{Rho: 1, EngineSettings: E{BinShare: -1}}, {Rho: 1, EngineSettings: E{BinShare: 0.2}}, {Rho: 1, Parties: 2, EngineSettings: E{BinShare: -1}},
		{Rho: 1, EngineSettings: E{BinRefine: domain.RefineMeasured}}, {Rho: 1, EngineSettings: E{BinShare: 0.1, BinRefine: domain.RefineDecoded}},
		{Rho: 1, EngineSettings: E{Method: marginal.MethodAuto}}, {Rho: 1, EngineSettings: E{Method: marginal.MethodPaper}}, {Rho: 1, EngineSettings: E{Method: marginal.MethodAdaptive}}}
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
		out, err := method.RunCentral(context.Background(), Spec, &Settings{Rho: 1, EngineSettings: method.EngineSettings{Rounds: 5}},
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

// bin_share decides where a numeric attribute's bins come from: by
// default 5 % of the owner's ρ buys bins refining the equal-width ones
// (one "bins of" release, more cells where the values pile up); a
// negative share keeps the --bins equal-width bins over the declared
// bounds, with the minimum and the maximum split off as bins of their own
// (domain.PublicValueCuts), and spends nothing on them; a larger share
// spends more.
func TestBinShareChoosesWhereBinsComeFrom(t *testing.T) {
	sc := data.Schema{Attributes: []data.Attribute{
		{Name: "x", Kind: data.Numeric, Min: 0, Max: 1000, Integer: true},
		{Name: "y", Kind: data.Binary, Categories: []string{"no", "yes"}},
	}}
	tab := &data.Table{Schema: sc}
	// 900 of 1000 values in [0, 62], the first of 16 equal-width bins
	// (width 62.5): data-chosen bins split it, equal-width ones cannot.
	for i := range 1000 {
		x := float64(i % 60)
		if i%10 == 0 {
			x = float64(100 + i%900)
		}
		tab.Rows = append(tab.Rows, []float64{x, float64(i % 2)})
	}
	cases := []struct {
		name      string
		share     float64
		binsRho   float64 // ρ charged to "bins of x"
		equalBins bool    // x keeps its 16 equal-width cells, 0 and 1000 split off: 18
	}{
		{"default", 0, 0.05, false},
		{"equal-width", -1, 0, true},
		{"larger share", 0.2, 0.2, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := &Settings{Rho: 1, EngineSettings: method.EngineSettings{Rounds: 5, BinShare: c.share}}
			st.SetDefaults()
			if err := st.Validate(); err != nil {
				t.Fatal(err)
			}
			out, err := method.RunCentral(context.Background(), Spec, st,
				method.Local{Table: tab, Source: randx.NewSeeded(7), Facts: &method.Facts{}})
			if err != nil {
				t.Fatal(err)
			}
			binsRho := 0.0
			for _, ch := range out.Report.Parties[0].Charges {
				if strings.HasPrefix(ch.Purpose, "bins of") {
					binsRho += ch.Spec.Guarantee.Rho
				}
			}
			if math.Abs(binsRho-c.binsRho) > 1e-12 {
				t.Errorf("bins charged ρ = %v, want %v", binsRho, c.binsRho)
			}
			if !out.Report.WithinBudget() {
				t.Error("report not within budget")
			}
			dom, err := st.Domain(sc)
			if err != nil {
				t.Fatal(err)
			}
			if got := dom.Sizes()[0]; (got == 18) != c.equalBins {
				t.Errorf("x has %d cells in the domain the reader encodes with; equal-width with the public values split off (18) wanted: %v", got, c.equalBins)
			}
		})
	}
}
