package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
)

// newUserCSV writes 6000 rows of the real Adult census table as a CSV
// with a header, as a new user's own file would come.
func newUserCSV(t *testing.T, dir string) string {
	t.Helper()
	tab, err := datasets.Load("adult")
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]int, 6000)
	for i := range rows {
		rows[i] = i
	}
	var buf bytes.Buffer
	if err := data.WriteCSV(&buf, tab.Subset(rows)); err != nil {
		t.Fatal(err)
	}
	return writeFile(t, dir, "people.csv", buf.String())
}

func mustNotExist(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		notWritten(t, p)
	}
}

// A new user's first session, through the real CLI in a temporary
// directory: draft a schema, see publishing refuse the draft, review it,
// publish; or draft it under DP (charged, with a report) and publish;
// then read the quality report.
func TestNewUserWalkthrough(t *testing.T) {
	dir := t.TempDir()
	people := newUserCSV(t, dir)
	p := func(name string) string { return filepath.Join(dir, name) }

	// 1. A draft without a budget: placeholders, marked as a draft.
	out, _ := mustRun(t, "schema", people, "--out", p("draft.json"))
	mentions(t, "the draft's output", out, "DRAFT")
	var draft map[string]any
	readJSON(t, p("draft.json"), &draft)
	if draft["draft"] != true {
		t.Fatalf("draft.json is not marked as a draft: %v", draft["draft"])
	}

	// 2. Publishing refuses the unreviewed draft in one line, writing nothing.
	refusedInOneLine(t, dir, `delete the line "draft": true`, "synthesize", "--input", people, "--schema", p("draft.json"), "--rho", "1", "--out", p("synth.csv"))

	// 3. The user reviews it: public bounds from the census code book, and
	// the draft line deleted. Now it publishes.
	public := map[string][2]float64{"age": {0, 120}, "fnlwgt": {0, 1.5e6}, "education-num": {1, 16},
		"capital-gain": {0, 100000}, "capital-loss": {0, 5000}, "hours-per-week": {0, 100}}
	for _, a := range draft["attributes"].([]any) {
		attr := a.(map[string]any)
		if b, ok := public[attr["name"].(string)]; ok {
			if attr["min"] != nil || attr["max"] != nil {
				t.Fatalf("draft carries bounds read from the data: %v", attr)
			}
			attr["min"], attr["max"] = b[0], b[1]
		}
	}
	delete(draft, "draft")
	reviewed, _ := json.Marshal(draft)
	writeFile(t, dir, "reviewed.json", string(reviewed))
	mustRun(t, "synthesize", "--input", people, "--schema", p("reviewed.json"), "--rho", "1", "--seed", "1", "--out", p("synth-reviewed.csv"))

	// 4. Or DP bounds and categories, charged and reported.
	if out, _ = mustRun(t, "schema", people, "--epsilon", "1", "--delta", "1e-6", "--label", "income", "--seed", "2", "--out", p("dp.json")); strings.Contains(out, "DRAFT") {
		t.Fatalf("schema --epsilon printed a draft:\n%s", out)
	}
	var rep struct {
		Parties []struct {
			Spent struct{ Epsilon, Delta float64 } `json:"spent"`
		} `json:"parties"`
	}
	readJSON(t, p("dp.json.privacy.json"), &rep)
	if len(rep.Parties) != 1 || rep.Parties[0].Spent.Epsilon < 0.999999 || rep.Parties[0].Spent.Epsilon > 1.000001 || rep.Parties[0].Spent.Delta > 1e-6 {
		t.Fatalf("schema discovery report: %+v", rep)
	}
	if _, err := data.LoadSchema(p("dp.json")); err != nil {
		t.Fatalf("the DP schema does not load: %v", err)
	}
	mustRun(t, "synthesize", "--input", people, "--schema", p("dp.json"), "--rho", "1", "--seed", "3", "--out", p("synth.csv"))

	// 5. The quality report: JSON on stdout, HTML and JSON files.
	out, _ = mustRun(t, "compare", people, p("synth.csv"), "--schema", p("dp.json"), "--out", p("quality.html"), "--json")
	checkQualityJSON(t, []byte(out))
	mentions(t, "quality.html", string(readFile(t, p("quality.html"))), "FOR THE DATA OWNER ONLY", `id="columns"`)
	written(t, p("quality.json"))
	renderInBrowser(t, p("quality.html"))
}

