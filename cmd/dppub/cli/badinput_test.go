package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/internal/testenv"
	"github.com/dppub/dppub/ownerstats"
)

// badInputFixture is one directory holding every input the bad-input
// suite needs: good and broken CSV files and schemas, an existing
// output, a publishing ledger with entries, Paillier key files and a
// consortium (certificates, no budget spent yet).
type badInputFixture struct{ dir string }

func (f badInputFixture) p(name string) string { return filepath.Join(f.dir, name) }

func newBadInputFixture(t *testing.T) badInputFixture {
	t.Helper()
	f := badInputFixture{dir: t.TempDir()}
	files := map[string]string{
		"s.json":          schemaJSON,
		"in.csv":          csvRows(300),
		"empty.csv":       "",
		"header.csv":      "age,smoker,region\n",
		"headerless.csv":  "30,no,north\n31,yes,south\n",
		"nonnum.csv":      "age,smoker,region\n30,no,north\nthirty,yes,south\n",
		"extra.csv":       strings.Replace(csvRows(60), "age,smoker,region\n", "age,smoker,region,pid\n", 1),
		"badcat.csv":      "age,smoker,region\n30,no,north\n31,maybe,south\n",
		"ragged.csv":      "age,smoker,region\n30,no,north\n31,yes\n",
		"other.json":      `{"attributes": [{"name": "income", "kind": "binary", "categories": ["low", "high"]}]}`,
		"draft.json":      `{"draft": true, "attributes": [{"name": "age", "kind": "numeric", "min": 0, "max": 100}]}`,
		"old.csv":         "keep me\n",
		"settings.json":   `{"epsilon": 1}`,
		"bad-member.json": `not json`,
		// Inputs read whole or not at all (issue 38).
		"trunc.csv.gz":       string(truncatedGzip(t, csvRows(3000))),
		"headerless-dup.csv": "-75,-75,north\n30,no,north\n31,yes,south\n",
		"int.json":           strings.Replace(schemaJSON, `"min": 0,`, `"integer": true, "min": 0,`, 1),
		"frac.csv":           "age,smoker,region\n30,no,north\n31,yes,south\n3.5,no,east\n",
		"one.csv":            "age,smoker,region\n30,no,north\n",
		"long.csv":           "age,smoker,region\n30,no,north\n31,yes," + strings.Repeat("x", 1<<20) + "\n",
	}
	for name, body := range files {
		writeFile(t, f.dir, name, body)
	}
	// The extra column of extra.csv holds values: give every row one.
	b, _ := os.ReadFile(f.p("extra.csv"))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for i := 1; i < len(lines); i++ {
		lines[i] += ",p" + itoa(i)
	}
	writeFile(t, f.dir, "extra.csv", strings.Join(lines, "\n")+"\n")
	if err := os.Mkdir(f.p("parts"), 0o755); err != nil {
		t.Fatal(err)
	}
	pdpmvdsParts(t, f.p("parts"))
	// One party's file under other names: a hard link, a symbolic link,
	// a copy; and parties of one row (issue 38).
	if err := os.Link(f.p("parts/a.csv"), f.p("parts/a-hard.csv")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.csv", f.p("parts/a-sym.csv")); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(f.p("parts/a.csv"))
	writeFile(t, f.dir, "parts/a-copy.csv", string(a))
	writeFile(t, f.dir, "parts/one-a.csv", "id,age,smoker\np0,30,no\n")
	writeFile(t, f.dir, "parts/one-b.csv", "region,id\nnorth,p0\n")
	writeFile(t, f.dir, "five.csv", csvRows(5))
	writeOneRecordStatistics(t, f.p("one.stats"))
	for _, args := range [][]string{
		// A publishing ledger with entries (a published Mul-LDA-DP run).
		{"publish", "mul-lda-dp", "--input", f.p("in.csv"), "--schema", f.p("s.json"), "--label", "smoker",
			"--owners", "2", "--epsilon", "1", "--ledger", f.p("ledger"), "--out", f.p("lda.csv")},
		{"keygen", "--parties", "2", "--bits", "256", "--insecure-test-keys", "--out", f.p("keys")},
		{"consortium", "demo", "--method", "ppca-dp-mh", "--dir", f.p("demo"), "--rows", "300"},
		{"consortium", "init", "--config", f.p("demo/consortium.json")},
	} {
		if code, _, stderr := run(t, args...); code != 0 {
			t.Fatalf("fixture %v: exit %d: %s", args[:2], code, stderr)
		}
	}
	return f
}

// truncatedGzip is s gzipped and cut in half: a copy cut short.
func truncatedGzip(t *testing.T, s string) []byte {
	t.Helper()
	gz := testenv.Gzip(t, s)
	return gz[:len(gz)/2]
}

// badInputCase is one refused command line: the error's one line holds
// want (which quotes the bad value), and is a usage error (a mistake in
// the command line, ending "(see --help)") or a failure of the run.
type badInputCase struct {
	name  string
	args  []string
	want  string
	usage bool
}

// Every command refuses bad input in one line on stderr, with exit
// status 1, nothing on stdout, and nothing written, replaced or spent in
// the directory holding its inputs, outputs, ledger, keys and budget
// stores; the line says which class of mistake it is.
func TestBadInput(t *testing.T) {
	f := newBadInputFixture(t)
	a := newBadInputArgs(f)
	stateFixture(t, f)
	var cases []badInputCase
	for _, group := range [][]badInputCase{a.schemaCases(), a.ppcaCases(), a.wholeInputCases(), a.methodCases(),
		a.toolCases(), a.runServeCases(), a.budgetCases(), a.ownerStateCases(), a.partyCases(), a.pureDeltaCases()} {
		cases = append(cases, group...)
	}
	if len(cases) < 60 {
		t.Fatalf("%d cases; the suite promises at least 60", len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			line, stdout := refusedInOneLine(t, f.dir, c.want, c.args...)
			switch {
			case stdout != "":
				t.Errorf("stdout %q, want nothing", stdout)
			case !strings.HasPrefix(line, "dppub: "):
				t.Errorf("stderr does not start with dppub: %q", line)
			case c.usage != strings.HasSuffix(line, "(see --help)"):
				t.Errorf("usage error %v, want %v: %q", !c.usage, c.usage, line)
			}
		})
	}
}

