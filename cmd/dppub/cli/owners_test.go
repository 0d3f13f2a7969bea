package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// One --input and --owners m splits the file among m owners for every
// method of owners of rows, the generic commands' (synthesize-rows) as
// the hand-written ones' (ppca-dp-mh): before, synthesize-rows ran one
// owner with all 300 records.
func TestOneInputSplitAmongOwners(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.csv", csvRows(300))
	s := writeFile(t, dir, "s.json", schemaJSON)
	for _, name := range []string{"synthesize-rows", "ppca-dp-mh", "dp-subn3"} {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(dir, name+".csv")
			mustRun(t, "publish", name, "--input", in, "--schema", s, "--owners", "3", "--epsilon", "1", "--seed", "1", "--out", out)
			r := readReport(t, out+".privacy.json")
			if name == "dp-subn3" {
				return // sequential: its report's parties are its steps
			}
			if len(r.Parties) != 3 {
				t.Fatalf("%d parties in the report, want 3", len(r.Parties))
			}
			total := 0
			for _, p := range r.Parties {
				total += p.Records
			}
			if total != 300 && total != 0 {
				t.Errorf("the owners hold %d records, want 300", total)
			}
		})
	}
}

// The same file given for two owners is refused, whether through the
// same path, a hard link or a copy of its bytes, before anything is
// written.
func TestSameInputTwiceRefused(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.csv", csvRows(300))
	s := writeFile(t, dir, "s.json", schemaJSON)
	copied := writeFile(t, dir, "copy.csv", csvRows(300))
	linked := filepath.Join(dir, "link.csv")
	if err := os.Link(in, linked); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	symlinked := filepath.Join(dir, "sym.csv")
	if err := os.Symlink(in, symlinked); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	cases := []struct{ name, second, want string }{
		{"same path", in, "are the same file"},
		{"hard link", linked, "are the same file"},
		{"symbolic link", symlinked, "are the same file"},
		{"copy", copied, "has the same content as"},
	}
	for _, c := range cases {
		for _, method := range []string{"synthesize-rows", "ppca-dp-mh", "mul-lda-dp"} {
			t.Run(c.name+"/"+method, func(t *testing.T) {
				out := filepath.Join(dir, "out.csv")
				args := []string{"publish", method, "--input", in, "--input", c.second, "--schema", s, "--epsilon", "1", "--out", out}
				if method == "mul-lda-dp" {
					args = append(args, "--label", "smoker")
				}
				code, _, stderr := run(t, args...)
				if code != 1 || !strings.Contains(stderr, c.want) {
					t.Errorf("exit %d, stderr %q; want a refusal saying %q", code, stderr, c.want)
				}
				notWritten(t, out)
			})
		}
	}
}

// The default δ is 1/n² of all the owners' records (at most 1e-5), not
// of the smallest owner's: an owner with 2 records made it 1/4 for every
// owner, under a "holds" headline.
func TestDefaultDeltaFromAllOwners(t *testing.T) {
	dir := t.TempDir()
	tiny := writeFile(t, dir, "tiny.csv", "age,smoker,region\n30,no,north\n41,yes,south\n")
	big := writeFile(t, dir, "big.csv", csvRows(1000))
	s := writeFile(t, dir, "s.json", schemaJSON)
	out := filepath.Join(dir, "out.csv")
	stdout, _ := mustRun(t, "publish", "synthesize-rows", "--input", tiny, "--input", big, "--schema", s, "--epsilon", "1", "--out", out)
	r := readReport(t, out+".privacy.json")
	want := 1.0 / 1002 / 1002
	for _, p := range r.Parties {
		if p.AsDP == nil || p.AsDP.Delta != want {
			t.Errorf("%s: stated at %v, want δ = 1/1002² = %.4g", p.Party, p.AsDP, want)
		}
	}
	if got := r.Parameters["delta"]; got != strconv.FormatFloat(want, 'g', -1, 64) {
		t.Errorf("the report's parameters record delta %q, want the δ used", got)
	}
	if strings.Contains(stdout, "is above 1e-05") {
		t.Errorf("a warning of a large δ for δ = %.3g", want)
	}
}

// A δ above 1e-5, or ε above 10, is stated as a warning on the terminal
// and in the report.
func TestWeakBudgetWarned(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.csv", csvRows(300))
	s := writeFile(t, dir, "s.json", schemaJSON)
	out := filepath.Join(dir, "out.csv")
	stdout, _ := mustRun(t, "publish", "synthesize-rows", "--input", in, "--schema", s, "--owners", "2", "--epsilon", "12", "--delta", "1e-3", "--out", out)
	r := readReport(t, out+".privacy.json")
	for _, want := range []string{"ε = 12 is above 10", "δ = 0.001 is above 1e-05"} {
		if !strings.Contains(strings.Join(r.Warnings, "\n"), want) || !strings.Contains(stdout, want) {
			t.Errorf("report warnings %q or the terminal do not say %q", r.Warnings, want)
		}
	}
}
