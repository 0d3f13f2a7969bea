package schemadisc

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/randx"
)

// adultRaw is the built-in Adult table (real census data) written as a CSV
// with a header, as a new user's file would be.
func adultRaw(t *testing.T) (*data.Raw, *data.Table, []byte) {
	t.Helper()
	tab, err := datasets.Load("adult")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := data.WriteCSV(&buf, tab); err != nil {
		t.Fatal(err)
	}
	raw, err := data.ReadRaw(bytes.NewReader(buf.Bytes()), "adult.csv")
	if err != nil {
		t.Fatal(err)
	}
	return raw, tab, buf.Bytes()
}

func TestGridIsPublicAndOrdered(t *testing.T) {
	for _, integer := range []bool{false, true} {
		g := Grid(integer)
		if !slices.IsSorted(g) || !slices.Contains(g, 0) || g[0] != -9e9 || g[len(g)-1] != 9e9 {
			t.Fatalf("integer=%v: grid from %v to %v, %d edges", integer, g[0], g[len(g)-1], len(g))
		}
		for i := 1; i < len(g); i++ {
			if g[i] == g[i-1] || (integer && g[i] != math.Trunc(g[i])) {
				t.Fatalf("integer=%v: edge %v after %v", integer, g[i], g[i-1])
			}
		}
	}
	if g := Grid(false); !slices.Contains(g, 0.00012) || !slices.Contains(g, 1.2) || !slices.Contains(g, 120) {
		t.Fatal("decimal edges are not the exact decimals 0.00012, 1.2, 120")
	}
}

func TestProfileColumn(t *testing.T) {
	cases := []struct {
		name     string
		col      []string
		kind     data.Kind
		integer  bool
		decimals int
		pair     []string
	}{
		{"integers", []string{"1000118", "3", "?", "-4"}, data.Numeric, true, 0, nil},
		{"decimals", []string{"1.25", "3.5", "0.125"}, data.Numeric, false, 3, nil},
		{"exponent written exactly", []string{"6.26036e-05", "1.5"}, data.Numeric, false, 1, nil},
		{"capped decimals", []string{"0.123456789"}, data.Numeric, false, 6, nil},
		{"zero one", []string{"0", "1", "1", ""}, data.Binary, false, 0, []string{"0", "1"}},
		{"yes no", []string{"Yes", "no", "Yes"}, data.Binary, false, 0, []string{"no", "Yes"}},
		{"text", []string{"red", "green", "3"}, data.Categorical, false, 0, nil},
		{"two unknown words", []string{"Female", "Male"}, data.Categorical, false, 0, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := profileColumn(c.col, 6)
			if p.kind != c.kind || p.integer != c.integer || p.decimals != c.decimals || !slices.Equal(p.pair, c.pair) {
				t.Fatalf("profile = kind %v integer %v decimals %d pair %q", p.kind, p.integer, p.decimals, p.pair)
			}
		})
	}
}

// Bounds of four Adult columns at ρ = 0.005 each (noise σ = 14 rows per
// count, the fine grid): never outside the grid bins holding the data's
// extremes, and clamping at most 3% of the rows at either end (bins below
// the keep threshold, about 75 rows here, are passed over, so a bound may
// sit inside the 0.5% quantile by a few hundred rows). The test fails
// only if noise lifts an empty bin far from the data over the threshold
// (probability below failureRate = 10⁻³ per column) or pushes a bin of
// over a thousand rows under it (far below 10⁻¹⁰⁰).
func TestBoundsAdult(t *testing.T) {
	_, tab, _ := adultRaw(t)
	n := dp.NewNoiser(randx.NewSeeded(7))
	for _, name := range []string{"age", "hours-per-week", "capital-gain", "fnlwgt"} {
		t.Run(name, func(t *testing.T) {
			col, err := tab.Column(name)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Bounds(n, col, 0, true, numericSigma(0.005), 12)
			if err != nil {
				t.Fatal(err)
			}
			if !b.Found {
				t.Fatalf("no bounds found on 45k rows: %s", b.Why)
			}
			h := newHistogram(Grid(true))
			lo, hi := slices.Min(col), slices.Max(col)
			if b.Min < h.lo(h.binOf(lo)) || b.Max > h.hi(h.binOf(hi)) {
				t.Fatalf("bounds [%v, %v] outside the grid bins of the data's range [%v, %v]", b.Min, b.Max, lo, hi)
			}
			fb, fa := clampedShares(col, b.Min, b.Max)
			if fb > 0.03 || fa > 0.03 {
				t.Fatalf("bounds [%v, %v] clamp %.2f%% below and %.2f%% above", b.Min, b.Max, 100*fb, 100*fa)
			}
			if est := b.Beyond; math.Abs(est-(fb+fa)) > 4*b.BeyondSD+0.005 {
				t.Fatalf("estimated clamped share %.4f ± %.4f, true %.4f", est, b.BeyondSD, fb+fa)
			}
			t.Logf("DP bounds [%v, %v] (data [%v, %v]) clamp %.2f%% / %.2f%% (estimated %.2f%% ± %.2f%%), threshold %.0f rows",
				b.Min, b.Max, lo, hi, 100*fb, 100*fa, 100*b.Beyond, 100*b.BeyondSD, b.Threshold)
		})
	}
}

// clampedShares is the share of col below lo and above hi.
func clampedShares(col []float64, lo, hi float64) (below, above float64) {
	for _, v := range col {
		if v < lo {
			below++
		}
		if v > hi {
			above++
		}
	}
	return below / float64(len(col)), above / float64(len(col))
}

