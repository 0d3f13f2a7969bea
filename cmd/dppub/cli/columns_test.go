package cli

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/model"
	"github.com/spf13/cobra"
)

// skipColumnsPending are the commands that read a CSV without
// --skip-columns: predict ignores every column its model does not read.
var skipColumnsPending = []string{"dppub predict"}

// Every command that reads a CSV names the columns to leave out with the
// one flag --skip-columns.
func TestSkipColumnsEverywhere(t *testing.T) {
	var missing, with []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		fs := c.Flags()
		readsCSV := fs.Lookup("input") != nil || c.Name() == "schema" || c.Name() == "compare" || c.Name() == "check"
		if readsCSV && c.Runnable() {
			switch {
			case fs.Lookup(kit.SkipColumnsFlag) != nil:
				with = append(with, c.CommandPath())
			case !slices.Contains(skipColumnsPending, c.CommandPath()):
				missing = append(missing, c.CommandPath())
			}
			if f := fs.Lookup("ignore"); f != nil && f.Annotations[deprecatedKey] == nil && !slices.Contains(skipColumnsPending, c.CommandPath()) {
				t.Errorf("%s has a visible --ignore beside --skip-columns: one name for one thing", c.CommandPath())
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewRoot(&bytes.Buffer{}, &bytes.Buffer{}))
	if len(missing) > 0 {
		t.Errorf("commands that read a CSV without --%s: %v", kit.SkipColumnsFlag, missing)
	}
	if len(with) < 10 {
		t.Errorf("only %v have --%s", with, kit.SkipColumnsFlag)
	}
}

// The files carry an ID column and a free-text note the schema does not
// declare: every command reads them with --skip-columns, and a declared
// column named there is dropped from the output.
func TestSkipColumnsReadsExtraColumns(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	schema := writeFile(t, dir, "s.json", schemaJSON)
	lines := strings.Split(strings.TrimSpace(csvRows(200)), "\n")
	lines[0] = "pid," + lines[0] + ",note"
	for i := 1; i < len(lines); i++ {
		lines[i] = "p" + itoa(i) + "," + lines[i] + ",\"free, text\""
	}
	in := writeFile(t, dir, "in.csv", strings.Join(lines, "\n")+"\n")
	skip := []string{"--skip-columns", "pid,note"}
	// Two parties' column files for link and pdp-mvds, each with a note.
	partA, partB := "id,age,smoker,note\n", "note,region,id\n"
	for i := range 120 {
		partA += "p" + itoa(i) + "," + itoa(20+i%50) + "," + []string{"no", "yes"}[i%2] + ",x\n"
		partB += "y," + []string{"north", "south", "east"}[i%3] + ",p" + itoa(119-i) + "\n"
	}
	a, b := writeFile(t, dir, "a.csv", partA), writeFile(t, dir, "b.csv", partB)
	idSchema := writeFile(t, dir, "id.json", strings.Replace(schemaJSON, "{", `{"id": "id",`, 1))
	aSchema := writeFile(t, dir, "a.json", `{"attributes": [{"name": "age", "kind": "numeric", "min": 0, "max": 100}, {"name": "smoker", "kind": "binary", "categories": ["no", "yes"]}]}`)
	bSchema := writeFile(t, dir, "b.json", `{"attributes": [{"name": "region", "kind": "categorical", "categories": ["north", "south", "east"]}]}`)

	cases := []struct {
		name   string
		args   []string
		out    string   // a CSV output to read back ("" for none)
		header []string // its columns
	}{
		{"schema", append([]string{"schema", in, "--out", p("draft.json")}, skip...), "", nil},
		{"ppca-dp-mh", append([]string{"publish", "ppca-dp-mh", "--input", in, "--schema", schema, "--out", p("ppca.csv")}, skip...), p("ppca.csv"), []string{"age", "smoker", "region"}},
		{"ppca-dp-mh dropping a declared column", []string{"publish", "ppca-dp-mh", "--input", in, "--schema", schema, "--skip-columns", "pid,note,region", "--out", p("ppca2.csv")}, p("ppca2.csv"), []string{"age", "smoker"}},
		{"lda-dp", append([]string{"publish", "lda-dp", "--input", in, "--schema", schema, "--label", "smoker", "--out", p("lda.csv")}, skip...), "", nil},
		{"privbayes", append([]string{"publish", "privbayes", "--input", in, "--schema", schema, "--out", p("pb.csv")}, skip...), p("pb.csv"), []string{"age", "smoker", "region"}},
		{"synthesize", append([]string{"synthesize", "--input", in, "--schema", schema, "--out", p("syn.csv")}, skip...), p("syn.csv"), []string{"age", "smoker", "region"}},
		{"synthesize dropping a declared column", []string{"synthesize", "--input", in, "--schema", schema, "--skip-columns", "pid,note,age", "--out", p("syn2.csv")}, p("syn2.csv"), []string{"smoker", "region"}},
		{"synthesize on a dataset", []string{"synthesize", "--dataset", "nltcs", "--skip-columns", "money,outside", "--out", p("syn3.csv")}, p("syn3.csv"), nil},
		{"dppca-svm", append([]string{"publish", "dppca-svm", "--input", in, "--schema", schema, "--label", "smoker", "--out", p("m.json")}, skip...), "", nil},
		{"ag-svm on a dataset", []string{"publish", "ag-svm", "--dataset", "wdbc", "--skip-columns", "radius_mean", "--out", p("ag.json")}, "", nil},
		{"generic session command", append([]string{"publish", "synthesize-rows", "--input", in, "--owners", "2", "--schema", schema, "--rho", "1", "--out", p("rows.csv")}, skip...), p("rows.csv"), []string{"age", "smoker", "region"}},
		{"dp-subn3 on a dataset", []string{"publish", "dp-subn3", "--dataset", "nltcs", "--owners", "2", "--skip-columns", "money,outside", "--out", p("subn3.csv")}, p("subn3.csv"), nil},
		{"compare", append([]string{"compare", in, in, "--schema", schema, "--out", p("q.html")}, skip...), "", nil},
		{"check", append([]string{"check", "--real", in, "--holdout", in, "--synthetic", in, "--schema", schema, "--max-advantage", "0.99"}, skip...), "", nil},
		{"link", []string{"link", "--input", a, "--schema", aSchema, "--input", b, "--schema", bSchema, "--id", "id", "--skip-columns", "note", "--out-dir", p("linked")}, p("linked/party-2.csv"), []string{"region"}},
		{"pdp-mvds", []string{"publish", "pdp-mvds", "--input", a, "--input", b, "--schema", idSchema, "--budgets", "1", "--rounds", "3", "--skip-columns", "note", "--out", p("pdp.csv")}, p("pdp.csv"), []string{"age", "smoker", "region"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := c.args
			if c.name != "compare" && c.name != "check" { // the owner's own reports take no seed
				args = append(args, "--seed", "1")
			}
			mustRun(t, args...)
			if c.out == "" {
				return
			}
			body := readFile(t, c.out)
			header := strings.Split(strings.SplitN(string(body), "\n", 2)[0], ",")
			if c.header != nil && !slices.Equal(header, c.header) {
				t.Errorf("output columns %v, want %v", header, c.header)
			}
			for _, h := range header {
				if h == "pid" || h == "note" || h == "money" || h == "outside" {
					t.Errorf("output has the skipped column %q", h)
				}
			}
		})
	}
	var draft struct {
		Attributes []struct{ Name string }
	}
	readJSON(t, p("draft.json"), &draft)
	for _, a := range draft.Attributes {
		if a.Name == "pid" || a.Name == "note" {
			t.Errorf("the schema drafted with --skip-columns has %q", a.Name)
		}
	}
	if len(draft.Attributes) != 3 {
		t.Errorf("the drafted schema has %d attributes, want age, smoker, region", len(draft.Attributes))
	}
	// The models read only the columns left in.
	for path, left := range map[string]string{p("m.json"): "pid", p("ag.json"): "radius_mean"} {
		m, err := model.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range m.Schema.Attributes {
			if a.Name == left || a.Name == "note" {
				t.Errorf("%s reads the skipped column %q", filepath.Base(path), a.Name)
			}
		}
	}
}

// The DPPCA commands' old --ignore still works, with its notice on
// stderr (not in the model on stdout under --out -).
func TestDPPCAIgnoreIsDeprecated(t *testing.T) {
	dir, schema := peopleSchema(t)
	lines := strings.Split(strings.TrimSpace(csvRows(120)), "\n")
	lines[0] += ",note"
	for i := 1; i < len(lines); i++ {
		lines[i] += ",x"
	}
	in := writeFile(t, dir, "in.csv", strings.Join(lines, "\n")+"\n")
	stdout, stderr := mustRun(t, "publish", "dppca-svm", "--input", in, "--schema", schema, "--label", "smoker",
		"--ignore", "note", "--seed", "1", "--out", "-", "--report", filepath.Join(dir, "r.json"))
	if !strings.Contains(stderr, "Flag --ignore has been deprecated, use --skip-columns") {
		t.Errorf("no deprecation notice on stderr: %q", stderr)
	}
	if _, err := model.Read(strings.NewReader(stdout)); err != nil {
		t.Errorf("stdout is not the model alone (%v): %.200q", err, stdout)
	}
	if _, help, _ := run(t, "publish", "dppca-svm", "--help"); strings.Contains(help, "--ignore") {
		t.Errorf("--help lists the deprecated --ignore")
	}
}
