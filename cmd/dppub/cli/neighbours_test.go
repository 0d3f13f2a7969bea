package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// `synthesize --neighbours` reaches the report: its JSON names the
// relation and the headline states it.
func TestSynthesizeNeighbours(t *testing.T) {
	dir := t.TempDir()
	schema, a, _ := csvOwners(t)
	base := []string{"synthesize", "--input", a, "--schema", schema, "--rho", "0.5", "--rounds", "3"}
	for _, tc := range []struct {
		name, relation, headline string
		args                     []string
	}{
		{"default", "replace-one", "per record (replace-one neighbours, n public)", nil},
		{"add-remove", "add-remove", "per record (add/remove neighbours)", []string{"--neighbours", "add-remove"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, tc.name+".csv")
			p := publishRun(t, out, append(append(base, tc.args...), "--out", out)...)
			if p.raw["neighbours"] != tc.relation {
				t.Errorf("report neighbours %v, want %q", p.raw["neighbours"], tc.relation)
			}
			if h := p.headline(t); !strings.Contains(h, tc.headline) {
				t.Errorf("headline %q does not say %q", h, tc.headline)
			}
		})
	}
}

// `publish synthesize-rows --neighbours add-remove` reaches the owners and
// the report: its JSON names the relation, the headline states it, the
// report states the noisy record count and no owner's.
func TestSynthesizeRowsNeighbours(t *testing.T) {
	schema, a, b := csvOwners(t)
	out := filepath.Join(t.TempDir(), "rows.csv")
	p := publishRun(t, out, "publish", "synthesize-rows", "--input", a, "--input", b, "--schema", schema,
		"--rho", "0.5", "--neighbours", "add-remove", "--out", out)
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
}

// Add/remove neighbours refuse an (ε, δ) budget without --delta (on
// synthesize and synthesize-rows alike) and parties of columns, and an
// unknown relation is refused, naming the flags, before anything is
// written.
func TestNeighboursRefusals(t *testing.T) {
	dir := t.TempDir()
	schema, a, b := csvOwners(t)
	for _, tc := range []refusal{
		{"epsilon without delta", []string{"synthesize", "--input", a, "--schema", schema, "--epsilon", "1", "--neighbours", "add-remove"}, "--delta is required with --epsilon under --neighbours add-remove"},
		{"rows epsilon without delta", []string{"publish", "synthesize-rows", "--input", a, "--input", b, "--schema", schema, "--epsilon", "1", "--neighbours", "add-remove"}, "give --delta with --epsilon"},
		{"parties", []string{"synthesize", "--input", a, "--schema", schema, "--rho", "1", "--parties", "2", "--neighbours", "add-remove"}, "--neighbours"},
		{"unknown", []string{"synthesize", "--input", a, "--schema", schema, "--rho", "1", "--neighbours", "swap"}, `"swap"`},
		// The shared engine settings give every marginal-engine command the
		// flag; the parties' sensitivities are replace-one's.
		{"parties of columns", []string{"publish", "pdp-mvds", "--dataset", "nltcs", "--budgets", "1", "--neighbours", "add-remove"}, "--neighbours"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".csv")
			refusedInOneLine(t, dir, tc.want, append(tc.args, "--out", out)...)
		})
	}
}
