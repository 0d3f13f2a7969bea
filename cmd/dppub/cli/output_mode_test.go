package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dppub/dppub/cmd/dppub/cli/kit"
)

// --json prints one JSON document (the privacy report and a short quality
// summary) and nothing else on stdout; --quiet prints nothing; both write
// the same files as the default mode.
func TestQuietAndJSONOutputModes(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, quality string
		args          []string
	}{
		{"lda-dp", "svm_on_projections_misclassification", []string{"publish", "lda-dp", "--dataset", "nltcs", "--label", "money", "--delta", "1e-3"}},
		{"ppca-dp-mh", "mean_one_way_tvd", []string{"publish", "ppca-dp-mh", "--dataset", "nltcs"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, c.name+".csv")
			args := append(c.args, "--epsilon", "1", "--seed", "1", "--out", out)
			code, stdout, stderr := run(t, append(args, "--json")...)
			if code != 0 {
				t.Fatalf("--json: exit %d: %s", code, stderr)
			}
			var doc kit.OutputDocument
			dec := json.NewDecoder(strings.NewReader(stdout))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&doc); err != nil || dec.More() {
				t.Fatalf("--json stdout is not one JSON document (%v):\n%s", err, stdout)
			}
			if doc.Report == nil || doc.Report.Method == "" || doc.Command != "dppub publish "+c.name {
				t.Errorf("document lacks the report or the command: %+v", doc)
			}
			if v, ok := doc.Quality[c.quality].(float64); !ok || !(v >= 0 && v <= 1) {
				t.Errorf("quality %q = %v, want a rate in [0, 1]", c.quality, doc.Quality[c.quality])
			}
			for _, f := range []string{out, out + ".privacy.json"} {
				written(t, f)
			}
			code, stdout, stderr = run(t, append(args, "--quiet", "--force")...)
			if code != 0 || stdout != "" {
				t.Errorf("--quiet: exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
		})
	}
}

func TestOutputModeRefusals(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.csv")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"publish", "lda-dp", "--dataset", "nltcs", "--out", out, "--quiet", "--json"}, "give --quiet or --json, not both"},
		{[]string{"datasets", "--json"}, "--json is for the publishing commands"},
		{[]string{"ledger", "show", ".", "--quiet"}, "--quiet is for the publishing commands"},
	} {
		code, stdout, stderr := run(t, c.args...)
		if code == 0 || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q, want %q", c.args, code, stdout, stderr, c.want)
		}
	}
	notWritten(t, out)
}

func TestVersionCommandMatchesFlag(t *testing.T) {
	code1, sub, _ := run(t, "version")
	code2, flag, _ := run(t, "--version")
	if code1 != 0 || code2 != 0 || sub != flag || !strings.HasPrefix(sub, "dppub version ") {
		t.Errorf("version: %d %q; --version: %d %q", code1, sub, code2, flag)
	}
}
