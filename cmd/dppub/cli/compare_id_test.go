package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// compare reads a real file with an ID column (named in --skip-columns)
// against a synthetic table that has none, as synthesize writes it:
// before, --skip-columns was applied to the synthetic file too and the
// command failed ("column "pid" to skip is neither in the header").
// It checks the privacy report beside the table by its digest, and says
// how it binned.
func TestCompareRealWithIDColumn(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	s := writeFile(t, dir, "s.json", schemaJSON)
	lines := strings.Split(strings.TrimSpace(csvRows(300)), "\n")
	lines[0] = "pid," + lines[0]
	for i := 1; i < len(lines); i++ {
		lines[i] = "p" + itoa(i) + "," + lines[i]
	}
	real := writeFile(t, dir, "real.csv", strings.Join(lines, "\n")+"\n")
	mustRun(t, "synthesize", "--input", real, "--schema", s, "--skip-columns", "pid", "--rho", "1", "--out", p("syn.csv"))
	stdout, _ := mustRun(t, "compare", real, p("syn.csv"), "--schema", s, "--skip-columns", "pid", "--out", p("q.html"))
	if !strings.Contains(stdout, "binning: numeric columns in 16 equal-width bins") {
		t.Errorf("the summary does not say how it binned:\n%s", stdout)
	}
	b := readFile(t, p("q.json"))
	var rep struct {
		Privacy *struct{ Method string } `json:"privacy"`
		Binning string                   `json:"binning"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Privacy == nil || !strings.Contains(rep.Privacy.Method, "synthesis") || rep.Binning == "" {
		t.Errorf("the report's privacy facts %+v, binning %q", rep.Privacy, rep.Binning)
	}
}
