package transport_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dppub/dppub/consortium"
	"github.com/dppub/dppub/transport"
)

// retryBudget is the step deadline of the tests of permanent failures
// between real processes: a transient failure is retried that long, so a
// permanent one that were retried would take at least that.
const retryBudget = 60 * time.Second

// Between real processes, a failure that no retry can change fails `dppub
// run` at once, with one line per member at fault naming it and the
// reason, instead of being retried up to the step deadline; an owner
// restarting while the session opens is retried and the session runs.
func TestPermanentFailuresFailAtOnceBetweenProcesses(t *testing.T) {
	transport.SkipFaultsInShort(t)
	c := newCluster(t, 3, 3000, func(l *consortium.Limits) { l.StepTimeout.Duration = retryBudget })
	other := c.withOtherCA()
	c.serve("owner-1", "--insecure-accept-seed")
	c.serve("owner-3", "--insecure-accept-seed")
	for _, tc := range []struct {
		name   string
		owner2 []string        // owner-2's serve flags
		run    func() []string // dppub run's extra flags
		// want are in the error; every line of it names one of members.
		want    []string
		members []string
	}{
		{"impostor", nil, func() []string { return []string{"--peer", "owner-2=" + c.addrs["owner-1"]} },
			[]string{"owner-2 at 127.0.0.1:", "the server there is dppub://demo/owner/owner-1, not dppub://demo/owner/owner-2"}, []string{"owner-2"}},
		{"owner certified by another CA", []string{"--config", other}, nil,
			[]string{"owner-2 at 127.0.0.1:", "its certificate is not signed by the consortium CA"}, []string{"owner-2"}},
		{"coordinator certified by another CA", nil, func() []string { return []string{"--config", other} },
			[]string{"owner-1 at 127.0.0.1:", "owner-2 at 127.0.0.1:", "owner-3 at 127.0.0.1:", "its certificate is not signed by the consortium CA"},
			[]string{"owner-1", "owner-2", "owner-3"}},
		{"another transport version", []string{"--fault-transport-version", fmt.Sprint(transport.ProtocolVersion + 1)}, nil,
			[]string{"owner-2 at 127.0.0.1:", fmt.Sprintf(`speaks dppub transport version "%d"; curator speaks "%d"`, transport.ProtocolVersion+1, transport.ProtocolVersion)},
			[]string{"owner-2"}},
		{"policy: a seeded session", nil, func() []string { return []string{"--seed", "5"} },
			[]string{"owner-2 refused to join", "a seeded session is refused", "failed_precondition"}, []string{"owner-2"}},
		{"budget", nil, func() []string { return []string{"--set", "epsilon=5"} },
			[]string{"owner-1 refused to join", "owner-2 refused to join", "owner-3 refused to join", "ε=5 would exceed the lifetime budget (ε=3, δ=1e-05)"},
			[]string{"owner-1", "owner-2", "owner-3"}},
		{"unsound settings", nil, func() []string { return []string{"--set", "calibration=paper"} },
			[]string{"owner-2 refused to join", "does not set allow_unsound"}, []string{"owner-1", "owner-2", "owner-3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c.stop("owner-2")
			c.serve("owner-2", tc.owner2...)
			var extra []string
			if tc.run != nil {
				extra = tc.run()
			}
			out := filepath.Join(c.dir, "synth.csv")
			r := wait(c.runCmd(out, extra...))
			msg := strings.TrimSpace(r.stderr)
			t.Logf("failed in %v: %s", r.took.Round(time.Millisecond), msg)
			if r.err == nil {
				t.Fatalf("the session ran:\n%s", r.stdout)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error lacks %q", w)
				}
			}
			for _, line := range strings.Split(msg, "\n") {
				if !strings.HasPrefix(line, "WARNING: --seed") && !namesOneOf(line, tc.members) {
					t.Errorf("line %q names none of %v", line, tc.members)
				}
			}
			// Behaviour, not speed: a retried failure takes the whole
			// retry budget.
			if r.took > retryBudget/3 {
				t.Errorf("took %v: the failure was retried (retry budget %v)", r.took, retryBudget)
			}
			absent(t, out, out+".privacy.json")
		})
	}
	t.Run("owner restarting", func(t *testing.T) {
		// owner-2 is down when the session opens and back on its address
		// a second later: the proposal is retried and the session runs.
		c.stop("owner-2")
		c.serve("owner-2")
		addr := c.addrs["owner-2"]
		c.stop("owner-2")
		out := filepath.Join(c.dir, "restart.csv")
		done := make(chan runResult, 1)
		go func() { done <- wait(c.runCmd(out)) }()
		time.Sleep(time.Second)
		c.serve("owner-2", "--listen", addr)
		r := <-done
		t.Logf("ran in %v with owner-2 back after 1 s", r.took.Round(time.Millisecond))
		if r.err != nil {
			t.Fatalf("session with a restarted owner: %v\n%s%s", r.err, r.stderr, c.logs())
		}
	})
	// Only the session that ran spent anything.
	for _, name := range []string{"owner-1", "owner-2", "owner-3"} {
		c.stop(name)
		if b := c.ledger(name); b.Entries != 2 || b.Sessions != 1 {
			t.Errorf("%s's ledger: %+v (want the 2 charges of the one session that ran)", name, b)
		}
	}
}

func namesOneOf(line string, members []string) bool {
	for _, m := range members {
		if strings.Contains(line, m) {
			return true
		}
	}
	return false
}

// withOtherCA writes a copy of the consortium file whose certificates
// come from another CA (the same names, another key) and returns its path.
func (c *cluster) withOtherCA() string {
	c.t.Helper()
	b, err := os.ReadFile(c.config)
	if err != nil {
		c.t.Fatal(err)
	}
	var f map[string]any
	if err := json.Unmarshal(b, &f); err != nil {
		c.t.Fatal(err)
	}
	f["certs"] = "other-certs"
	if b, err = json.MarshalIndent(f, "", "  "); err != nil {
		c.t.Fatal(err)
	}
	path := filepath.Join(c.dir, "consortium-other-ca.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		c.t.Fatal(err)
	}
	c.dppub("consortium", "init", "--config", path)
	return path
}
