package synthesize

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/method/methodtest"
	"github.com/dppub/dppub/randx"
)

// A seeded add/remove run on Adult is charged exactly: the record count
// first, at 1% of ρ with sensitivity 1, then every count release at
// sensitivity 1, the charges summing to the budget; the noisy count
// stands for n (the synthetic rows), and the report and its headline
// name the relation.
func TestAddRemoveAdultChargedExactly(t *testing.T) {
	tab, err := datasets.Load("adult")
	if err != nil {
		t.Skipf("adult not available: %v", err)
	}
	for _, m := range []marginal.Method{marginal.MethodAdaptive, marginal.MethodPaper} {
		t.Run(string(m), func(t *testing.T) {
			res, err := Publish(context.Background(), Options{Table: tab, Epsilon: 1, Delta: 1e-5, Method: m, Rounds: 5,
				Neighbours: dp.NeighboursAddRemove, Source: randx.NewSeeded(3)})
			if err != nil {
				t.Fatal(err)
			}
			rho, err := marginal.RhoFor(1, 1e-5)
			if err != nil {
				t.Fatal(err)
			}
			r := res.Report
			if len(r.Parties) != 1 || !r.WithinBudget() {
				t.Fatalf("%d parties, within budget %v", len(r.Parties), r.WithinBudget())
			}
			p := r.Parties[0]
			if math.Abs(p.Spent.Rho-rho) > 1e-9*rho || p.Budget.Rho != rho {
				t.Errorf("spent ρ = %.12g of %.12g, want the whole budget", p.Spent.Rho, p.Budget.Rho)
			}
			sum := 0.0
			for _, c := range p.Charges {
				sum += c.Spec.Guarantee.Rho
				if c.Spec.Guarantee.Notion != dp.ZCDP {
					t.Errorf("%s: a %v charge in a zCDP run", c.Purpose, c.Spec.Guarantee.Notion)
				}
			}
			if math.Abs(sum-rho) > 1e-9*rho {
				t.Errorf("charges sum to ρ = %.12g, budget %.12g", sum, rho)
			}
			first := p.Charges[0]
			if first.Purpose != "record count (add/remove neighbours)" || first.Spec.Sensitivity != 1 ||
				math.Abs(first.Spec.Guarantee.Rho-measurement.DefaultCountShare*rho) > 1e-15 {
				t.Errorf("first charge %q, sensitivity %v, ρ %v: want the record count at sensitivity 1 and ρ %v",
					first.Purpose, first.Spec.Sensitivity, first.Spec.Guarantee.Rho, measurement.DefaultCountShare*rho)
			}
			counts := 0
			for _, c := range p.Charges[1:] {
				kind, _, _ := strings.Cut(c.Purpose, " ")
				switch kind {
				case "one-way", "marginal", "adaptive", "bins", "iindif":
					if strings.HasPrefix(c.Purpose, "adaptive selection") {
						continue
					}
					counts++
					if c.Spec.Sensitivity != 1 {
						t.Errorf("%s: sensitivity %v, want 1 under add/remove", c.Purpose, c.Spec.Sensitivity)
					}
				}
			}
			if counts < 15 {
				t.Errorf("only %d count releases checked", counts)
			}
			sigma := 1 / math.Sqrt(2*measurement.DefaultCountShare*rho)
			if d := math.Abs(float64(res.Records - tab.Len())); d > 6*sigma || res.Records == tab.Len() && d != 0 {
				t.Errorf("released count %d, true %d: off by %v, σ = %.3g", res.Records, tab.Len(), d, sigma)
			}
			if res.Synthetic.Len() != res.Records || res.CountRho != measurement.DefaultCountShare*rho {
				t.Errorf("%d synthetic rows for the released count %d; count ρ %v", res.Synthetic.Len(), res.Records, res.CountRho)
			}
			if h := r.Headline(); !strings.Contains(h, "per record (add/remove neighbours)") {
				t.Errorf("headline %q does not name add/remove neighbours", h)
			}
			js, err := r.JSON()
			if err != nil {
				t.Fatal(err)
			}
			var raw map[string]any
			if err := json.Unmarshal(js, &raw); err != nil {
				t.Fatal(err)
			}
			if raw["neighbours"] != "add-remove" || !strings.Contains(raw["neighbouring_relation"].(string), "add or remove one record") {
				t.Errorf("report neighbours %v, relation %v", raw["neighbours"], raw["neighbouring_relation"])
			}
			text := r.Text()
			for _, want := range []string{"released first as", "4ρ", "sensitivities under add-remove: a count vector moves by"} {
				if !strings.Contains(text, want) {
					t.Errorf("report does not say %q", want)
				}
			}
			if strings.Contains(text, "is public (replace-one") || len(r.NotCovered) != 0 {
				t.Errorf("report still calls n public or uncovered: %v", r.NotCovered)
			}
		})
	}
}

