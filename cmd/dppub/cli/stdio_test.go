package cli

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/model"
)

// withStdin makes content the process's standard input until the test
// ends.
func withStdin(t *testing.T, content string) {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "stdin"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(content); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Seek(0, 0); err != nil {
		t.Fatal(err)
	}
	old := os.Stdin
	os.Stdin = f
	t.Cleanup(func() { os.Stdin = old; f.Close() })
}

// The single-table publishing commands and schema read their table from
// standard input (--input -, or schema's INPUT -) and write their main
// output to standard output (--out -): stdout then holds the data alone
// (a CSV, a model or a schema), the summary goes to stderr, the privacy
// report (and model) go to the files named, and the report records the
// digest of what went to standard output.
func TestStdinAndStdout(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	schema := writeFile(t, dir, "s.json", schemaJSON)
	rows := csvRows(300)
	cases := []struct {
		name    string
		args    []string
		report  string // privacy report file ("" for none)
		files   []string
		isCSV   bool // stdout is a CSV of the schema's columns (else JSON)
		summary string
	}{
		{"schema draft", []string{"schema", "-", "--out", "-"}, "", nil, false, "Wrote a DRAFT schema to standard output"},
		{"schema under DP", []string{"schema", "-", "--out", "-", "--epsilon", "1", "--report", p("schema.privacy.json")}, p("schema.privacy.json"), nil, false, "Spent"},
		{"ppca-dp-mh", []string{"publish", "ppca-dp-mh", "--input", "-", "--schema", schema, "--out", "-", "--report", p("ppca.json")}, p("ppca.json"), nil, true, "to standard output and the report to " + p("ppca.json")},
		{"privbayes", []string{"publish", "privbayes", "--input", "-", "--schema", schema, "--out", "-", "--report", p("pb.json")}, p("pb.json"), nil, true, "Privacy report"},
		{"lda-dp", []string{"publish", "lda-dp", "--input", "-", "--schema", schema, "--label", "smoker", "--out", "-", "--report", p("lda.json"), "--model", p("lda.model.json")},
			p("lda.json"), []string{p("lda.model.json")}, false, "labelled projections (d = 1) to standard output"},
		{"synthesize", []string{"synthesize", "--input", "-", "--schema", schema, "--out", "-", "--report", p("syn.json")}, p("syn.json"), nil, true, "Quality"},
		{"dppca-svm", []string{"publish", "dppca-svm", "--input", "-", "--schema", schema, "--label", "smoker", "--out", "-", "--report", p("svm.json")},
			p("svm.json"), nil, false, "Wrote the model to standard output and the report to " + p("svm.json")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			withStdin(t, rows)
			stdout, stderr := mustRun(t, append(c.args, "--seed", "1")...)
			if !strings.Contains(stderr, c.summary) {
				t.Errorf("stderr lacks the summary %q:\n%s", c.summary, stderr)
			}
			if strings.Contains(stdout, "Privacy report") || strings.Contains(stdout, "Wrote") {
				t.Errorf("the summary went to stdout:\n%s", stdout)
			}
			switch {
			case c.name == "dppca-svm":
				if _, err := model.Read(strings.NewReader(stdout)); err != nil {
					t.Fatalf("stdout is not the model (%v): %.200q", err, stdout)
				}
			case c.name == "lda-dp":
				recs, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
				if err != nil || len(recs) < 100 || strings.Join(recs[0], ",") != "z1,smoker" { // as many as the DP class counts
					t.Fatalf("stdout is not the labelled projections (%v, %d records): %.200q", err, len(recs), stdout)
				}
			case c.isCSV:
				s, err := data.ParseSchema([]byte(schemaJSON))
				if err != nil {
					t.Fatal(err)
				}
				tab, _, err := data.ReadCSV(strings.NewReader(stdout), s, data.ReadOptions{Header: true})
				if err != nil || tab.Len() != 300 {
					t.Fatalf("stdout is not a table of 300 rows (%v): %.200q", err, stdout)
				}
			default:
				var v map[string]any
				if err := json.Unmarshal([]byte(stdout), &v); err != nil || v["attributes"] == nil {
					t.Fatalf("stdout is not a schema (%v): %.200q", err, stdout)
				}
			}
			for _, f := range c.files {
				written(t, f)
			}
			if c.report == "" {
				return
			}
			var rep struct {
				Outputs map[string]string `json:"output_sha256"`
			}
			readJSON(t, c.report, &rep)
			if got := rep.Outputs[kit.StdoutName]; got != sha256Hex(stdout) {
				t.Errorf("the report records %q for standard output, want the digest of stdout %s (outputs %v)", got, sha256Hex(stdout), rep.Outputs)
			}
		})
	}
	notWritten(t, p("-"))
}

