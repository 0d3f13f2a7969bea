package quality

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/randx"
)

func TestCombinations(t *testing.T) {
	var got []string
	combinations(4, 2, func(s []int) { got = append(got, jsonOf(s)) })
	if strings.Join(got, " ") != "[0,1] [0,2] [0,3] [1,2] [1,3] [2,3]" || binomial(4, 2) != 6 || binomial(58, 3) != 30856 {
		t.Fatalf("combinations %v", got)
	}
}

func jsonOf(v any) string { b, _ := json.Marshal(v); return string(b) }

// shuffledColumns returns a table whose columns are independently
// shuffled: the same one-way distributions as t, no dependence between
// columns — the worst a synthesizer that matches marginals can do.
func shuffledColumns(t *data.Table, src *randx.Source) *data.Table {
	out := t.Subset(src.Perm(t.Len()))
	for j := range t.Schema.Attributes {
		perm := src.Perm(t.Len())
		col := make([]float64, t.Len())
		for i, p := range perm {
			col[i] = out.Rows[p][j]
		}
		for i := range col {
			out.Rows[i][j] = col[i]
		}
	}
	return out
}

func adult(t *testing.T) *data.Table {
	t.Helper()
	tab, err := datasets.Load("adult")
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// Real Adult against itself: every distance is zero.
func TestCompareIdentical(t *testing.T) {
	tab := adult(t)
	r, err := Compare(tab, tab, Options{Source: randx.NewSeeded(1), MaxSets: 40})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range r.Columns {
		if c.TVD != 0 || (c.W1 != nil && (*c.W1 != 0 || *c.KS != 0)) {
			t.Fatalf("column %s: %+v", c.Name, c)
		}
	}
	for _, m := range r.Marginals {
		if m.Mean != 0 || m.Max != 0 || m.Evaluated == 0 || m.Evaluated > 40 {
			t.Fatalf("marginal %+v", m)
		}
	}
	if r.Association.MeanAbsDiff != 0 || len(r.Warnings) != 0 {
		t.Fatalf("association diff %v, warnings %q", r.Association.MeanAbsDiff, r.Warnings)
	}
}

// Real Adult against its columns shuffled independently: one-way
// distributions agree exactly, two- and three-way ones do not, the
// associations vanish, and a classifier trained on the shuffled rows
// falls to about the majority rate while one trained on real rows beats
// it. The thresholds are far from the values seen (real accuracy about
// 0.85 against a majority of 0.75; shuffled within 0.01 of the
// majority), so a failure means a broken measure, not bad luck.
func TestCompareShuffledAdult(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two classifiers on Adult (about 10 s); skipped with -short")
	}
	tab := adult(t)
	src := randx.NewSeeded(2)
	r, err := Compare(tab, shuffledColumns(tab, src), Options{Label: "income", Source: src, MaxSets: 60})
	if err != nil {
		t.Fatal(err)
	}
	if m := r.Marginals[0]; m.Max > 1e-12 {
		t.Fatalf("one-way distance %v after a shuffle", m.Max)
	}
	if m2, m3 := r.Marginals[1], r.Marginals[2]; m2.Mean < 0.02 || m3.Mean <= m2.Mean {
		t.Fatalf("2-way mean %v, 3-way mean %v", m2.Mean, m3.Mean)
	}
	if r.Association.MeanAbsDiff < 0.02 {
		t.Fatalf("association difference %v after destroying every association", r.Association.MeanAbsDiff)
	}
	c := r.Classifier
	if c.RealAccuracy < c.Majority+0.05 || c.SynthAccuracy > c.Majority+0.02 {
		t.Fatalf("classifier %+v", c)
	}
	t.Logf("2-way TVD %.3f, 3-way %.3f, association diff %.3f, classifier %+v",
		r.Marginals[1].Mean, r.Marginals[2].Mean, r.Association.MeanAbsDiff, *c)
}

