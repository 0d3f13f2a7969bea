package cli

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	mulldaspec "github.com/dppub/dppub/method/mullda"
)

// dppub predict applies an LDA-DP / Mul-LDA-DP model file to the built-in
// real data it was published from (ε = 1, seeded): the DP Gaussian model
// of the projections must beat the majority class by at least 3 points.
// At this seed the margins are 7 to 34 points (NLTCS money 0.77
// majority, Adult income 0.75, Adult degree-or-not 0.75, Adult
// relationship 0.41); the runs are seeded, so the test is deterministic.
func TestPredictLDAModelBeatsMajority(t *testing.T) {
	cases := []struct {
		name string
		args []string
	}{
		{"mul-lda-dp nltcs money", []string{"mul-lda-dp", "--dataset", "nltcs", "--label", "money", "--owners", "3"}},
		{"lda-dp adult income", []string{"lda-dp", "--dataset", "adult"}},
		{"lda-dp adult degree", []string{"lda-dp", "--dataset", "adult", "--label", "education",
			"--positive", "Bachelors,Masters,Doctorate,Prof-school"}},
		{"lda-dp adult relationship", []string{"lda-dp", "--dataset", "adult", "--label", "relationship"}},
	}
	if testing.Short() {
		cases = cases[:1]
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "p.csv")
			args := append([]string{"publish"}, c.args...)
			args = append(args, "--epsilon", "1", "--delta", "1e-6", "--seed", "3", "--out", out)
			if code, _, stderr := run(t, args...); code != 0 {
				t.Fatalf("publish: exit %d: %s", code, stderr)
			}
			preds := filepath.Join(dir, "pred.csv")
			code, stdout, stderr := run(t, "predict", "--model", out+".model.json", "--dataset", c.args[2], "--out", preds)
			if code != 0 {
				t.Fatalf("predict: exit %d: %s", code, stderr)
			}
			acc := parseAccuracy(t, stdout)
			majority := majorityRate(t, preds)
			t.Logf("accuracy %.4f, majority %.4f", acc, majority)
			if acc < majority+0.03 {
				t.Errorf("accuracy %.4f is not clearly above the majority rate %.4f", acc, majority)
			}
		})
	}
}

func parseAccuracy(t *testing.T, stdout string) float64 {
	t.Helper()
	m := regexp.MustCompile(`Accuracy: ([0-9.]+)`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no accuracy in:\n%s", stdout)
	}
	acc, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return acc
}

// majorityRate is the share of the most frequent true class in a
// predictions file (row, predicted, true).
func majorityRate(t *testing.T, path string) float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) < 2 || len(recs[0]) != 3 {
		t.Fatalf("predictions %s: %v, %d records", path, err, len(recs))
	}
	count := map[string]int{}
	best := 0
	for _, r := range recs[1:] {
		count[r[2]]++
		best = max(best, count[r[2]])
	}
	return float64(best) / float64(len(recs)-1)
}