// A deprecated flag's notice goes to stderr, not into the data on stdout.
func TestDeprecationNoticeOnStderr(t *testing.T) {
	lines := strings.Split(strings.TrimSpace(csvRows(50)), "\n")
	for i := range lines {
		lines[i] = "p" + itoa(i) + "," + lines[i]
	}
	lines[0] = "pid," + strings.SplitN(lines[0], ",", 2)[1]
	withStdin(t, strings.Join(lines, "\n")+"\n")
	stdout, stderr := mustRun(t, "schema", "-", "--skip", "pid", "--out", "-")
	var v map[string]any
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatalf("stdout is not the schema alone (%v): %q", err, stdout)
	}
	if !strings.Contains(stderr, "Flag --skip has been deprecated, use --skip-columns") {
		t.Errorf("no deprecation notice on stderr: %q", stderr)
	}
}

// --quiet with --out -: stdout holds the data and nothing else, stderr no
// summary.
func TestStdoutQuiet(t *testing.T) {
	dir, schema := peopleSchema(t)
	withStdin(t, csvRows(100))
	stdout, stderr := mustRun(t, "publish", "ppca-dp-mh", "--input", "-", "--schema", schema, "--out", "-",
		"--report", filepath.Join(dir, "r.json"), "--quiet")
	if !strings.HasPrefix(stdout, "age,smoker,region\n") || strings.Count(stdout, "\n") != 101 {
		t.Errorf("stdout is not the 100 synthetic rows: %.200q", stdout)
	}
	if strings.Contains(stderr, "Privacy report") || strings.Contains(stderr, "Wrote") {
		t.Errorf("--quiet printed a summary on stderr: %s", stderr)
	}
}

// What cannot go through standard output is refused in one line, before
// anything is read or written.
func TestStdoutRefusals(t *testing.T) {
	dir, schema, in := peopleInput(t, 50)
	r := filepath.Join(dir, "r.json")
	for _, c := range []refusal{
		{"json", []string{"publish", "ppca-dp-mh", "--input", in, "--schema", schema, "--out", "-", "--report", r, "--json"}, "--out - writes the data to standard output, so --json cannot print there too"},
		{"no report", []string{"publish", "privbayes", "--input", in, "--schema", schema, "--out", "-"}, "--out - needs --report FILE"},
		{"no model", []string{"publish", "mul-lda-dp", "--input", in, "--schema", schema, "--label", "smoker", "--out", "-", "--report", r}, "--out - needs --model FILE"},
		{"several files per owner", []string{"publish", "pdp-mvds", "--dataset", "nltcs", "--budgets", "1", "--out", "-", "--report", r}, "--out - (standard output) is for schema, synthesize, publish ppca-dp-mh"},
		{"predictions", []string{"predict", "--model", schema, "--input", in, "--out", "-"}, "dppub predict writes files"},
		{"stdin twice", []string{"publish", "ppca-dp-mh", "--input", "-", "--input", "-", "--schema", schema, "--out", filepath.Join(dir, "o.csv")}, "standard input can be read once"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, stdout := refusedInOneLine(t, dir, c.want, c.args...); stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
		})
	}
}
