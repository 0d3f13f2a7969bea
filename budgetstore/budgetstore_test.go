package budgetstore

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/privacy"
)

func charge(purpose string, g dp.Guarantee) privacy.Charge {
	return privacy.Charge{Purpose: purpose, Spec: dp.Spec{Mechanism: "laplace", Guarantee: g}}
}

func open(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(Options{Path: path, Now: func() time.Time { return time.Unix(1700000000, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSpendRefuseAndSurviveRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	s := open(t, path)
	if err := s.Define("adult-a", dp.Approx(1, 1e-5)); err != nil {
		t.Fatal(err)
	}
	if err := s.Spend("adult-a", "s1", charge("mean", dp.Pure(0.25)), charge("cov", dp.Approx(0.25, 1e-6))); err != nil {
		t.Fatal(err)
	}
	// 0.5 + 0.6 > 1: refused whole, nothing recorded.
	err := s.Spend("adult-a", "s2", charge("mean", dp.Pure(0.1)), charge("cov", dp.Pure(0.5)))
	if err == nil || !strings.Contains(err.Error(), "would exceed its lifetime budget") {
		t.Fatalf("overspend not refused: %v", err)
	}
	if err := s.Define("adult-a", dp.Approx(2, 1e-5)); err == nil {
		t.Fatal("a lifetime budget was changed")
	}
	if err := s.Spend("unknown", "s3", charge("x", dp.Pure(0.1))); !errors.Is(err, ErrUnknownDataset) {
		t.Fatalf("unknown dataset: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = open(t, path) // a restart
	defer s.Close()
	if err := s.Verify(); err != nil {
		t.Fatal(err)
	}
	bal, err := s.Balance("adult-a")
	if err != nil {
		t.Fatal(err)
	}
	if bal.Entries != 2 || bal.Sessions != 1 || !near(bal.Spent.Epsilon, 0.5) || !near(bal.Spent.Delta, 1e-6) || !near(bal.Remaining.Epsilon, 0.5) {
		t.Fatalf("balance after restart %+v", bal)
	}
	if seen, _ := s.SessionSeen("adult-a", "s1"); !seen {
		t.Fatal("session s1 not indexed")
	}
	if seen, _ := s.SessionSeen("adult-a", "s2"); seen {
		t.Fatal("the refused session s2 was indexed")
	}
	if err := s.Fits("adult-a", dp.Pure(0.5)); err != nil {
		t.Fatalf("0.5 should fit: %v", err)
	}
	if err := s.Fits("adult-a", dp.Pure(0.3), dp.Pure(0.3)); err == nil {
		t.Fatal("two budgets of 0.3 fit in 0.5")
	}
	a, err := s.LoadAccountant("adult-a", "hospital-a")
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Charges()) != 2 || !near(a.Remaining().Epsilon, 0.5) {
		t.Fatalf("loaded accountant: %d charges, remaining %v", len(a.Charges()), a.Remaining())
	}
}

func near(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }

func TestTrackerCommitsOnlyNewCharges(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "ledger.db"))
	defer s.Close()
	if err := s.Define("d", dp.Pure(1)); err != nil {
		t.Fatal(err)
	}
	acct, _ := privacy.NewAccountant(privacy.AccountantOptions{Party: "p", Budget: dp.Pure(1)})
	tr, err := s.Track("d", "sess", acct)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := tr.Commit(); n != 0 || err != nil {
		t.Fatalf("empty commit: %d, %v", n, err)
	}
	_ = acct.Spend(charge("a", dp.Pure(0.25)))
	_ = acct.Spend(charge("b", dp.Pure(0.25)))
	if n, err := tr.Commit(); n != 2 || err != nil {
		t.Fatalf("commit: %d, %v", n, err)
	}
	_ = acct.Spend(charge("c", dp.Pure(0.25)))
	if n, err := tr.Commit(); n != 1 || err != nil {
		t.Fatalf("second commit: %d, %v", n, err)
	}
	es, _ := s.Entries("d")
	if len(es) != 3 || es[2].Charge.Purpose != "c" || es[0].Session != "sess" || es[2].Seq != 3 {
		t.Fatalf("entries %+v", es)
	}
	// The ledger refuses what the session accountant allowed when another
	// session spent meanwhile: the tracker records nothing.
	if err := s.Spend("d", "other", charge("x", dp.Pure(0.2))); err != nil {
		t.Fatal(err)
	}
	_ = acct.Spend(charge("d", dp.Pure(0.25)))
	if _, err := tr.Commit(); err == nil {
		t.Fatal("lifetime overspend committed")
	}
	if len(tr.Committed()) != 3 {
		t.Fatalf("committed %d", len(tr.Committed()))
	}
	if err := s.Verify(); err != nil {
		t.Fatal(err)
	}
}

func TestOneProcessAtATime(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	s := open(t, path)
	defer s.Close()
	if _, err := Open(Options{Path: path, LockTimeout: 50 * time.Millisecond}); err == nil {
		t.Fatal("a second process opened a ledger in use")
	}
}

func accountant(t *testing.T, budget dp.Guarantee) *privacy.Accountant {
	t.Helper()
	a, err := privacy.NewAccountant(privacy.AccountantOptions{Party: "p", Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// A reservation holds what its session may still charge; ending it gives
// back the uncharged part and keeps the charges; it survives a restart,
// where the open ones are released.
func TestReservations(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	s := open(t, path)
	if err := s.Define("d", dp.Pure(1)); err != nil {
		t.Fatal(err)
	}
	a1 := accountant(t, dp.Pure(0.5))
	tr, err := s.Reserve("d", "s1", dp.Pure(0.5), a1)
	if err != nil {
		t.Fatal(err)
	}
	_ = a1.Spend(charge("a", dp.Pure(0.2)))
	if _, err := tr.Commit(); err != nil {
		t.Fatal(err)
	}
	// s1 holds 0.3 more, 0.2 is spent: 0.5 is left for others.
	bal, _ := s.Balance("d")
	if bal.Running != 1 || !near(bal.Reserved.Epsilon, 0.3) || !near(bal.Spent.Epsilon, 0.2) {
		t.Fatalf("balance with s1 running: %+v", bal)
	}
	for _, tc := range []struct {
		name, session string
		budget        float64
		want          string
	}{
		{"too large beside s1", "s2", 0.6, "reserved by 1 running sessions"},
		{"same session again", "s1", 0.1, "already ran here (open)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Reserve("d", tc.session, dp.Pure(tc.budget), accountant(t, dp.Pure(tc.budget)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("want %q, got %v", tc.want, err)
			}
		})
	}
	if err := s.Fits("d", dp.Pure(0.6)); err == nil {
		t.Fatal("Fits ignores the running session")
	}
	r, err := s.Release("d", "s1", ReservationAborted, "the coordinator went silent")
	if err != nil {
		t.Fatal(err)
	}
	if r.State != ReservationAborted || !near(r.Charged.Epsilon, 0.2) || !near(r.Released.Epsilon, 0.3) || r.Closed.IsZero() {
		t.Fatalf("released %+v", r)
	}
	// Nothing more is charged to an ended session, nor is it released twice.
	_ = a1.Spend(charge("late", dp.Pure(0.1)))
	if _, err := tr.Commit(); err == nil || !strings.Contains(err.Error(), "nothing more may be charged") {
		t.Fatalf("late charge: %v", err)
	}
	if _, err := s.Release("d", "s1", ReservationDone, ""); err == nil {
		t.Fatal("released twice")
	}
	if _, err := s.Release("d", "s1", "maybe", ""); err == nil || !strings.Contains(err.Error(), `"maybe"`) {
		t.Fatalf("unknown state: %v", err)
	}
	// 0.8 fits again now that s1's 0.3 is back.
	if _, err := s.Reserve("d", "s2", dp.Pure(0.8), accountant(t, dp.Pure(0.8))); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = open(t, path) // the member restarts: s2 ended with its process
	defer s.Close()
	rs, err := s.ReleaseOpen("d", "the member restarted")
	if err != nil || len(rs) != 1 || rs[0].Session != "s2" || !near(rs[0].Released.Epsilon, 0.8) {
		t.Fatalf("released at restart: %+v, %v", rs, err)
	}
	all, err := s.Reservations("d")
	if err != nil || len(all) != 2 || all[0].Session != "s1" || all[1].Reason != "the member restarted" {
		t.Fatalf("reservations %+v, %v", all, err)
	}
	bal, _ = s.Balance("d")
	if bal.Running != 0 || !bal.Reserved.IsZero() || !near(bal.Spent.Epsilon, 0.2) {
		t.Fatalf("balance after the restart: %+v", bal)
	}
	if err := s.Verify(); err != nil {
		t.Fatal(err)
	}
}
