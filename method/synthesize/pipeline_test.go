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
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/method/methodtest"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
	"github.com/dppub/dppub/utility"
)

// Adult split between two parties, the second at ρ/10: the synthetic table
// has Adult's schema and size, every party is within its budget, and the
// report states the (ε, δ) equivalents and the whole-record guarantee.
func TestSynthesizeAdultPersonalised(t *testing.T) {
	tab, err := datasets.Load("adult")
	if err != nil {
		t.Fatal(err)
	}
	parties, err := EvenParties(tab.Schema, []float64{0.5, 0.05})
	if err != nil {
		t.Fatal(err)
	}
	if len(parties[0].Attributes) != 7 || len(parties[1].Attributes) != 8 {
		t.Fatalf("split %d + %d attributes, want 7 + 8", len(parties[0].Attributes), len(parties[1].Attributes))
	}
	res, err := Publish(context.Background(), Options{Table: tab, Parties: parties, Source: randx.NewSeeded(1)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Synthetic.Len() != tab.Len() || !res.Synthetic.Schema.Equal(tab.Schema) {
		t.Fatalf("synthetic table %d rows, schema equal %v", res.Synthetic.Len(), res.Synthetic.Schema.Equal(tab.Schema))
	}
	if err := res.Synthetic.Validate(); err != nil {
		t.Fatal(err)
	}
	r := res.Report
	if !r.WithinBudget() || len(r.Parties) != 2 {
		t.Fatalf("within budget %v, %d parties", r.WithinBudget(), len(r.Parties))
	}
	for k, p := range r.Parties {
		if p.AsDP == nil || p.AsDP.Delta != 1/float64(tab.Len())/float64(tab.Len()) {
			t.Errorf("party %s: no (ε, δ) statement at δ = 1/n²: %v", p.Party, p.AsDP)
		}
		if p.Spent.Rho > parties[k].Rho*(1+1e-9) || p.Spent.Rho < 0.5*parties[k].Rho {
			t.Errorf("party %s spent %v of %v", p.Party, p.Spent.Rho, parties[k].Rho)
		}
	}
	// ε by the zCDP conversion (dp.ZCDPEpsilon) for the strict party.
	p := r.Parties[1]
	want := dp.ZCDPEpsilon(p.Spent.Rho, p.AsDP.Delta)
	if math.Abs(p.AsDP.Epsilon-want) > 1e-9 {
		t.Errorf("ε = %v, want %v", p.AsDP.Epsilon, want)
	}
	warn := strings.Join(r.Warnings, " ")
	if !strings.Contains(warn, "SEEDED") || !strings.Contains(warn, "every party's columns") {
		t.Errorf("warnings miss the seed or the whole-record guarantee: %q", warn)
	}
	if r.PartyLevel == nil || r.PartyLevel.Rho > 0.5*(1+1e-9) {
		t.Errorf("party level %v exceeds the largest party budget", r.PartyLevel)
	}
	if r.WholeRecord == nil || r.Claimed != *r.WholeRecord {
		t.Errorf("claimed %v, want the record-level guarantee %v", r.Claimed, r.WholeRecord)
	}
}

func TestSynthesizeErrors(t *testing.T) {
	tab, _ := datasets.Load("adult")
	small := tab.Subset([]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	for name, o := range map[string]Options{
		"no table":      {Rho: 1},
		"zero rho":      {Table: small},
		"unknown attr":  {Table: small, Parties: []Party{{Name: "a", Rho: 1, Attributes: []string{"height"}}}},
		"missing attrs": {Table: small, Parties: []Party{{Name: "a", Rho: 1, Attributes: []string{"age"}}}},
		"bad delta":     {Table: small, Rho: 1, Delta: 2},
		"bins of parties": {Table: small, BinShare: 0.05, Parties: []Party{
			{Name: "a", Rho: 1, Attributes: small.Schema.Names()[:7]}, {Name: "b", Rho: 1, Attributes: small.Schema.Names()[7:]}}},
	} {
		o.Source = randx.NewSeeded(1)
		if _, err := Publish(context.Background(), o); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := EvenParties(tab.Schema, make([]float64, 16)); err == nil {
		t.Error("16 parties for 15 attributes: no error")
	}
}

// One owner, budget as (ε, δ) = (1, 1e-5): the adaptive method with
// data-adaptive bins spends exactly the ρ the conversion gives, the report
// states the conversion, and capital-gain (0 in 91.6 % of Adult's rows)
// keeps its zero mass within two points (its zero bin decodes to 0; the
// bin's noisy share has σ well under a point at this budget).
func TestSynthesizeEpsilonAdult(t *testing.T) {
	if testing.Short() {
		t.Skip("adaptive synthesis of Adult (several seconds)")
	}
	tab, err := datasets.Load("adult")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Publish(context.Background(), Options{Table: tab, Epsilon: 1, Delta: 1e-5, Source: randx.NewSeeded(1)})
	if err != nil {
		t.Fatal(err)
	}
	if want := dp.ZCDPEpsilon(res.Rho, 1e-5); want > 1 || want < 0.999 {
		t.Errorf("ρ = %v converts to ε = %v, want just under 1", res.Rho, want)
	}
	p := res.Report.Parties[0]
	if math.Abs(p.Spent.Rho-res.Rho) > 1e-9*res.Rho {
		t.Errorf("spent %v of ρ = %v", p.Spent.Rho, res.Rho)
	}
	if res.BinRho <= 0 || res.BinRho > 0.06*res.Rho {
		t.Errorf("bins cost %v of %v", res.BinRho, res.Rho)
	}
	if !strings.Contains(strings.Join(res.Report.Assumptions, " "), "Canonne, Kamath & Steinke") {
		t.Error("report does not state the (ε, δ) conversion")
	}
	if real, syn := zeroShare(t, tab, "capital-gain"), zeroShare(t, res.Synthetic, "capital-gain"); math.Abs(real-syn) > 0.02 {
		t.Errorf("capital-gain zeros: real %.3f, synthetic %.3f", real, syn)
	}
	j, _ := tab.Schema.Index("capital-gain")
	for _, r := range res.Synthetic.Rows {
		if r[j] != math.Trunc(r[j]) {
			t.Fatalf("capital-gain %v is not an integer", r[j])
		}
	}
	if _, err := Publish(context.Background(), Options{Table: tab, Epsilon: 1, Rho: 1}); err == nil {
		t.Error("epsilon and rho together: no error")
	}
}

// Shuttle (58 000 rows, nine integer columns over wide public ranges, V2
// and V4 zero in 62 % and 66 % of rows, in the middle of [−10000, 10000]):
// at (ε, δ) = (1, 1e-5) the default keeps both zero masses within three
// points (the public grid holds zero alone; the refined bins place
// values inside the measured ones), and the default refinement (decoded)
// reads the 16 equal-width bins' 2-way TVD below the measured
// refinement's: 0.0132 against 0.0213 here (paper engine, seed 7, every
// row); the harness's three seeds on its training rows gave 0.0151
// against 0.0221. The seed is fixed, so the test is deterministic;
// another seed would fail only if that 30–40 % gap closed.
func TestSynthesizeShuttleKeepsSignedZeros(t *testing.T) {
	if testing.Short() {
		t.Skip("synthesizes Shuttle twice (a few seconds)")
	}
	tab := methodtest.TableOrSkip(t, "shuttle")
	run := func(refine domain.Refinement) *Result {
		res, err := Publish(context.Background(), Options{Table: tab, Epsilon: 1, Delta: 1e-5, Refine: refine, Source: randx.NewSeeded(7)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	decoded, measured := run(""), run(domain.RefineMeasured)
	for _, name := range []string{"V2", "V4"} {
		if real, syn := zeroShare(t, tab, name), zeroShare(t, decoded.Synthetic, name); math.Abs(real-syn) > 0.03 || real < 0.5 {
			t.Errorf("%s zeros: real %.3f, synthetic %.3f", name, real, syn)
		}
	}
	d, err := utility.PairTVD(tab, decoded.Synthetic, domain.DefaultBins)
	if err != nil {
		t.Fatal(err)
	}
	m, err := utility.PairTVD(tab, measured.Synthetic, domain.DefaultBins)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("2-way TVD at 16 equal-width bins: decoded %.4f, measured %.4f", d, m)
	if d >= m {
		t.Errorf("decoded refinement's 2-way TVD %.4f is not below the measured one's %.4f", d, m)
	}
}

// zeroShare is the share of tab's rows whose column col is exactly 0.
func zeroShare(t *testing.T, tab *data.Table, col string) float64 {
	t.Helper()
	s, err := tab.Share(col, 0)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

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
	dom, err := domain.New(schema, domain.Options{})
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
			real, err := domain.Chunks{domain.CellsOf(ds)}.Merged()
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