// With far fewer rows than the threshold, no bound is found rather than
// a bad one.
func TestBoundsTooFewRows(t *testing.T) {
	b, err := Bounds(dp.NewNoiser(randx.NewSeeded(1)), []float64{1, 2, 3, 4, 5}, 0, true, numericSigma(0.005), 1)
	if err != nil {
		t.Fatal(err)
	}
	if b.Found || !math.IsNaN(b.Min) || b.Why == "" {
		t.Fatalf("5 rows at σ = 14 gave bounds [%v, %v]", b.Min, b.Max)
	}
}

// A value held by one record is kept with probability at most δ_sel
// (the partition selection's claim). At σ = 1, δ_sel = 0.05 the
// threshold is 3.45; over 4000 runs the observed rate exceeds 0.05 by
// four standard deviations with probability below 10⁻⁴ if the claim
// holds. Values held by 1000 records are always kept (missing one has
// probability below e⁻⁴⁰⁰).
func TestCategoriesSingletonRate(t *testing.T) {
	const runs, sigma, deltaSel = 4000, 1.0, 0.05
	n := dp.NewNoiser(randx.NewSeeded(3))
	values := append(slices.Repeat([]string{"a"}, 1000), slices.Repeat([]string{"b"}, 1000)...)
	values = append(values, "rare")
	kept := 0
	for range runs {
		res, err := Categories(n, values, sigma, deltaSel)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(res.Kept, "a") || !slices.Contains(res.Kept, "b") {
			t.Fatalf("frequent values dropped: %q", res.Kept)
		}
		if slices.Contains(res.Kept, "rare") {
			kept++
		}
	}
	limit := deltaSel + 4*math.Sqrt(deltaSel*(1-deltaSel)/runs)
	if rate := float64(kept) / runs; rate > limit {
		t.Fatalf("singleton kept in %.4f of runs, claim ≤ %.4f (limit %.4f)", rate, deltaSel, limit)
	}
}

func TestDiscoverDraft(t *testing.T) {
	raw, _, _ := adultRaw(t)
	res, err := Discover(raw, Options{Label: "income"})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Schema
	if !s.Draft || res.Report != nil || s.Label != "income" || len(s.Attributes) != len(raw.Header) {
		t.Fatalf("draft = %+v, report %v", s, res.Report)
	}
	age, _ := s.Attribute("age")
	if age.Kind != data.Numeric || !age.Integer || !math.IsNaN(age.Min) || !math.IsNaN(age.Max) {
		t.Fatalf("age = %+v: a draft must not carry bounds read from the data", age)
	}
	sex, _ := s.Attribute("sex")
	if sex.Kind != data.Categorical || !slices.Equal(sex.Categories, []string{"Female", "Male"}) {
		t.Fatalf("sex = %+v", sex)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := data.ParseSchema(b); !errors.Is(err, data.ErrDraft) {
		t.Fatalf("the draft parses: %v", err)
	}
	for _, c := range res.Columns {
		if !c.Review && c.Kind != data.Binary {
			t.Errorf("column %q not marked for review: %s", c.Name, c.Note)
		}
	}
}

// DP discovery on Adult at ε = 2, δ = 1e-6: every bound is found, the
// budget is spent (to within the conversion's rounding, never over), and the file reads with the discovered schema
// (values rarer than the selection's threshold read as "other").
func TestDiscoverDPAdult(t *testing.T) {
	raw, tab, csv := adultRaw(t)
	res, err := Discover(raw, Options{Epsilon: 2, Delta: 1e-6, Source: randx.NewSeeded(11), Label: "income"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Schema.Draft {
		for _, c := range res.Columns {
			t.Logf("%s: %s", c.Name, c.Note)
		}
		t.Fatal("DP discovery on 45k rows left a column for review")
	}
	if err := res.Schema.Validate(); err != nil {
		t.Fatal(err)
	}
	spent := res.Report.Parties[0].Spent
	if spent.Epsilon > 2 || spent.Epsilon < 2*(1-1e-6) || spent.Delta > 1e-6*(1+1e-9) || !res.Report.WithinBudget() {
		t.Fatalf("spent %v of (2, 1e-6)", spent)
	}
	wc, _ := res.Schema.Attribute("workclass")
	if !slices.Contains(wc.Categories, "Private") || wc.Other != OtherCategory {
		t.Fatalf("workclass = %+v", wc)
	}
	back, st, err := data.ReadCSV(bytes.NewReader(csv), res.Schema, data.ReadOptions{Header: true})
	if err != nil {
		t.Fatal(err)
	}
	if back.Len() != tab.Len() {
		t.Fatalf("read %d rows of %d", back.Len(), tab.Len())
	}
	t.Logf("%d cells read as %q", st.MappedToOther, OtherCategory)
}

func TestDiscoverErrors(t *testing.T) {
	raw, err := data.ReadRaw(strings.NewReader("id,age,color,empty\n1,30,red,?\n2,40,blue,\n"), "in")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		o    Options
		want string
	}{
		{"all missing", Options{}, `column "empty" has no values`},
		{"numeric label", Options{Skip: []string{"empty"}, Label: "age"}, `label "age" holds numbers`},
		{"unknown column", Options{Skip: []string{"nope"}}, `no column "nope"`},
		{"negative epsilon", Options{Epsilon: -1}, "epsilon must be positive"},
		{"delta without epsilon", Options{Delta: 1e-6}, "delta needs epsilon"},
		{"label is id", Options{ID: "id", Label: "id"}, "also the ID"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := Discover(raw, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
}
