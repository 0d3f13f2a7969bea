package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestAuditJSONVerdicts(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"audit", "laplace", "--runs", "2000", "--seed", "1", "--json"}, "PASS"},
		// The paper's sharing argument at the publisher's view: ε ≥ 2.5 > 2
		// at these 200,000 runs (see audit.TestSuiteFast).
		{[]string{"audit", "zero-sum", "--calibration", "paper", "--seed", "1", "--json"}, "VIOLATION"},
	}
	for _, c := range cases {
		code, out, errs := run(t, c.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errs)
		}
		var res struct {
			Verdict        string  `json:"verdict"`
			ClaimedEpsilon float64 `json:"claimed_epsilon"`
			EpsilonLower   float64 `json:"epsilon_lower"`
			Seed           uint64  `json:"seed"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%v: %v\n%s", c.args, err, out)
		}
		if res.Verdict != c.want || res.Seed != 1 {
			t.Errorf("%v: verdict %s (ε_lower %.3f vs %g), seed %d; want %s, seed 1", c.args, res.Verdict, res.EpsilonLower, res.ClaimedEpsilon, res.Seed, c.want)
		}
	}
}

func TestAuditTextAndCustomPair(t *testing.T) {
	dir := t.TempDir()
	d := writeFile(t, dir, "d.csv", "a,b,c\n0,0,0\n0.5,0.2,1\n")
	dp := writeFile(t, dir, "dp.csv", "a,b,c\n1,1,1\n0.5,0.2,1\n")
	code, out, errs := run(t, "audit", "ppca-dp-mh", "--pair-d", d, "--pair-dprime", dp, "--runs", "500", "--seed", "3", "--part", "all")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"user-supplied pair", "claimed:      ε=2", "verdict:      PASS", "repeat with --seed 3"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestAuditBadUsage(t *testing.T) {
	dir := t.TempDir()
	d := writeFile(t, dir, "d.csv", "0,0\n1,1\n")
	two := writeFile(t, dir, "two.csv", "1,1\n0,0\n")
	for _, args := range [][]string{
		{"audit", "nope"},
		{"audit", "laplace", "--calibration", "paper"},
		{"audit", "laplace", "--confidence", "1.5"},
		{"audit", "ppca-dp-mh", "--pair-d", d},
		{"audit", "ppca-dp-mh", "--pair-d", d, "--pair-dprime", two},
		{"audit", "all", "--epsilon", "3"},
	} {
		if code, _, errs := run(t, args...); code == 0 || errs == "" {
			t.Errorf("%v: exit %d, stderr %q; want an error", args, code, errs)
		}
	}
}
