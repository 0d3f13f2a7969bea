package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
				before := listDir(t, dir)
				code, _, stderr := run(t, append(append([]string{}, base...), c.args...)...)
				if code != 1 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
					t.Fatalf("exit %d, stderr %q; want exit 1 and one line with %q", code, stderr, c.want)
				}
				if after := listDir(t, dir); after != before {
					t.Fatalf("files changed: %s → %s", before, after)
				}
				if b, _ := os.ReadFile(existing); string(b) != "keep me\n" {
					t.Fatal("the existing file was overwritten")
				}
			})
		}
	}
	// --force replaces an existing output.
	if code, _, stderr := run(t, append(commands["ppca-dp-mh"], "--out", existing, "--force", "--epsilon", "1")...); code != 0 {
		t.Fatalf("--force: exit %d: %s", code, stderr)
	}
}

func listDir(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return strings.Join(names, ",")
}
