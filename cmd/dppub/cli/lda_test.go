package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	mulldaspec "github.com/dppub/dppub/method/mullda"
)

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
	if code, _, stderr := run(t, "ledger", "verify", t.TempDir()); code == 0 || !strings.Contains(stderr, "is not a ledger directory") {
		t.Fatalf("verify of an empty directory: exit %d, %s", code, stderr)
	}
	if code, _, stderr := run(t, "eval", "lda-dp", "--figure", "4"); code == 0 || !strings.Contains(stderr, "--figure") {
		t.Fatalf("eval --figure 4: exit %d, %s", code, stderr)
	}
}
