package transport_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dppub/dppub/consortium"
	"github.com/dppub/dppub/transport"
)

// A 3-owner synthesize-rows session between real processes (secure
// aggregation of every release over loopback mutual TLS) publishes, for
// the same seed, byte for byte the table of `dppub publish
// synthesize-rows` in one process on the owners' files, and its privacy
// report but for the run record: on the paper method (which auto picks
// for these 4 000 rows) and on the adaptive one, whose rounds add the
// owners' select requests (roles.KindSelect) to the counts; and under
// add/remove neighbours, where the owners' counts never leave them and
// their noisy total (roles.KindCount) is the first release.
func TestRowSynthNetworkMatchesOneProcess(t *testing.T) {
	for _, c := range []struct {
		name   string
		run    []string
		pub    []string
		method string // what the report's method names
		wrote  string // what the run says it wrote
		nb     string // the report's relation
	}{
		{"paper", nil, nil, "Algorithms 2-3 of PDP-MVDS", "Wrote 4000 rows", "replace-one"},
		{"adaptive", []string{"--set", "method=adaptive"}, []string{"--method", "adaptive"}, "the adaptive method", "Wrote 4000 rows", "replace-one"},
		// The noisy total (σ ≈ 16 at 1 % of ρ) is the number of rows.
		{"add-remove", []string{"--set", "neighbours=add-remove"}, []string{"--neighbours", "add-remove"}, "Algorithms 2-3 of PDP-MVDS", "Wrote ", "add-remove"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := servingCluster(t, "synthesize-rows", 3, 4000)
			r := cl.matchCSV(t, "synthesize-rows",
				append([]string{"--seed", "11", "--set", "epsilon=1", "--set", "delta=1e-5"}, c.run...),
				append([]string{"--epsilon", "1", "--delta", "1e-5", "--seed", "11"}, c.pub...))
			if !strings.Contains(r.stdout, c.wrote) {
				t.Fatalf("unexpected output:\n%s", r.stdout)
			}
			// The session ran the method named: its report records it.
			rep := readReport(t, filepath.Join(cl.dir, "net.csv"))
			if m := fmt.Sprint(rep["method"]); !strings.Contains(m, c.method) {
				t.Fatalf("the report's method is %q, want %q in it", m, c.method)
			}
			if nb := fmt.Sprint(rep["neighbours"]); nb != c.nb {
				t.Fatalf("the report's relation is %q, want %q", nb, c.nb)
			}
			logSession(t, "3-owner Adult (4000 rows), synthesize-rows, "+c.name, r)
		})
	}
}

// An owner that dies in the middle of a synthesize-rows session (after
// it has answered releases) aborts the session: the run names it, nothing
// is written, the publishing ledger records the abort, and the owner's
// own budget ledger keeps the charges it made (a release that may have
// reached the coordinator is never refunded).
func TestRowSynthOwnerKilledMidSession(t *testing.T) {
	transport.SkipFaultsInShort(t)
	c := newCluster(t, 3, 3000, nil, "--method", "synthesize-rows")
	c.serve("owner-1")
	c.serve("owner-2", "--fault-handle-delay", "150ms")
	c.serve("owner-3")
	out := filepath.Join(c.dir, "synth.csv")
	pubLedger := filepath.Join(c.dir, "publishing-ledger")
	cmd := c.runMethodCmd("synthesize-rows", out, "--ledger", pubLedger, "--set", "epsilon=1", "--set", "delta=1e-5")
	done := make(chan runResult, 1)
	go func() { done <- wait(cmd) }()
	for deadline := time.Now().Add(60 * time.Second); strings.Count(c.log("owner-2"), "type=rowsynth/request") < 3; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("owner-2 never handled three requests:\n%s", c.log("owner-2"))
		}
	}
	c.kill("owner-2")
	r := <-done
	t.Logf("aborted: %s", strings.TrimSpace(r.stderr))
	if r.err == nil || !strings.Contains(r.stderr, "owner-2") {
		t.Fatalf("want an abort naming owner-2, got %v:\n%s%s", r.err, r.stdout, r.stderr)
	}
	absent(t, out, out+".privacy.json")
	aborted := c.sessions(pubLedger)
	if len(aborted) != 1 || aborted[0].kind != transport.KindSessionAborted || !slices.Contains(aborted[0].rec.Missing, "owner-2") {
		t.Fatalf("publishing ledger after the abort: %+v", aborted)
	}
	// The demo's (ε, δ) lifetime budget counts the interrupted session's
	// ρ charges, converted at its δ.
	if b := c.ledger("owner-2"); b.Entries < 2 || b.Sessions != 1 || !(b.Spent.Epsilon > 0) || len(b.Converted) != 1 || !(b.Converted[0].Charged > 0) {
		t.Fatalf("owner-2's ledger after the crash: %+v (want the charges of the interrupted session)", b)
	}
}

// A slow owner of rows: the coordinator aborts the synthesize-rows
// session at the step deadline, naming the owner and the request it is
// handling, and writes nothing.
func TestRowSynthSlowOwnerMissesTheStepDeadline(t *testing.T) {
	transport.SkipFaultsInShort(t)
	c := newCluster(t, 3, 3000, func(l *consortium.Limits) { l.StepTimeout.Duration = time.Second }, "--method", "synthesize-rows")
	c.serve("owner-1")
	c.serve("owner-2")
	c.serve("owner-3", "--fault-handle-delay", "30s")
	out := filepath.Join(c.dir, "synth.csv")
	r := wait(c.runMethodCmd("synthesize-rows", out, "--set", "epsilon=1", "--set", "delta=1e-5"))
	t.Log(strings.TrimSpace(r.stderr))
	if r.err == nil || !strings.Contains(r.stderr, "owner-3") || !strings.Contains(r.stderr, "rowsynth/") || !strings.Contains(r.stderr, "step deadline") {
		t.Fatalf("want owner-3 named at the step deadline, got %v:\n%s", r.err, r.stderr)
	}
	absent(t, out, out+".privacy.json")
}

// Under an injected wide-area latency (every owner holds each message
// until 50 ms after it arrived, so every round trip from the curator
// costs at least 50 ms, messages sent together once) a synthesize-rows
// session publishes the same bytes as without it; the log line gives its
// wall time and rounds, for docs/results/rows/ (the USENIX Security 2026
// vertical AIM protocol reports 24 minutes for Adult over a real WAN).
func TestRowSynthUnderWANLatency(t *testing.T) {
	if testing.Short() {
		t.Skip("about 10 s of injected latency")
	}
	c := newCluster(t, 3, 4000, nil, "--method", "synthesize-rows")
	c.serveAll("--insecure-accept-seed", "--fault-latency", "50ms")
	r := c.matchCSV(t, "synthesize-rows",
		[]string{"--seed", "11", "--set", "epsilon=1", "--set", "delta=1e-5"},
		[]string{"--epsilon", "1", "--delta", "1e-5", "--seed", "11"})
	requests := strings.Count(c.log("owner-1"), "type=rowsynth/request")
	t.Logf("3-owner Adult (4000 rows), synthesize-rows with 50 ms latency at every owner: %v for %d requests (%s)",
		r.took.Round(1e6), requests, grab(r.stdout, `session \S+: (.*)`))
}
