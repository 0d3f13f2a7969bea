package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dppub/dppub/consortium"
	"github.com/dppub/dppub/data"
)

// Every method's demo layout writes, into a directory that does not exist
// yet, a consortium file that loads and every data file it names, each
// readable with its schema.
func TestDemoLayouts(t *testing.T) {
	for _, method := range demoMethodNames() {
		t.Run(method, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "a", "b")
			out, _ := mustRun(t, "consortium", "demo", "--dir", dir, "--method", method, "--rows", "300", "--split-seed", "1")
			if !strings.Contains(out, "Next: dppub consortium init") {
				t.Fatalf("output: %s", out)
			}
			f, err := consortium.Load(filepath.Join(dir, "consortium.json"))
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := f.Methods[method]; !ok {
				t.Fatalf("no default settings for %s in %v", method, f.Methods)
			}
			rows := 0
			for _, m := range f.Members {
				if m.Dataset == nil {
					continue
				}
				s, err := data.LoadSchema(f.Path(m.Dataset.Schema))
				if err != nil {
					t.Fatal(err)
				}
				tab, _, err := data.ReadFile(f.Path(m.Dataset.Path), s, data.ReadOptions{Header: true})
				if err != nil {
					t.Fatalf("%s's data: %v", m.Name, err)
				}
				rows += tab.Len()
			}
			if rows == 0 {
				t.Fatal("no member holds data")
			}
		})
	}
	refused(t, `"nope"`, nil, "consortium", "demo", "--dir", t.TempDir(), "--method", "nope")
	notWritten(t, "demo")
}

// A demo over a directory that holds files (an existing consortium) is
// refused without --force, and nothing in it changes; an empty directory
// is used as it is; --force writes over the consortium's files.
func TestDemoRefusesExistingDirectory(t *testing.T) {
	dir := t.TempDir() // exists, empty
	args := []string{"consortium", "demo", "--dir", dir, "--rows", "100", "--owners", "2"}
	if code, _, stderr := run(t, args...); code != 0 {
		t.Fatalf("an empty directory: exit %d: %s", code, stderr)
	}
	before := snapshot(t, dir)
	code, stdout, stderr := run(t, args...)
	if code != 1 || stdout != "" || !strings.Contains(stderr, "--dir "+dir+" already holds files (adult.schema.json, consortium.json, data)") ||
		!strings.Contains(stderr, "--force") {
		t.Fatalf("a second demo: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if d := diffSnapshots(before, snapshot(t, dir)); d != "" {
		t.Fatalf("the refused demo changed files: %s", d)
	}
	if code, _, stderr := run(t, append(args, "--force")...); code != 0 {
		t.Fatalf("--force: exit %d: %s", code, stderr)
	}
	if d := diffSnapshots(before, snapshot(t, dir)); !strings.Contains(d, "changed consortium.json") && !strings.Contains(d, "changed data/owner-1.csv") {
		t.Fatalf("--force wrote nothing new (a fresh random split): %q", d)
	}
}