// renderInBrowser loads the page in headless Chromium, when installed
// (package quality's own test also checks a screenshot), and checks the
// DOM it builds has every section.
func renderInBrowser(t *testing.T, page string) {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil || testing.Short() {
		t.Log("quality.html not rendered: no chromium on PATH (apt-get install chromium) or -short")
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	dom, err := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu",
		"--user-data-dir="+t.TempDir(), "--dump-dom", "file://"+page).Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	for _, id := range []string{"notice", "summary", "privacy", "classifier", "marginals", "columns", "correlations"} {
		if !strings.Contains(string(dom), `id="`+id+`"`) {
			t.Errorf("the page rendered by chromium lacks section %q", id)
		}
	}
}

func checkQualityJSON(t *testing.T, b []byte) {
	t.Helper()
	var q struct {
		Notice    string `json:"notice"`
		RealRows  int    `json:"real_rows"`
		Columns   []struct{ Name string }
		Marginals []struct {
			Order int     `json:"order"`
			Mean  float64 `json:"mean_tvd"`
		}
		Classifier *struct {
			Label         string  `json:"label"`
			Majority      float64 `json:"majority_rate"`
			SynthAccuracy float64 `json:"train_synthetic_accuracy"`
		}
		Privacy *struct {
			Method string `json:"method"`
		}
	}
	if err := json.Unmarshal(b, &q); err != nil {
		t.Fatalf("compare --json printed no JSON: %v\n%s", err, b)
	}
	if !strings.HasPrefix(q.Notice, "FOR THE DATA OWNER ONLY") || q.RealRows == 0 || len(q.Columns) != 15 || len(q.Marginals) != 3 {
		t.Fatalf("quality report: %+v", q)
	}
	for k, m := range q.Marginals {
		if m.Order != k+1 || !(m.Mean >= 0 && m.Mean <= 1) {
			t.Fatalf("marginal %d: %+v", k, m)
		}
	}
	// The label comes from the schema (--label was given to dppub schema only).
	if q.Classifier == nil || q.Classifier.Label != "income" || !(q.Classifier.SynthAccuracy > 0) {
		t.Fatalf("classifier: %+v", q.Classifier)
	}
	if q.Privacy == nil || q.Privacy.Method == "" {
		t.Fatal("the synthetic table's privacy report was not picked up")
	}
}

// The schema and compare commands refuse bad input in one line, before
// reading or spending anything, and write nothing.
func TestSchemaCompareRefusals(t *testing.T) {
	dir := t.TempDir()
	people := newUserCSV(t, dir)
	p := func(name string) string { return filepath.Join(dir, name) }
	headerless := writeFile(t, dir, "headerless.csv", "39,State-gov,77516\n50,Private,83311\n")
	existing := writeFile(t, dir, "existing.json", "{}")
	schema := writeFile(t, dir, "s.json", schemaJSON)
	cases := []refusal{
		{"headerless", []string{"schema", headerless, "--out", p("a.json")}, "the first row looks like data; dppub needs a header row"},
		{"no out", []string{"schema", people}, "--out SCHEMA.json is required"},
		{"out is input", []string{"schema", people, "--out", people}, "is also the input"},
		{"report is out", []string{"schema", people, "--epsilon", "1", "--out", p("a.json"), "--report", p("a.json")}, "is also the output"},
		{"existing out", []string{"schema", people, "--out", existing}, "already exists (give --force"},
		{"missing dir", []string{"schema", people, "--out", p("nodir/a.json")}, "does not exist"},
		{"zero epsilon", []string{"schema", people, "--epsilon", "0", "--out", p("a.json")}, "--epsilon must be positive"},
		{"delta without epsilon", []string{"schema", people, "--delta", "1e-6", "--out", p("a.json")}, "--delta needs --epsilon"},
		{"numeric label", []string{"schema", people, "--label", "age", "--out", p("a.json")}, `label "age" holds numbers`},
		{"unknown skip", []string{"schema", people, "--skip-columns", "nope", "--out", p("a.json")}, `no column "nope"`},
		{"compare out is real", []string{"compare", people, people, "--schema", schema, "--out", people}, "is also the input"},
		{"compare no schema", []string{"compare", people, people, "--out", p("q.html")}, "--schema FILE is required"},
		{"compare draft", []string{"compare", people, people, "--schema", writeFile(t, dir, "d.json", `{"draft": true, "attributes": []}`), "--out", p("q.html")}, "unreviewed draft"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, stdout := refusedInOneLine(t, dir, c.want, c.args...); stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
		})
	}
}