// writeOneRecordStatistics writes an owner's statistics file counting
// one record, as an outside pipeline could (dppub statistics refuses to).
func writeOneRecordStatistics(t *testing.T, path string) {
	t.Helper()
	s, err := data.ParseSchema([]byte(schemaJSON))
	if err != nil {
		t.Fatal(err)
	}
	c := ownerstats.Config{Schema: s, Read: data.ReadOptions{Header: true}, Fine: true}
	st, _, err := ownerstats.Scan(strings.NewReader("age,smoker,region\n30,no,north\n"), c, data.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := st.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// Every publishing command refuses, before it reads or charges anything,
// an output that would lose a file: one line, exit status 1, nothing
// written.
func TestNothingLost(t *testing.T) {
	dir, schema, input := peopleInput(t, 40)
	existing := writeFile(t, dir, "old.csv", "keep me\n")
	commands := map[string][]string{
		"ppca-dp-mh": {"publish", "ppca-dp-mh", "--input", input, "--schema", schema},
		"mul-lda-dp": {"publish", "mul-lda-dp", "--input", input, "--schema", schema, "--label", "smoker"},
		"dp-subn3":   {"publish", "dp-subn3", "--input", input, "--schema", schema},
		"synthesize": {"synthesize", "--input", input, "--schema", schema},
		"run":        {"run", "ppca-dp-mh", "--config", input, "--settings", schema},
	}
	cases := []refusal{
		{"out is the input", []string{"--out", input}, "also the input"},
		{"out is the schema", []string{"--out", schema}, "also the input"},
		{"report is the input", []string{"--out", filepath.Join(dir, "new.csv"), "--report", input}, "also the input"},
		{"report is the out", []string{"--out", filepath.Join(dir, "new.csv"), "--report", filepath.Join(dir, "new.csv")}, "also the output"},
		{"out exists", []string{"--out", existing}, "already exists"},
		{"out's directory is missing", []string{"--out", filepath.Join(dir, "nodir", "x.csv")}, "does not exist"},
	}
	for cmdName, base := range commands {
		for _, c := range cases {
			t.Run(cmdName+"/"+c.name, func(t *testing.T) {
				// The snapshot holds the existing file's digest: it is
				// neither replaced nor appended to.
				refusedInOneLine(t, dir, c.want, append(append([]string{}, base...), c.args...)...)
			})
		}
	}
	// --force replaces an existing output.
	mustRun(t, append(commands["ppca-dp-mh"], "--out", existing, "--force", "--epsilon", "1")...)
}