// A model file without the schema (as written before it was published)
// is refused with one line saying to publish again, not a decoder error.
func TestPredictLDAModelWithoutSchema(t *testing.T) {
	dir := t.TempDir()
	old := writeFile(t, dir, "old.model.json", `{"method": "lda-dp", "calibration": "sound", "features": ["a"],
 "classes": ["0", "1"], "directions": [[1]], "class_means": [[0], [1]], "class_counts": [5, 5],
 "projected_means": [[0], [1]], "projected_covariance": [[1]], "ridge": 0, "artifact_sha256": "", "preprocessing": ""}`)
	code, _, stderr := run(t, "predict", "--model", old, "--dataset", "nltcs")
	if code == 0 || !strings.Contains(stderr, "publish again") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// Mul-LDA-DP from the CLI with a ledger, twice into the same directory
// (keys reused, entries appended); the ledger verifies after each run, and
// a flipped byte in the stored entries makes verify fail.
func TestPublishMulLDAWithLedger(t *testing.T) {
	dir := t.TempDir()
	lg := filepath.Join(dir, "ledger")
	out := filepath.Join(dir, "p.csv")
	for i, want := range []string{"12 entries", "24 entries"} {
		code, stdout, stderr := run(t, "publish", "mul-lda-dp", "--dataset", "nltcs", "--label", "money", "--epsilon", "1",
			"--delta", "1e-3", "--seed", "5", "--ledger", lg, "--out", out, "--force")
		if code != 0 {
			t.Fatalf("run %d: exit %d: %s", i, code, stderr)
		}
		if !strings.Contains(stdout, "Ledger "+lg+" verified: "+want) {
			t.Fatalf("run %d: stdout lacks the ledger verification (%s):\n%s", i, want, stdout)
		}
		code, stdout, stderr = run(t, "ledger", "verify", lg)
		if code != 0 || !strings.Contains(stdout, "ledger OK: "+want) {
			t.Fatalf("run %d: verify exit %d: %s%s", i, code, stdout, stderr)
		}
	}
	if rep := readReport(t, out+".privacy.json"); len(rep.Parties) != 3 || rep.Claimed.Epsilon != 1 {
		t.Fatalf("report: %d parties, %+v", len(rep.Parties), rep.Claimed)
	}
	var model mulldaspec.ModelFile
	readJSON(t, out+".model.json", &model)
	if len(model.Directions) != 1 || len(model.Directions[0]) != 15 {
		t.Fatalf("model: %d directions", len(model.Directions))
	}
	code, stdout, _ := run(t, "ledger", "show", lg)
	if code != 0 || strings.Count(stdout, "\n") != 24 || !strings.Contains(stdout, "artifact-published") {
		t.Fatalf("show: exit %d\n%s", code, stdout)
	}
	body := readFile(t, filepath.Join(lg, "entries.log"))
	body[len(body)/2] ^= 1
	if err := os.WriteFile(filepath.Join(lg, "entries.log"), body, 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, "ledger", "verify", lg); code == 0 {
		t.Fatal("verify passed on a ledger with a flipped byte")
	} else if !strings.Contains(stderr, "corrupt") && !strings.Contains(stderr, "signature") {
		t.Fatalf("verify failed without naming the damage: %s", stderr)
	}
}

func TestPublishLDAPaperProjectionsSaysNotDP(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "p.csv")
	stdout, _ := mustRun(t, "publish", "lda-dp", "--dataset", "nltcs", "--label", "outside", "--calibration", "paper",
		"--paper-projections", "--delta", "1e-3", "--seed", "1", "--out", out)
	if !strings.Contains(stdout, "NOT covered by DP") || !strings.Contains(stdout, "21574 labelled projections") {
		t.Fatalf("stdout:\n%s", stdout)
	}
}

func TestPublishLDABadInput(t *testing.T) {
	out := filepath.Join(t.TempDir(), "p.csv")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"lda-dp", "--dataset", "nltcs", "--owners", "2"}, "one owner"},
		{[]string{"lda-dp", "--dataset", "nltcs", "--label", "money", "--calibration", "loose"}, `"loose"`},
		{[]string{"mul-lda-dp", "--dataset", "nltcs", "--label", "money", "--noise", "shared"}, `"shared"`},
		{[]string{"mul-lda-dp", "--dataset", "nltcs", "--label", "nope"}, "nope"},
		{[]string{"lda-dp", "--dataset", "nltcs"}, "--label"},
		{[]string{"lda-dp", "--dataset", "nltcs", "--label", "money", "--delta", "1"}, "delta must be in (0, 1)"},
	}
	for _, c := range cases {
		refused(t, c.want, []string{out}, append(append([]string{"publish"}, c.args...), "--out", out)...)
	}
	refused(t, "is not a ledger directory", nil, "ledger", "verify", t.TempDir())
	refused(t, "--figure", nil, "eval", "lda-dp", "--figure", "4")
}