// The default relation is named in the report as replace-one, n public.
func TestReplaceOneReportNamesTheRelation(t *testing.T) {
	tab, err := datasets.Load("adult")
	if err != nil {
		t.Skipf("adult not available: %v", err)
	}
	rows := make([]int, 2000)
	for i := range rows {
		rows[i] = i
	}
	res, err := Publish(context.Background(), Options{Table: tab.Subset(rows), Rho: 0.1, Rounds: 3, Source: randx.NewSeeded(1)})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Report
	if r.Neighbours != dp.NeighboursReplaceOne || !strings.HasSuffix(r.Headline(), "per record (replace-one neighbours, n public); the randomness is seeded and predictable") &&
		!strings.Contains(r.Headline(), "per record (replace-one neighbours, n public)") {
		t.Errorf("neighbours %q, headline %q", r.Neighbours, r.Headline())
	}
	if res.Records != 2000 || res.CountRho != 0 || r.Parties[0].Charges[0].Purpose == "record count (add/remove neighbours)" {
		t.Errorf("replace-one released the count: records %d, count ρ %v", res.Records, res.CountRho)
	}
}

// What add/remove cannot give is refused, naming the flag.
func TestAddRemoveRefusals(t *testing.T) {
	methodtest.CheckMistakes(t, []methodtest.Mistake[Settings]{
		methodtest.Wrong("unknown", Settings{Rho: 1, EngineSettings: method.EngineSettings{Neighbours: "swap"}}, "neighbours", `got "swap"`),
		methodtest.Wrong("parties", Settings{Rho: 1, Parties: 2, EngineSettings: method.EngineSettings{Neighbours: dp.NeighboursAddRemove}}, "neighbours", "--parties"),
		methodtest.Wrong("party budgets", Settings{PartyBudgets: []float64{1, 0.1}, EngineSettings: method.EngineSettings{Neighbours: dp.NeighboursAddRemove}}, "neighbours", "one owner"),
		methodtest.Wrong("epsilon without delta", Settings{Epsilon: 1, EngineSettings: method.EngineSettings{Neighbours: dp.NeighboursAddRemove}}, "delta", "δ cannot default to 1/n²"),
	})
	for _, st := range []Settings{{Rho: 1, EngineSettings: method.EngineSettings{Neighbours: dp.NeighboursAddRemove}}, {Epsilon: 1, Delta: 1e-6, EngineSettings: method.EngineSettings{Neighbours: dp.NeighboursAddRemove}}} {
		st.SetDefaults()
		if err := st.Validate(); err != nil {
			t.Errorf("%+v: %v", st, err)
		}
	}
	var st Settings
	st.SetDefaults()
	if st.Neighbours != dp.NeighboursReplaceOne {
		t.Errorf("default relation %q", st.Neighbours)
	}
	// Publish itself refuses an (ε, δ) budget without δ, before spending.
	tab, err := datasets.Load("adult")
	if err != nil {
		t.Skipf("adult not available: %v", err)
	}
	_, err = Publish(context.Background(), Options{Table: tab, Epsilon: 1, Neighbours: dp.NeighboursAddRemove, Source: randx.NewSeeded(1)})
	if err == nil || !strings.Contains(err.Error(), "--delta") {
		t.Errorf("ε without δ under add/remove: %v", err)
	}
}
