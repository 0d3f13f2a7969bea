package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// `synthesize --neighbours` reaches the report: its JSON names the
// relation and the headline states it; add/remove refuses an (ε, δ)
// budget without --delta and parties of columns, naming the flags, before
// writing anything.
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
	for _, tc := range []refusal{
		{"epsilon without delta", []string{"synthesize", "--input", a, "--schema", schema, "--epsilon", "1", "--neighbours", "add-remove"}, "--delta is required with --epsilon under --neighbours add-remove"},
		{"parties", []string{"synthesize", "--input", a, "--schema", schema, "--rho", "1", "--parties", "2", "--neighbours", "add-remove"}, "--neighbours"},
		{"unknown", []string{"synthesize", "--input", a, "--schema", schema, "--rho", "1", "--neighbours", "swap"}, `"swap"`},
		// The shared engine settings give every marginal-engine command the
		// flag; the parties' sensitivities are replace-one's.
		{"parties of columns", []string{"publish", "pdp-mvds", "--dataset", "nltcs", "--budgets", "1", "--neighbours", "add-remove"}, "--neighbours"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".csv")
			code, _, stderr := run(t, append(tc.args, "--out", out)...)
			if code == 0 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q: want a refusal saying %q", code, stderr, tc.want)
			}
			if matches, _ := filepath.Glob(out + "*"); len(matches) > 0 {
				t.Errorf("a refused run wrote %v", matches)
			}
		})
	}
}
