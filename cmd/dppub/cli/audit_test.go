package cli

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/audit/catalog"
)

// `dppub audit hostile-coordinator` runs every attack and each passes;
// the JSON names each attack with what the member did.
func TestAuditHostileCoordinator(t *testing.T) {
	out, _ := mustRun(t, "audit", "hostile-coordinator", "--json")
	var rs []audit.HostileResult
	if err := json.Unmarshal([]byte(out), &rs); err != nil {
		t.Fatal(err)
	}
	want, err := catalog.All().HostileSuite()
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != len(want) {
		t.Fatalf("%d results for %d attacks", len(rs), len(want))
	}
	for _, r := range rs {
		if r.Verdict != "PASS" || r.Got != r.Expect || r.Detail == "" {
			t.Errorf("%s / %s: %+v", r.Method, r.Name, r)
		}
	}
	code, out, _ := run(t, "audit", "--help")
	if code != 0 || !strings.Contains(out, "hostile-coordinator") {
		t.Fatalf("audit --help does not list hostile-coordinator:\n%s", out)
	}
}

func TestAuditJSONVerdicts(t *testing.T) {
	cases := []struct {
		args []string
		want string
		slow bool
	}{
		{[]string{"audit", "laplace", "--runs", "2000", "--seed", "1", "--json"}, "PASS", false},
		// The paper's sharing argument at the publisher's view: ε ≥ 2.5 > 2
		// at these 200,000 runs (see TestSuiteFast in audit/catalog); about 20 s.
		{[]string{"audit", "zero-sum", "--calibration", "paper", "--seed", "1", "--json"}, "VIOLATION", true},
	}
	for _, c := range cases {
		if c.slow && testing.Short() {
			continue
		}
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
	out, _ := mustRun(t, "audit", "ppca-dp-mh", "--pair-d", d, "--pair-dprime", dp, "--runs", "500", "--seed", "3", "--part", "all")
	mentions(t, "output", out, "user-supplied pair", "claimed:      ε=2", "verdict:      PASS", "repeat with --seed 3")
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

func TestAuditGreyBox(t *testing.T) {
	// The exponential mechanism releases an index: an integer, whose low
	// significand bits are zero on D and D' alike.
	out, errs := mustRun(t, "audit", "exponential", "--greybox", "--runs", "2000", "--seed", "1", "--json")
	var res struct {
		Verdict  string  `json:"verdict"`
		Alpha    float64 `json:"alpha"`
		Tests    int     `json:"tests"`
		Seed     uint64  `json:"seed"`
		Features []struct {
			Feature string  `json:"feature"`
			TV      float64 `json:"tv"`
		} `json:"features"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if res.Verdict != "PASS" || res.Alpha != 1e-3 || res.Tests != 2 || len(res.Features) != 2 || res.Seed != 1 {
		t.Errorf("got %+v; want PASS at α = 0.001 over 2 tests, seed 1", res)
	}
	code, out, errs := run(t, "audit", "laplace", "--greybox", "--runs", "500", "--seed", "2", "--alpha", "0.01")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	mentions(t, "output", out, "Grey-box audit of laplace", "residual-trailing-zeros", "4 tests, each at level 0.0025 (α = 0.01", "replay:", "verdict:", "repeat with --seed 2")
	for _, args := range [][]string{
		{"audit", "laplace", "--greybox", "--alpha", "1.5"},
		{"audit", "laplace", "--greybox", "--runs", "50"},
		{"audit", "all", "--greybox", "--mechanism", "x"},
	} {
		if code, _, errs := run(t, args...); code == 0 || errs == "" {
			t.Errorf("%v: exit %d, stderr %q; want an error", args, code, errs)
		}
	}
}

// audit all --greybox prints one grey-box audit per suite case (the
// verdicts depend on the samplers, so only the shape is checked here;
// TestGreyBoxRegisteredMethods in audit/catalog checks them).
func TestAuditAllGreyBoxJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every method")
	}
	_, out, _ := run(t, "audit", "all", "--greybox", "--runs", "200", "--seed", "1", "--json")
	var res struct {
		Audits  []json.RawMessage `json:"audits"`
		GreyBox []struct {
			Case    string  `json:"case"`
			Alpha   float64 `json:"alpha"`
			Verdict string  `json:"verdict"`
		} `json:"greybox"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(res.Audits) != 0 || len(res.GreyBox) < 30 {
		t.Fatalf("%d audits and %d grey-box audits; want only grey-box ones, one per method at least", len(res.Audits), len(res.GreyBox))
	}
	for _, g := range res.GreyBox {
		if g.Case == "" || g.Verdict == "" || math.Abs(g.Alpha*float64(len(res.GreyBox))-0.01) > 1e-12 {
			t.Errorf("%+v: want a case, a verdict and α = 1%%/%d", g, len(res.GreyBox))
		}
	}
}

// A replay that exceeds its bound says so in its verdict, naming the
// release and the distance (the duplicated-record variant of synthesize,
// whose default runs the adaptive method on the canary tables).
func TestGreyBoxReplayVerdict(t *testing.T) {
	if testing.Short() {
		t.Skip("250 same-seed pairs of a whole synthesize run, a few seconds")
	}
	code, stdout, stderr := run(t, "audit", "replay-synthesize", "--greybox", "--calibration", "duplicated", "--seed", "4")
	if code != 1 && code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"EXCEEDED", "worst release: adaptive marginal", "LEAK (replay: a release moved by 2.82843"} {
		if !strings.Contains(stdout, want) {
			t.Fatalf("stdout lacks %q:\n%s", want, stdout)
		}
	}
}
