package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dppub/dppub/cmd/dppub/cli/kit"
)

// run executes the CLI and returns exit code, stdout and stderr.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, &out, &errb)
	return code, out.String(), errb.String()
}

// mustRun executes the CLI, fails the test unless it exits 0 (naming
// the command line and what it printed), and returns stdout and stderr.
func mustRun(t *testing.T, args ...string) (string, string) {
	t.Helper()
	code, stdout, stderr := run(t, args...)
	if code != 0 {
		t.Fatalf("%v: exit %d\n%s%s", args, code, stdout, stderr)
	}
	return stdout, stderr
}

const schemaJSON = `{"attributes": [
 {"name": "age", "kind": "numeric", "min": 0, "max": 100},
 {"name": "smoker", "kind": "binary", "categories": ["no", "yes"]},
 {"name": "region", "kind": "categorical", "categories": ["north", "south", "east"]}]}`

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func csvRows(n int) string {
	var b strings.Builder
	b.WriteString("age,smoker,region\n")
	regions := []string{"north", "south", "east"}
	for i := 0; i < n; i++ {
		smoker := "no"
		if i%3 == 0 {
			smoker = "yes"
		}
		b.WriteString(strings.Join([]string{itoa(20 + i%50), smoker, regions[i%3]}, ",") + "\n")
	}
	return b.String()
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestPublishPPCABadInputWritesNothing(t *testing.T) {
	dir, schema := peopleSchema(t)
	good := writeFile(t, dir, "good.csv", csvRows(40))
	empty := writeFile(t, dir, "empty.csv", "")
	ragged := writeFile(t, dir, "ragged.csv", "age,smoker,region\n30,no,north\n31,yes\n")
	unknownCol := writeFile(t, dir, "unknown.csv", "age,smoker,place\n30,no,north\n31,yes,south\n")
	tiny := writeFile(t, dir, "tiny.csv", csvRows(1))
	out := filepath.Join(dir, "out.csv")
	cases := []refusal{
		{"epsilon zero", []string{"--input", good, "--schema", schema, "--epsilon", "0"}, "epsilon must be positive"},
		{"epsilon negative", []string{"--input", good, "--schema", schema, "--epsilon", "-1"}, "epsilon must be positive"},
		{"delta one", []string{"--input", good, "--schema", schema, "--delta", "1"}, "delta must be in [0, 1)"},
		{"empty file", []string{"--input", empty, "--schema", schema}, "is empty: want a header row"},
		{"ragged", []string{"--input", ragged, "--schema", schema}, "line 3"},
		{"unknown column", []string{"--input", unknownCol, "--schema", schema}, "region"},
		{"k above p", []string{"--input", good, "--schema", schema, "--k", "6"}, "k = 6 outside [1, 5]"},
		{"one row per owner", []string{"--input", good, "--input", tiny, "--schema", schema}, "at least 2"},
		{"unknown calibration", []string{"--input", good, "--schema", schema, "--calibration", "loose"}, `"loose"`},
		{"no data", []string{}, "no data"},
		{"unknown dataset", []string{"--dataset", "nope"}, `"nope"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			refusedInOneLine(t, dir, c.want, append([]string{"publish", "ppca-dp-mh", "--out", out}, c.args...)...)
		})
	}
}

func TestPublishPPCAOnCSVWritesTableAndReport(t *testing.T) {
	schema, a, b := csvOwners(t)
	out := filepath.Join(t.TempDir(), "synth.csv")
	stdout, stderr := mustRun(t, "publish", "ppca-dp-mh", "--input", a, "--input", b, "--schema", schema,
		"--epsilon", "2", "--seed", "9", "--out", out)
	if !strings.Contains(stderr, "NO privacy guarantee") {
		t.Fatalf("--seed did not warn on stderr: %q", stderr)
	}
	if lines := lineCount(t, out); lines != 111 {
		t.Fatalf("synthetic CSV has %d lines, want header + 110 rows", lines)
	}
	rep := readReport(t, out+".privacy.json")
	if len(rep.Parties) != 2 || !rep.WithinBudget() || rep.Claimed.Epsilon != 2 {
		t.Fatalf("report parties=%d within=%v overall=%v", len(rep.Parties), rep.WithinBudget(), rep.Claimed)
	}
	if !strings.Contains(stdout, "Privacy report") || !strings.Contains(stdout, "total-variation") {
		t.Fatalf("stdout lacks the report or the utility summary:\n%s", stdout)
	}
}

func TestHelpTeaches(t *testing.T) {
	code, stdout, _ := run(t, "publish", "ppca-dp-mh", "--help")
	if code != 0 || !strings.Contains(stdout, "Examples:") || !strings.Contains(stdout, "secure-aggregate") {
		t.Fatalf("help lacks examples or modes (exit %d)", code)
	}
	code, stdout, _ = run(t, "datasets")
	if code != 0 || !strings.Contains(stdout, "adult") || !strings.Contains(stdout, "45222") {
		t.Fatalf("datasets listing: exit %d\n%s", code, stdout)
	}
}

// TestProgressOnlyOnATerminal: a bar drawn into a buffer or a regular file
// (a log, CI) writes nothing.
func TestProgressOnlyOnATerminal(t *testing.T) {
	var buf bytes.Buffer
	bar := kit.NewBar(&buf, "work")
	for i := range 10 {
		bar(i+1, 10)
	}
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fileBar := kit.NewBar(f, "work")
	fileBar(5, 10)
	if st, err := f.Stat(); err != nil || st.Size() != 0 || buf.Len() != 0 {
		t.Fatalf("progress written off a terminal: buffer %q, file %v bytes (%v)", buf.String(), st.Size(), err)
	}
}