func TestCompareErrors(t *testing.T) {
	tab := adult(t)
	other, _ := tab.SelectColumns("age", "sex")
	if _, err := Compare(tab, other, Options{}); err == nil || !strings.Contains(err.Error(), "different schemas") {
		t.Fatalf("schema mismatch: %v", err)
	}
	if _, err := Compare(tab, tab, Options{Label: "age"}); err == nil || !strings.Contains(err.Error(), `"age" is numeric`) {
		t.Fatalf("numeric label: %v", err)
	}
}

// The page holds every section, the owner-only notice at top and bottom,
// one chart per column and two matrices, and escapes names.
func TestWriteHTML(t *testing.T) {
	tab := adult(t)
	small := tab.Subset([]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19})
	small.Schema.Attributes[0].Name = "age<script>"
	r, err := Compare(small, small, Options{Label: "income", Source: randx.NewSeeded(1), Privacy: &PrivacyFacts{Method: "m", Status: "s", Claimed: "ρ=1"}})
	if err != nil {
		t.Fatal(err)
	}
	page := htmlOf(t, r)
	for _, want := range []string{`id="notice"`, `id="summary"`, `id="privacy"`, `id="classifier"`, `id="marginals"`, `id="columns"`, `id="correlations"`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if strings.Count(page, "FOR THE DATA OWNER ONLY") != 2 || strings.Count(page, "<svg") != len(tab.Schema.Attributes)+2 {
		t.Errorf("%d notices, %d charts", strings.Count(page, "FOR THE DATA OWNER ONLY"), strings.Count(page, "<svg"))
	}
	if strings.Contains(page, "age<script>") || strings.Contains(page, "<script") || strings.Contains(page, "http://") && !strings.Contains(page, "http://www.w3.org/2000/svg") {
		t.Error("page has a script, an unescaped name or an external reference")
	}
}

// The release gate's section: the verdict, every owner's attacks with
// their advantages and intervals, the reasons, and the sentence that a
// pass is not a privacy guarantee, in the page and in the JSON; a refused
// table is also a warning at the top.
func TestGateSection(t *testing.T) {
	tab := adult(t)
	small := tab.Subset([]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	g := &Gate{Holdout: "300 rows of held.csv", Refused: true, Verdict: "REFUSED for owner-1: distance-to-closest-record advantage 0.883",
		Caveat: "A pass is not a privacy guarantee.", Owners: []GateOwner{{Owner: "owner-1", Members: 150, NonMembers: 150, MaxAdvantage: 0.1, Confidence: 0.95, Refused: true,
			Attacks: []GateAttack{{Name: "distance-to-closest-record", Advantage: 0.8834, Lower: 0.819, Upper: 0.946, Detail: "median <distance>"},
				{Name: "density-ratio", Advantage: 0.3321, Lower: 0.193, Upper: 0.472}},
			Reasons: []string{"the distance-to-closest-record attack tells the owner's rows from held-out rows"}}}}
	r, err := Compare(small, small, Options{Source: randx.NewSeeded(1), Gate: g})
	if err != nil {
		t.Fatal(err)
	}
	page := htmlOf(t, r)
	for _, want := range []string{`id="gate"`, `id="gate-verdict"`, "REFUSED for owner-1", "0.883", "0.819 to 0.946", "95% 0.193 to 0.472", "300 rows of held.csv",
		"A pass is not a privacy guarantee.", "tells the owner&#39;s rows", "median &lt;distance&gt;"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if len(r.Warnings) == 0 || !strings.Contains(r.Warnings[0], "release gate refused") {
		t.Errorf("no warning for a refused table: %q", r.Warnings)
	}
	js, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back struct{ Gate *Gate }
	if err := json.Unmarshal(js, &back); err != nil || back.Gate == nil || len(back.Gate.Owners[0].Attacks) != 2 || back.Gate.Owners[0].Attacks[0].Lower != 0.819 {
		t.Errorf("the JSON's gate: %+v (%v)", back.Gate, err)
	}
	r, err = Compare(small, small, Options{Source: randx.NewSeeded(1)})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(htmlOf(t, r), `id="gate"`) {
		t.Error("a gate section without a gate result")
	}
}

// htmlOf is the report's page.
func htmlOf(t *testing.T, r *Report) string {
	t.Helper()
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}
