package cli

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dppub/dppub/budgetstore"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/learn"
	"github.com/dppub/dppub/model"
)

// stateFixture adds to the bad-input fixture the damaged state on disk
// its last cases use: owner-2's budget ledger with every page but the two
// meta pages zeroed (its free list among them: bbolt panicked "invalid
// freelist page" on it), a copy of the demo consortium whose owner-1
// names a data file that does not exist, and a model file whose method
// no dppub method writes.
func stateFixture(t *testing.T, f badInputFixture) {
	t.Helper()
	path := f.p("demo/owner-2.budget.db")
	s, err := budgetstore.Open(budgetstore.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Define("adult-owner-2", dp.Approx(3, 1e-5)); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	b := readFile(t, path)
	clear(b[2*os.Getpagesize():]) // bbolt's default page size
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}

	var c map[string]any
	b, err = os.ReadFile(f.p("demo/consortium.json"))
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range c["members"].([]any) {
		if m := m.(map[string]any); m["name"] == "owner-1" {
			m["dataset"].(map[string]any)["path"] = filepath.Join("data", "nope.csv")
		}
	}
	if b, err = json.Marshal(c); err != nil {
		t.Fatal(err)
	}
	writeFile(t, f.dir, "demo/missing-data.json", string(b))

	schema, err := data.LoadSchema(f.p("s.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.New(model.Options{Method: "dppca-svm", Schema: schema, Label: "smoker", Features: []string{"age"},
		Classifier: &learn.Classifier{Classes: 2, Models: []*learn.LinearModel{{W: []float64{1}, B: -0.5}}}})
	if err == nil {
		b, err = m.JSON()
	}
	if err != nil {
		t.Fatal(err)
	}
	forest := strings.Replace(string(b), `"method": "dppca-svm"`, `"method": "forest"`, 1)
	if forest == string(b) {
		t.Fatalf("the model's method is not where the fixture looks for it:\n%s", b)
	}
	writeFile(t, f.dir, "forest.json", forest)
}

// closedPorts returns n loopback addresses nothing listens at (each was
// bound, then closed): a connection there is refused at once.
func closedPorts(t *testing.T, n int) []string {
	t.Helper()
	var out []string
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ln.Addr().String())
		ln.Close()
	}
	return out
}

// dppub run with both owners down says on stderr, while it waits, whom
// it waits for, and fails after unreachable_after (0.5 s here), not the
// step deadline (60 s), naming both; --quiet leaves the error alone.
func TestRunSaysWhomItWaitsFor(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"consortium", "demo", "--dir", dir, "--owners", "2", "--rows", "100"},
		{"consortium", "init", "--config", filepath.Join(dir, "consortium.json")},
	} {
		if code, _, stderr := run(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args[:2], code, stderr)
		}
	}
	config := filepath.Join(dir, "consortium.json")
	var c map[string]any
	b, err := os.ReadFile(config)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil {
		t.Fatal(err)
	}
	c["limits"].(map[string]any)["ping_interval"] = "100ms"
	c["limits"].(map[string]any)["unreachable_after"] = "500ms"
	b, _ = json.Marshal(c)
	writeFile(t, dir, "consortium.json", string(b))
	down := closedPorts(t, 2)
	args := []string{"run", "ppca-dp-mh", "--config", config, "--listen", "127.0.0.1:0", "--out", filepath.Join(dir, "out.csv"),
		"--peer", "owner-1=" + down[0], "--peer", "owner-2=" + down[1]}
	want := "2 members are unreachable: owner-1 at " + down[0] + ", owner-2 at " + down[1] + ": no connection for "
	for _, quiet := range []bool{false, true} {
		t.Run(fmt.Sprintf("quiet=%v", quiet), func(t *testing.T) {
			a := args
			if quiet {
				a = append(slices.Clone(args), "--quiet")
			}
			start := time.Now()
			code, stdout, stderr := run(t, a...)
			took := time.Since(start)
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			last := lines[len(lines)-1]
			switch {
			case code != 1 || stdout != "":
				t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
			case !strings.Contains(last, want):
				t.Errorf("last line %q does not say %q", last, want)
			case took > 10*time.Second:
				t.Errorf("took %v: waited for the step deadline", took)
			}
			for _, name := range []string{"owner-1", "owner-2"} {
				note := "dppub run: waiting for " + name + " at "
				if said := strings.Contains(stderr, note); said == quiet {
					t.Errorf("said %q: %v, want %v (stderr %q)", note, said, !quiet, stderr)
				}
			}
			if quiet && len(lines) != 1 {
				t.Errorf("--quiet: stderr %q, want the error alone", stderr)
			}
		})
	}
}
