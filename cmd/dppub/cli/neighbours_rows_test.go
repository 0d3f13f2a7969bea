package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// `publish synthesize-rows --neighbours add-remove` reaches the owners and
// the report: its JSON names the relation, the headline states it, the
// report states the noisy record count and no owner's; an (ε, δ) budget
// without --delta is refused, naming the flag, before anything is written.
func TestSynthesizeRowsNeighbours(t *testing.T) {
	dir := t.TempDir()
	schema, a, b := csvOwners(t)
	base := []string{"publish", "synthesize-rows", "--input", a, "--input", b, "--schema", schema}
	out := filepath.Join(dir, "rows.csv")
	p := publishRun(t, out, append(base, "--rho", "0.5", "--neighbours", "add-remove", "--out", out)...)
	if p.raw["neighbours"] != "add-remove" {
		t.Errorf("report neighbours %v, want add-remove", p.raw["neighbours"])
	}
	if h := p.headline(t); !strings.Contains(h, "per record (add/remove neighbours)") {
		t.Errorf("headline %q does not name add/remove neighbours", h)
	}
	parties, _ := p.raw["parties"].([]any)
	for _, q := range parties {
		if r, _ := q.(map[string]any)["records"]; r != nil {
			t.Errorf("the report states an owner's private record count: %v", q)
		}
	}
	js := string(readFile(t, out+".privacy.json"))
	if !strings.Contains(js, "their total was released first") {
		t.Errorf("the report does not state the released record count")
	}
	bad := filepath.Join(dir, "bad.csv")
	code, _, stderr := run(t, append(base, "--epsilon", "1", "--neighbours", "add-remove", "--out", bad)...)
	if code == 0 || !strings.Contains(stderr, "--delta") {
		t.Errorf("exit %d, stderr %q: want a refusal naming --delta", code, stderr)
	}
	if matches, _ := filepath.Glob(bad + "*"); len(matches) > 0 {
		t.Errorf("a refused run wrote %v", matches)
	}
}
