package model

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/learn"
	"github.com/dppub/dppub/privacy"
	"gonum.org/v1/gonum/mat"
)

func testSchema() data.Schema {
	return data.Schema{ID: "id", Attributes: []data.Attribute{
		{Name: "age", Kind: data.Numeric, Min: 0, Max: 100},
		{Name: "smoker", Kind: data.Binary, Categories: []string{"no", "yes"}},
		{Name: "region", Kind: data.Categorical, Categories: []string{"north", "south"}},
		{Name: "risk", Kind: data.Categorical, Categories: []string{"low", "mid", "high"}},
	}}
}

// testModel: encoded columns (age, smoker, region=north, region=south),
// centred at 0.5, clipped to norm 1, projected on two components, then
// three one-vs-rest scorers.
func testModel(t *testing.T) *Model {
	t.Helper()
	comps := mat.NewDense(4, 2, []float64{
		1, 0,
		0, 1,
		0, 0,
		0, 0,
	})
	clf := &learn.Classifier{Classes: 3, Models: []*learn.LinearModel{
		{W: []float64{-1, 0}, B: 0},  // low: young
		{W: []float64{0, 0}, B: 0.1}, // mid: the default
		{W: []float64{1, 1}, B: 0},   // high: old smokers
	}}
	acct, _ := privacy.NewAccountant(privacy.AccountantOptions{Party: "p", Budget: dp.Pure(1)})
	rep, err := privacy.NewReport(privacy.ReportOptions{Method: "test", Calibration: "sound", Accountants: []*privacy.Accountant{acct}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(Options{Method: "dppca-svm", Schema: testSchema(), Label: "risk",
		Centre: []float64{0.5, 0.5, 0.5, 0.5}, ClipL2: 1, Components: comps, Classifier: clf, Loss: "hinge", Privacy: rep})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func testTable(rows ...[]float64) *data.Table {
	s := testSchema()
	s.ID = ""
	return &data.Table{Schema: s, Rows: rows}
}

func TestApplyKnownAnswers(t *testing.T) {
	m := testModel(t)
	// age 10 → 0.1−0.5 = −0.4, smoker no → −0.5: y = (−0.4, −0.5),
	// scores (0.4, 0.1, −0.9) → low.
	// age 90, smoker yes → (0.4, 0.5): scores (−0.4, 0.1, 0.9) → high.
	// age 50, no → (0, −0.5): scores (0, 0.1, −0.5) → mid.
	// age 100, yes, with both one-hot columns centred: x = (0.5, 0.5,
	// ±0.5, ∓0.5), norm 1, no clipping: high.
	tab := testTable([]float64{10, 0, 0, 2}, []float64{90, 1, 1, 0}, []float64{50, 0, 0, 1}, []float64{100, 1, 0, 2})
	pred, err := m.Apply(tab)
	if err != nil {
		t.Fatal(err)
	}
	want := []int{0, 2, 1, 2}
	for i := range want {
		if pred[i] != want[i] {
			t.Errorf("row %d: class %d (%s), want %d", i, pred[i], m.ClassName(pred[i]), want[i])
		}
	}
	truth, ok, err := m.Truth(tab)
	if err != nil || !ok || truth[1] != 0 || truth[0] != 2 {
		t.Errorf("Truth = %v, %v, %v", truth, ok, err)
	}
}

func TestClipping(t *testing.T) {
	p := Preprocess{ClipL2: 1}
	x := []float64{3, 4}
	p.apply(x)
	if math.Abs(x[0]-0.6) > 1e-15 || math.Abs(x[1]-0.8) > 1e-15 {
		t.Errorf("clipped (3,4) to %v, want (0.6, 0.8)", x)
	}
	p = Preprocess{Centre: []float64{1, 1}, Scale: []float64{2, 4}}
	x = []float64{3, 5}
	p.apply(x)
	if x[0] != 1 || x[1] != 1 {
		t.Errorf("(3,5) centred at 1 and scaled by (2,4) is %v, want (1,1)", x)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	m := testModel(t)
	js, err := m.JSON()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Read(bytes.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	tab := testTable([]float64{10, 0, 0, 2}, []float64{90, 1, 1, 0}, []float64{50, 0, 0, 1})
	p1, _ := m.Apply(tab)
	p2, err := back.Apply(tab)
	if err != nil {
		t.Fatal(err)
	}
	for i := range p1 {
		if p1[i] != p2[i] {
			t.Fatalf("row %d: %d before the round trip, %d after", i, p1[i], p2[i])
		}
	}
	if back.Privacy == nil || back.Privacy.Method != "test" || back.Privacy.Claimed.Notion != dp.PureDP {
		t.Errorf("embedded report lost: %+v", back.Privacy)
	}
	js2, _ := back.JSON()
	if !bytes.Equal(js, js2) {
		t.Error("JSON changes on a second round trip")
	}
	if back.Schema.ID != "" || len(back.Schema.Attributes) != 4 || back.Schema.Attributes[3].Name != "risk" {
		t.Errorf("kept schema %+v", back.Schema)
	}
}

func TestReadRejectsBadModels(t *testing.T) {
	js, err := testModel(t).JSON()
	if err != nil {
		t.Fatal(err)
	}
	good := string(js)
	for _, c := range []struct{ from, to, want string }{
		{`"format": "dppub-model/1"`, `"format": "dppub-model/9"`, "format"},
		{`"multiclass": "one-vs-rest"`, `"multiclass": "binary"`, "binary classifier for 3 classes"},
		{`"encoding": "unit-box"`, `"encoding": "raw"`, "unknown encoding"},
		{`"clip_l2": 1`, `"clip_l2": -1`, "clip bound"},
		{`"method": "dppca-svm"`, `"method": "dppca-svm", "extra": 1`, "unknown field"},
		{`"method": "dppca-svm"`, `"method": "forest"`, `unknown method "forest"`},
		{`"method": "dppca-svm"`, `"method": ""`, `unknown method ""`},
		{`"region=south"`, `"region=west"`, "encoded columns"},
		{`"label": "risk"`, `"label": "age"`, "numeric"},
		{`"kind": "linear"`, `"kind": "tree"`, "unknown classifier kind"},
	} {
		bad := strings.Replace(good, c.from, c.to, 1)
		if bad == good {
			t.Fatalf("test case %q does not change the JSON", c.from)
		}
		if _, err := Read(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s → %s: error %v, want %q", c.from, c.to, err, c.want)
		}
	}
}

func TestNewValidates(t *testing.T) {
	clf := &learn.Classifier{Classes: 3, Models: []*learn.LinearModel{{W: []float64{1}}, {W: []float64{1}}, {W: []float64{1}}}}
	cases := map[string]Options{
		"numeric label":   {Schema: testSchema(), Label: "age", Classifier: clf},
		"unknown label":   {Schema: testSchema(), Label: "nope", Classifier: clf},
		"no classifier":   {Schema: testSchema(), Label: "risk"},
		"weight length":   {Schema: testSchema(), Label: "risk", Classifier: clf},
		"centre length":   {Schema: testSchema(), Label: "risk", Classifier: clf, Centre: []float64{1}},
		"label a feature": {Schema: testSchema(), Label: "risk", Features: []string{"age", "risk"}, Classifier: clf},
		"NaN weight": {Schema: testSchema(), Label: "risk", Features: []string{"age"},
			Classifier: &learn.Classifier{Classes: 3, Models: []*learn.LinearModel{{W: []float64{math.NaN()}}, {W: []float64{1}}, {W: []float64{1}}}}},
		"unknown method": {Method: "forest", Schema: testSchema(), Label: "risk", Features: []string{"age"}, Classifier: clf},
	}
	for name, o := range cases {
		if o.Method == "" {
			o.Method = "dppca-svm"
		}
		if _, err := New(o); err == nil || !strings.HasPrefix(err.Error(), "model: ") {
			t.Errorf("%s: error %v", name, err)
		}
	}
	// A single feature works and reads tables that hold others too.
	m, err := New(Options{Method: "dppca-svm", Schema: testSchema(), Label: "risk", Features: []string{"age"}, Classifier: clf})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.FeatureSchema().Names(); len(got) != 1 || got[0] != "age" {
		t.Errorf("feature schema %v", got)
	}
}

func TestApplyRejectsRedeclaredFeatures(t *testing.T) {
	m := testModel(t)
	tab := testTable([]float64{10, 0, 0, 2})
	tab.Schema.Attributes[0].Max = 120 // a different encoding of age
	if _, err := m.Apply(tab); err == nil || !strings.Contains(err.Error(), "age") {
		t.Errorf("error %v, want one naming age", err)
	}
	noLabel, _ := testTable([]float64{10, 0, 0, 2}).SelectColumns("age", "smoker", "region")
	if _, ok, err := m.Truth(noLabel); ok || err != nil {
		t.Errorf("Truth without a label column: %v, %v", ok, err)
	}
	if _, err := m.Apply(noLabel); err != nil {
		t.Errorf("Apply without a label column: %v", err)
	}
}

func TestNormalizeL2(t *testing.T) {
	p := Preprocess{NormalizeL2: true}
	for _, c := range []struct{ in, want []float64 }{
		{[]float64{0.3, 0.4}, []float64{0.6, 0.8}}, // scaled up
		{[]float64{3, 4}, []float64{0.6, 0.8}},     // scaled down
		{[]float64{0, 0}, []float64{0, 0}},         // zero rows stay
	} {
		x := slices.Clone(c.in)
		p.apply(x)
		for j := range x {
			if math.Abs(x[j]-c.want[j]) > 1e-15 {
				t.Errorf("normalised %v to %v, want %v", c.in, x, c.want)
				break
			}
		}
	}
}

// A binary task over positive categories of a three-category label: the
// truth maps high and mid to class 1, the classes are named, and a
// positive category the label does not have is refused.
func TestPositiveCategories(t *testing.T) {
	clf := &learn.Classifier{Classes: 2, Models: []*learn.LinearModel{{W: []float64{1}, B: -0.5}}}
	m, err := New(Options{Method: "mp-crdp-svm", Schema: testSchema(), Label: "risk", Features: []string{"age"}, Positive: []string{"mid", "high"},
		NormalizeL2: false, Classifier: clf})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"other", "in:mid|high"}; !slices.Equal(m.Classes, want) {
		t.Errorf("classes %q, want %q", m.Classes, want)
	}
	tab := testTable([]float64{10, 0, 0, 0}, []float64{90, 0, 0, 1}, []float64{90, 0, 0, 2})
	truth, ok, err := m.Truth(tab)
	if err != nil || !ok || !slices.Equal(truth, []int{0, 1, 1}) {
		t.Errorf("Truth = %v, %v, %v; want [0 1 1]", truth, ok, err)
	}
	pred, err := m.Apply(tab)
	if err != nil || !slices.Equal(pred, []int{0, 1, 1}) {
		t.Errorf("Apply = %v, %v; want [0 1 1]", pred, err)
	}
	js, _ := m.JSON()
	if _, err := Read(bytes.NewReader(js)); err != nil {
		t.Fatalf("round trip: %v", err)
	}
	bad := strings.Replace(string(js), `"positive": [
    "mid",`, `"positive": [
    "severe",`, 1)
	if bad == string(js) {
		t.Fatalf("the test's replacement does not change the JSON:\n%s", js)
	}
	if _, err := Read(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), `"severe"`) {
		t.Errorf("unknown positive category: error %v", err)
	}
}
