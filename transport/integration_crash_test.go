// Between real processes, an owner killed mid-session or too slow for the
// step deadline: the coordinator aborts naming it and publishes nothing,
// and a killed owner, restarted, finds its ledger intact and serves again.

package transport_test

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dppub/dppub/budgetstore"
	"github.com/dppub/dppub/consortium"
	"github.com/dppub/dppub/transport"
)

// A ppca-dp-mh session streaming to standard output (--out -) that aborts
// after some rows went there (owner-2 killed once owner-1's rows, more
// than the writer's 1 MiB buffer, were written) says those bytes are
// incomplete and unpublished, writes no report, and is recorded as
// aborted.
func TestOwnerKilledMidStreamToStdout(t *testing.T) {
	transport.SkipFaultsInShort(t)
	c := newCluster(t, 3, 0, nil)
	report := filepath.Join(c.dir, "synth.privacy.json")
	pubLedger := filepath.Join(c.dir, "publishing-ledger")
	r := <-c.killOwner2MidModel(t, "-", "--report", report, "--ledger", pubLedger)
	if r.err == nil || !strings.Contains(r.stderr, "owner-2 is unreachable") {
		t.Fatalf("want an abort naming owner-2, got %v:\n%s", r.err, r.stderr)
	}
	want := fmt.Sprintf("the %d bytes already written to standard output are incomplete and unpublished", len(r.stdout))
	if len(r.stdout) == 0 || !strings.Contains(r.stderr, want) {
		t.Fatalf("%d bytes on standard output; want the error to say %q:\n%s", len(r.stdout), want, r.stderr)
	}
	if !strings.HasPrefix(r.stdout, "age,") {
		t.Fatalf("standard output does not start with the header: %.80q", r.stdout)
	}
	absent(t, report)
	if recs := c.sessions(pubLedger); len(recs) != 1 || recs[0].kind != transport.KindSessionAborted {
		t.Fatalf("publishing ledger after the abort: %+v", recs)
	}
}

// killOwner2MidModel serves the three owners of a ppca-dp-mh cluster,
// owner-2 holding each message a minute, runs a session to out with
// args, and kills owner-2 once it handles the model: the session has
// begun streaming owner-1's rows. It returns the run's result to come.
func (c *cluster) killOwner2MidModel(t *testing.T, out string, args ...string) <-chan runResult {
	t.Helper()
	c.serve("owner-1")
	c.serve("owner-2", "--fault-handle-delay", "1m")
	c.serve("owner-3")
	done := c.startUntilModel(t, c.runCmd(out, args...), "owner-2")
	c.kill("owner-2")
	return done
}

// startUntilModel starts the run cmd and returns once owner has begun
// handling the ppca-dp-mh model (its log says so), with the run's result
// to come on the channel.
func (c *cluster) startUntilModel(t *testing.T, cmd *exec.Cmd, owner string) <-chan runResult {
	t.Helper()
	done := make(chan runResult, 1)
	go func() { done <- wait(cmd) }()
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(c.log(owner), "type=ppca-dp-mh/model"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s never handled the model:\n%s", owner, c.log(owner))
		}
	}
	return done
}

// An owner killed mid-session (SIGKILL after it released its statistics,
// while it handles the model): the coordinator aborts, naming the owner,
// and publishes nothing. Restarted, the owner's ledger is intact and
// consistent, holds the spend of the interrupted session, and the owner
// serves the next session.
func TestOwnerKilledMidSessionThenRestarts(t *testing.T) {
	transport.SkipFaultsInShort(t)
	c := newCluster(t, 3, 3000, nil)
	out := filepath.Join(c.dir, "synth.csv")
	pubLedger := filepath.Join(c.dir, "publishing-ledger")
	done := c.killOwner2MidModel(t, out, "--ledger", pubLedger)
	killed := time.Now()
	r := <-done
	t.Logf("aborted %v after the kill: %s", time.Since(killed).Round(time.Millisecond), strings.TrimSpace(r.stderr))
	if r.err == nil || !strings.Contains(r.stderr, "owner-2 is unreachable") {
		t.Fatalf("want an abort naming owner-2, got %v:\n%s%s", r.err, r.stdout, r.stderr)
	}
	// The reason proves the abort came from the liveness check
	// (unreachable_after 1.5 s), not from the 10 s step deadline or the
	// session timeout.
	absent(t, out, out+".privacy.json")
	// owner-2 got the model once owner-1's rows had gone through the
	// curator's sink towards the output's temporary file: the abort came
	// mid-stream, and left no temporary file behind.
	if left, _ := filepath.Glob(filepath.Join(c.dir, ".synth.csv.tmp-*")); len(left) != 0 {
		t.Fatalf("the aborted session left %v", left)
	}
	aborted := c.sessions(pubLedger)
	if len(aborted) != 1 || aborted[0].kind != transport.KindSessionAborted ||
		!strings.Contains(aborted[0].rec.Failure, "owner-2 is unreachable") || !slices.Contains(aborted[0].rec.Missing, "owner-2") {
		t.Fatalf("publishing ledger after the abort: %+v", aborted)
	}

	b := c.ledger("owner-2")
	if b.Entries != 2 || b.Sessions != 1 || b.Spent.Epsilon != 1 {
		t.Fatalf("owner-2's ledger after the crash: %+v (want the 2 charges of the interrupted session)", b)
	}
	c.serve("owner-2")
	if r := c.run(out); r.err != nil {
		t.Fatalf("session after the restart: %v\n%s", r.err, r.stderr)
	}
	for _, name := range []string{"owner-1", "owner-2", "owner-3"} {
		c.stop(name)
		if b := c.ledger(name); b.Entries != 4 || b.Sessions != 2 || b.Spent.Epsilon != 2 || b.Running != 0 {
			t.Fatalf("%s's ledger: %+v", name, b)
		}
	}
	// The crash left owner-2's reservation open; the restart released it.
	rs := c.reservations("owner-2")
	if len(rs) != 2 || rs[0].State != budgetstore.ReservationAborted || !strings.Contains(rs[0].Reason, "the member stopped while the session ran") ||
		rs[1].State != budgetstore.ReservationDone {
		t.Fatalf("owner-2's reservations: %+v", rs)
	}
}

// A slow owner: the coordinator aborts at the step deadline, naming the
// owner and what it is doing.
func TestSlowOwnerMissesTheStepDeadline(t *testing.T) {
	transport.SkipFaultsInShort(t)
	c := newCluster(t, 3, 3000, func(l *consortium.Limits) { l.StepTimeout.Duration = time.Second })
	c.serve("owner-1")
	c.serve("owner-2")
	c.serve("owner-3", "--fault-handle-delay", "30s")
	out := filepath.Join(c.dir, "synth.csv")
	r := c.run(out)
	t.Log(strings.TrimSpace(r.stderr))
	// Owners get the model one at a time, so owner-3 starts handling it
	// about when the last progress was made: the coordinator may name it
	// by its own busy time ("owner-3 has been handling …") or by the
	// session's lack of progress ("still working: owner-3 (handling …)").
	if r.err == nil || !strings.Contains(r.stderr, "owner-3") || !strings.Contains(r.stderr, "handling ppca-dp-mh/model from curator") ||
		!strings.Contains(r.stderr, "step deadline") {
		t.Fatalf("want owner-3 named at the step deadline, got %v:\n%s", r.err, r.stderr)
	}
	absent(t, out, out+".privacy.json")
}
