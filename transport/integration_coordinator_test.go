package transport_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dppub/dppub/budgetstore"
	"github.com/dppub/dppub/transport"
)

// noticeWithin is how soon an owner must abort a session whose coordinator
// died: its idle deadline is unreachable_after plus one ping interval
// (1.6 s in these clusters), far below the step deadline (10 s) it waited
// for before.
const noticeWithin = 5 * time.Second

// The coordinator (`dppub run`) killed mid-session: every owner notices
// within seconds, aborts its side and releases the part of its
// reservation the session did not charge (the charges stay spent: they
// may have reached the coordinator), as its budget ledger shows; `dppub
// serve` keeps serving, and the next session runs.
func TestOwnersReleaseWhenTheCoordinatorDies(t *testing.T) {
	transport.SkipFaultsInShort(t)
	for _, tc := range []struct {
		name, method string
		demo         []string
		settings     []string
		// owner-2 is slowed so that the kill lands mid-session, once its
		// log counts mark occurrences of it.
		delay string
		mark  string
		count int
		// partial: the owners had charged only part of their budget.
		partial bool
	}{
		{"ppca-dp-mh, an owner handling the model", "ppca-dp-mh", nil, nil, "3s", "type=ppca-dp-mh/model", 1, false},
		{"synthesize-rows, between requests", "synthesize-rows", []string{"--method", "synthesize-rows"},
			[]string{"--set", "epsilon=1", "--set", "delta=1e-5"}, "20ms", "type=rowsynth/request", 3, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.partial && testing.Short() {
				t.Skip("8 s; the release of an uncharged part is also tested in budgetstore; runs in the full test run")
			}
			c := newCluster(t, 3, 3000, nil, tc.demo...)
			owners := []string{"owner-1", "owner-2", "owner-3"}
			c.serve("owner-1")
			c.serve("owner-2", "--fault-handle-delay", tc.delay)
			c.serve("owner-3")
			out := filepath.Join(c.dir, "synth.csv")
			cmd := c.runMethodCmd(tc.method, out, tc.settings...)
			done := make(chan runResult, 1)
			go func() { done <- wait(cmd) }()
			for deadline := time.Now().Add(60 * time.Second); strings.Count(c.log("owner-2"), tc.mark) < tc.count; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("owner-2 never logged %q:\n%s", tc.mark, c.log("owner-2"))
				}
			}
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			killed := time.Now()
			<-done
			session := grab(c.log("owner-1"), `joined a session.* session=(\S+)`)

			// Each owner notices and releases, while it keeps serving.
			released := regexp.MustCompile(`released the session's budget reservation\".*session=` + regexp.QuoteMeta(session))
			for _, name := range owners {
				for !released.MatchString(c.log(name)) {
					if time.Since(killed) > 2*noticeWithin {
						t.Fatalf("%s has not released its reservation %v after the kill:\n%s", name, time.Since(killed), c.log(name))
					}
					time.Sleep(20 * time.Millisecond)
				}
				if !strings.Contains(c.log(name), "lost contact with the coordinator curator") {
					t.Errorf("%s's log does not say why it aborted:\n%s", name, c.log(name))
				}
			}
			t.Logf("all owners released %v after the kill", time.Since(killed).Round(time.Millisecond))
			r := wait(c.runMethodCmd(tc.method, out, tc.settings...))
			if r.err != nil {
				t.Fatalf("next session: %v\n%s%s\n%s", r.err, r.stdout, r.stderr, c.logs())
			}

			for _, name := range owners {
				c.stop(name)
				rs := c.reservations(name)
				if len(rs) != 2 || rs[0].Session != session || rs[1].State != budgetstore.ReservationDone {
					t.Fatalf("%s's reservations: %+v", name, rs)
				}
				first := rs[0]
				noticed := first.Closed.Sub(killed)
				t.Logf("%s: aborted %v after the kill; budget %v, charged %v, released %v (%s)",
					name, noticed.Round(time.Millisecond), first.Budget, first.Charged, first.Released, first.Reason)
				if first.State != budgetstore.ReservationAborted || !strings.Contains(first.Reason, "lost contact with the coordinator curator") || first.Released == nil {
					t.Fatalf("%s: the killed session's reservation is %s (%s), released %v", name, first.State, first.Reason, first.Released)
				}
				if noticed > noticeWithin {
					t.Errorf("%s noticed the dead coordinator %v after the kill, want under %v", name, noticed, noticeWithin)
				}
				// Charged and released make up the budget; what was
				// charged stays spent.
				if !near(first.Charged.Epsilon+first.Released.Epsilon, first.Budget.Epsilon) ||
					!near(first.Charged.Delta+first.Released.Delta, first.Budget.Delta) ||
					!near(first.Charged.Rho+first.Released.Rho, first.Budget.Rho) {
					t.Errorf("%s: charged %v and released %v do not make up the budget %v", name, first.Charged, first.Released, first.Budget)
				}
				if first.Charged.IsZero() || first.Released.IsZero() != !tc.partial {
					t.Errorf("%s: charged %v, released %v (partial charge expected: %v)", name, first.Charged, first.Released, tc.partial)
				}
				if b := c.ledger(name); b.Running != 0 || b.Sessions != 2 {
					t.Errorf("%s's balance: %+v", name, b)
				}
			}
		})
	}
}

// reservations reads a stopped member's budget reservations.
func (c *cluster) reservations(name string) []budgetstore.Reservation {
	c.t.Helper()
	st, m := c.store(name)
	defer st.Close()
	rs, err := st.Reservations(m.DatasetName())
	if err != nil {
		c.t.Fatal(err)
	}
	return rs
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
