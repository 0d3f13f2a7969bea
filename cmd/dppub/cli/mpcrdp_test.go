package cli

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/internal/fsutil"
	mpcrdpspec "github.com/dppub/dppub/method/mpcrdp"
)

func TestPublishMPCRDPModelThenPredict(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "wdbc-lr.json")
	stdout, stderr := mustRun(t, "publish", "mp-crdp", "--dataset", "wdbc", "--utility", "u1", "--release", "logreg",
		"--epsilon", "2", "--seed", "1", "--out", out)
	mentions(t, "output", stdout, "NOT standard", "final features", "mp-crdp    factor", "standard   factor 1")
	b := readFile(t, out+".privacy.json")
	var rep map[string]any
	if err := json.Unmarshal(b, &rep); err != nil || rep["method"] != "mp-crdp" {
		t.Fatalf("report %v: %v", rep["method"], err)
	}
	code, stdout, stderr := run(t, "predict", "--model", out, "--dataset", "wdbc")
	if code != 0 || !strings.Contains(stdout, "Accuracy:") {
		t.Fatalf("predict exit %d: %s %s", code, stdout, stderr)
	}
}

func TestPublishMPCRDPQueriesFromInputFiles(t *testing.T) {
	dir := t.TempDir()
	d, err := mpcrdpspec.LoadDataset("wdbc", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	parts, err := mpcrdpspec.SplitFeatures(d.Table, d.Features, d.Label, 3)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"publish", "mp-crdp", "--label", "diagnosis", "--utility", "u1", "--release", "queries", "--seed", "2"}
	for i, p := range parts {
		path := filepath.Join(dir, "party"+itoa(i)+".csv")
		if err := fsutil.WriteFileAtomic(path, 0o644, func(w io.Writer) error { return data.WriteCSV(w, p) }); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--input", path)
	}
	s, _ := json.Marshal(d.Table.Schema)
	args = append(args, "--schema", writeFile(t, dir, "s.json", string(s)),
		"--queries", writeFile(t, dir, "q.txt", "radius_worst=14\nperimeter_worst=100; texture_worst=20\n"),
		"--out", filepath.Join(dir, "answers.csv"))
	stdout, _ := mustRun(t, args...)
	b := readFile(t, filepath.Join(dir, "answers.csv"))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if lines[0] != "query,noisy_count" || !strings.Contains(stdout, "queries answered") {
		t.Errorf("answers %q", lines)
	}
}

func TestPublishMPCRDPRejectsBadFlags(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "x.json")
	for _, args := range [][]string{
		{"--dataset", "wdbc", "--release", "histogram", "--out", out},
		{"--dataset", "wdbc", "--notion", "local", "--out", out},
		{"--dataset", "wdbc", "--calibration", "none", "--out", out},
		{"--dataset", "wdbc"},
		{"--dataset", "wdbc", "--queries", "q.txt", "--out", out},
		{"--input", "a.csv", "--out", out},
	} {
		refusedInOneLine(t, dir, "see --help", append([]string{"publish", "mp-crdp"}, args...)...)
	}
	code, _, stderr := run(t, "eval", "mp-crdp", "--figure", "2", "--out", filepath.Join(dir, "e.csv"))
	if code == 0 || !strings.Contains(stderr, "see --help") {
		t.Errorf("eval --figure 2: exit %d, %q", code, stderr)
	}
}
