package correlation

import (
	"fmt"
	"math"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/method/methodtest"
	"github.com/dppub/dppub/randx"
)

// table2 is the paper's Table 2 (fever, cough, headache, flu).
func table2(t *testing.T) *Codes {
	t.Helper()
	c, err := NewCodes([]string{"fever", "cough", "headache", "flu"}, []int{2, 2, 2, 2},
		[][]uint32{{0, 1, 1, 1}, {0, 1, 1, 1}, {0, 1, 1, 0}, {1, 1, 0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var allMethods = []Method{Reference, Hashed, PatternScan, Auto}

func TestTable2KnownAnswers(t *testing.T) {
	c := table2(t)
	for _, m := range allMethods {
		r, err := Analyze(c, Options{Threshold: 0.75, Method: m})
		if err != nil {
			t.Fatal(err)
		}
		// user1: itself (4/4), user2 (4/4), user3 (3/4) → 11/4.
		want := []float64{2.75, 2.75, 2.5, 1}
		for i, w := range want {
			if got := r.RecordSensitivity(i); got != w {
				t.Errorf("%s: ΔCS_%d = %v, want %v", m, i, got, w)
			}
		}
		if r.Sensitivity != 2.75 || r.Record != 0 || r.K != 3 || r.GroupSensitivity != 3 || r.Correlated != 3 {
			t.Errorf("%s: ΔCS %v at %d, K %d, ΔGS %d, correlated %d; want 2.75 at 0, 3, 3, 3",
				m, r.Sensitivity, r.Record, r.K, r.GroupSensitivity, r.Correlated)
		}
		if math.Abs(r.MeanDegree-11.0/12) > 1e-15 {
			t.Errorf("%s: mean degree %v, want 11/12", m, r.MeanDegree)
		}
	}
	// The paper's point: dropping the redundant feature f4 makes users 1–3
	// identical, and the group sensitivity grows from 2 to 3.
	for _, tc := range []struct {
		feats []string
		want  int
	}{{[]string{"fever", "cough", "headache", "flu"}, 2}, {[]string{"fever", "cough", "headache"}, 3}} {
		sub, err := c.Select(tc.feats...)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Analyze(sub, Options{Threshold: 1})
		if err != nil {
			t.Fatal(err)
		}
		if r.GroupSensitivity != tc.want || r.Sensitivity != float64(tc.want) || r.MeanDegree != 1 {
			t.Errorf("%d features at w0 = 1: ΔGS %d, ΔCS %v, mean %v; want %d, %d, 1", len(tc.feats),
				r.GroupSensitivity, r.Sensitivity, r.MeanDegree, tc.want, tc.want)
		}
	}
}

func TestMinAgree(t *testing.T) {
	for _, tc := range []struct {
		w0   float64
		l, t int
	}{{0.9, 4, 4}, {0.9, 12, 11}, {0.9, 30, 27}, {0.9, 10, 9}, {0.75, 4, 3}, {1, 7, 7}, {0.01, 5, 1}, {11.0 / 12, 12, 11}, {0.3, 10, 3}} {
		if got := MinAgree(tc.w0, tc.l); got != tc.t {
			t.Errorf("MinAgree(%v, %d) = %d, want %d", tc.w0, tc.l, got, tc.t)
		}
	}
}

func TestForEachSubsetCountsAndOrder(t *testing.T) {
	for _, tc := range []struct{ l, t int }{{4, 4}, {5, 2}, {12, 11}, {30, 27}, {10, 1}, {64, 63}} {
		n, prev := int64(0), uint64(0)
		forEachSubset(tc.l, tc.t, func(s uint64) {
			if n > 0 && s <= prev {
				t.Fatalf("l=%d t=%d: subset %b after %b", tc.l, tc.t, s, prev)
			}
			if c := popcount(s); c != tc.t || (tc.l < 64 && s>>tc.l != 0) {
				t.Fatalf("l=%d t=%d: bad subset %b", tc.l, tc.t, s)
			}
			prev = s
			n++
		})
		if want := binomial(tc.l, tc.t); n != want {
			t.Errorf("l=%d t=%d: %d subsets, want %d", tc.l, tc.t, n, want)
		}
	}
}

func popcount(s uint64) int {
	n := 0
	for ; s != 0; s &= s - 1 {
		n++
	}
	return n
}

// randomCodes draws n records over l features with few levels, so that
// many pairs agree on most features.
func randomCodes(t *testing.T, src *randx.Source, n, l, levels int) *Codes {
	t.Helper()
	rows := make([][]uint32, n)
	lv := make([]int, l)
	names := make([]string, l)
	for f := range l {
		lv[f], names[f] = levels, fmt.Sprintf("f%d", f)
	}
	for i := range rows {
		rows[i] = make([]uint32, l)
		for f := range rows[i] {
			// Skewed: code 0 half the time.
			if src.IntN(2) == 0 {
				rows[i][f] = uint32(src.IntN(levels))
			}
		}
	}
	c, err := NewCodes(names, lv, rows)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func sameResults(t *testing.T, what string, a, b *Result) {
	t.Helper()
	for i := range a.AgreeSum {
		if a.AgreeSum[i] != b.AgreeSum[i] || a.GroupSize[i] != b.GroupSize[i] {
			t.Fatalf("%s: record %d: %s sum %d size %d, %s sum %d size %d", what, i,
				a.Method, a.AgreeSum[i], a.GroupSize[i], b.Method, b.AgreeSum[i], b.GroupSize[i])
		}
	}
	if a.Sensitivity != b.Sensitivity || a.K != b.K || a.Record != b.Record || a.GroupSensitivity != b.GroupSensitivity || a.Correlated != b.Correlated {
		t.Fatalf("%s: summaries differ: %+v vs %+v", what, *a, *b)
	}
}

func TestMethodsAgreeOnRandomCodes(t *testing.T) {
	src := randx.NewSeeded(7)
	for _, tc := range []struct {
		n, l, levels int
		w0           float64
	}{{300, 6, 3, 0.5}, {400, 12, 2, 0.75}, {200, 30, 2, 0.9}, {500, 8, 4, 0.85}, {50, 3, 2, 0.2}, {1, 5, 3, 0.9}} {
		c := randomCodes(t, src, tc.n, tc.l, tc.levels)
		ref, err := Analyze(c, Options{Threshold: tc.w0, Method: Reference, Workers: 3})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []Method{Hashed, PatternScan, Auto} {
			got, err := Analyze(c, Options{Threshold: tc.w0, Method: m, Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			sameResults(t, fmt.Sprintf("n=%d l=%d w0=%v", tc.n, tc.l, tc.w0), ref, got)
		}
		if ref.MeanDegree < tc.w0-1e-12 || ref.MeanDegree > 1 {
			t.Errorf("mean degree %v outside [w0, 1]", ref.MeanDegree)
		}
	}
}

// checkReal compares the reference scan with the hashed path on a real
// table's discretised features.
func checkReal(t *testing.T, tab *data.Table, features []string, w0 float64) *Result {
	t.Helper()
	c, err := Discretize(tab, features, DiscretizeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := Analyze(c, Options{Threshold: w0, Method: Reference})
	if err != nil {
		t.Fatal(err)
	}
	fast, err := Analyze(c, Options{Threshold: w0, Method: Hashed})
	if err != nil {
		t.Fatal(err)
	}
	sameResults(t, fmt.Sprintf("%d features at w0=%v", len(features), w0), ref, fast)
	return ref
}

// AdultFeatures12 are the 12 Adult features of the MP-CRDP experiments
// (all but capital-gain and capital-loss), in file order.
var adultFeatures12 = []string{"age", "workclass", "fnlwgt", "education", "education-num",
	"marital-status", "occupation", "relationship", "race", "sex", "hours-per-week", "native-country"}

func TestReferenceEqualsHashedOnAdult10000(t *testing.T) {
	adult := methodtest.Table(t, "adult")
	sample := adult.Subset(randx.NewSeeded(1).Perm(adult.Len())[:10000])
	for _, w0 := range []float64{0.9, 1} {
		r := checkReal(t, sample, adultFeatures12, w0)
		t.Logf("adult 10000×12 w0=%v: ΔCS=%v K=%d ΔGS=%d correlated=%d patterns=%d",
			w0, r.Sensitivity, r.K, r.GroupSensitivity, r.Correlated, r.Patterns)
		if r.Sensitivity < 1 || r.GroupSensitivity < r.K {
			t.Errorf("implausible result %+v", r)
		}
	}
	for p := range 3 {
		checkReal(t, sample, adultFeatures12[4*p:4*p+4], 0.9)
	}
}

func TestReferenceEqualsHashedOnWDBC(t *testing.T) {
	wdbc := methodtest.Table(t, "wdbc")
	feats := wdbc.Schema.Names()[1:]
	for _, w0 := range []float64{0.9, 0.95} {
		r := checkReal(t, wdbc, feats, w0)
		t.Logf("wdbc 569×30 w0=%v: ΔCS=%v K=%d ΔGS=%d correlated=%d", w0, r.Sensitivity, r.K, r.GroupSensitivity, r.Correlated)
	}
	for p := range 3 {
		checkReal(t, wdbc, feats[10*p:10*p+10], 0.9)
	}
}

func TestDiscretizeBins(t *testing.T) {
	s := data.Schema{Attributes: []data.Attribute{
		{Name: "x", Kind: data.Numeric, Min: 0, Max: 10},
		{Name: "edu", Kind: data.Numeric, Min: 1, Max: 16, Integer: true},
		{Name: "c", Kind: data.Categorical, Categories: []string{"a", "b", "c"}},
	}}
	tab := &data.Table{Schema: s, Rows: [][]float64{{0, 1, 2}, {9.99, 16, 0}, {10, 7, 1}, {-3, 20, 1}, {4.5, 1, 0}}}
	c, err := Discretize(tab, nil, DiscretizeOptions{Bins: 20})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]uint32{{0, 0, 2}, {19, 15, 0}, {19, 6, 1}, {0, 15, 1}, {9, 0, 0}}
	for i, w := range want {
		if got := c.Row(i); fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("row %d coded %v, want %v", i, got, w)
		}
	}
	if lv := c.Levels(); fmt.Sprint(lv) != "[20 16 3]" {
		t.Errorf("levels %v, want [20 16 3]", lv)
	}
}

func TestErrors(t *testing.T) {
	c := table2(t)
	for _, o := range []Options{{Threshold: 0}, {Threshold: 1.5}, {Threshold: math.NaN()}, {Threshold: 0.5, Method: "x"}, {Threshold: 0.5, Workers: -1}} {
		if _, err := Analyze(c, o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
	if _, err := NewCodes([]string{"a"}, []int{2}, [][]uint32{{2}}); err == nil {
		t.Error("code above its levels accepted")
	}
	if _, err := c.Select("nope"); err == nil {
		t.Error("unknown feature selected")
	}
	if _, err := MCD(nil); err == nil {
		t.Error("MCD of nothing accepted")
	}
}
