package budgetstore

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dppub/dppub/dp"
	bolt "go.etcd.io/bbolt"
)

// rhoAt is the ρ a session given --epsilon and --delta spends.
func rhoAt(t *testing.T, eps, delta float64) float64 {
	t.Helper()
	rho, err := dp.ZCDPRho(eps, delta)
	if err != nil {
		t.Fatal(err)
	}
	return rho
}

func zcharge(purpose string, rho float64) Entry {
	return Entry{Charge: charge(purpose, dp.Concentrated(rho))}
}

func approxNear(a, b dp.Guarantee) bool {
	return a.Notion == b.Notion && relNear(a.Epsilon, b.Epsilon) && relNear(a.Delta, b.Delta)
}

func relNear(a, b float64) bool {
	d := a - b
	return d <= 1e-9*max(a, b)+1e-15 && -d <= 1e-9*max(a, b)+1e-15
}

// A zCDP session on an (ε, δ) lifetime budget counts, as a whole, as the
// (ε, δ) its charged ρ converts to at its δ: once, however many charges
// it makes; sessions add up by basic composition.
func TestZCDPSessionsOnApproxLifetime(t *testing.T) {
	rho1 := rhoAt(t, 1, 1e-5) // --epsilon 1 --delta 1e-5
	rho1at6 := rhoAt(t, 1, 1e-6)
	for _, tc := range []struct {
		name     string
		lifetime dp.Guarantee
		// sessions: each a δ and the ρ of its charges, committed in turn.
		sessions []struct {
			delta   float64
			charges []float64
		}
		want dp.Guarantee
	}{
		{"one session, one charge", dp.Approx(3, 1e-5),
			[]struct {
				delta   float64
				charges []float64
			}{{1e-5, []float64{rho1}}},
			dp.Approx(dp.ZCDPEpsilon(rho1, 1e-5), 1e-5)},
		{"one session, 200 charges cost the conversion of their sum", dp.Approx(3, 1e-5),
			[]struct {
				delta   float64
				charges []float64
			}{{1e-5, repeat(rho1/200, 200)}},
			dp.Approx(dp.ZCDPEpsilon(rho1, 1e-5), 1e-5)},
		{"two sessions add up", dp.Approx(3, 1e-5),
			[]struct {
				delta   float64
				charges []float64
			}{{1e-6, []float64{rho1at6 / 2, rho1at6 / 2}}, {1e-6, []float64{rho1at6 / 4}}},
			dp.Approx(dp.ZCDPEpsilon(rho1at6, 1e-6)+dp.ZCDPEpsilon(rho1at6/4, 1e-6), 2e-6)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t, filepath.Join(t.TempDir(), "ledger.db"))
			defer s.Close()
			if err := s.Define("d", tc.lifetime); err != nil {
				t.Fatal(err)
			}
			for i, sess := range tc.sessions {
				id := "s" + string(rune('1'+i))
				budget := 0.0
				for _, c := range sess.charges {
					budget += c
				}
				a := accountant(t, dp.Concentrated(budget*(1+1e-12)))
				tr, err := s.ReserveAt("d", id, a.Budget(), sess.delta, a)
				if err != nil {
					t.Fatal(err)
				}
				for j, c := range sess.charges {
					if err := a.Spend(zcharge("release", c).Charge); err != nil {
						t.Fatalf("charge %d: %v", j, err)
					}
					if j%50 == 0 || j == len(sess.charges)-1 { // several commits
						if _, err := tr.Commit(); err != nil {
							t.Fatalf("commit at charge %d: %v", j, err)
						}
					}
				}
				if _, err := s.Release("d", id, ReservationDone, ""); err != nil {
					t.Fatal(err)
				}
			}
			bal, err := s.Balance("d")
			if err != nil {
				t.Fatal(err)
			}
			if !approxNear(bal.Spent, tc.want) {
				t.Fatalf("spent %v, want %v", bal.Spent, tc.want)
			}
			wantLeft := dp.Approx(tc.lifetime.Epsilon-tc.want.Epsilon, tc.lifetime.Delta-tc.want.Delta)
			if !relNear(bal.Remaining.Epsilon, wantLeft.Epsilon) || !relNear(bal.Remaining.Delta, wantLeft.Delta) {
				t.Fatalf("remaining %v, want %v", bal.Remaining, wantLeft)
			}
			if len(bal.Converted) != len(tc.sessions) || bal.Converted[0].Delta != tc.sessions[0].delta || bal.Converted[0].State != ReservationDone {
				t.Fatalf("converted sessions %+v", bal.Converted)
			}
			if err := s.Verify(); err != nil {
				t.Fatal(err)
			}
			a, err := s.LoadAccountant("d", "owner")
			if err != nil {
				t.Fatal(err)
			}
			if !approxNear(a.Spent(), bal.Spent) || len(a.Charges()) != len(tc.sessions) {
				t.Fatalf("loaded accountant: spent %v in %d charges, ledger %v", a.Spent(), len(a.Charges()), bal.Spent)
			}
			t.Logf("lifetime %v: spent %v, remaining %v; %v", tc.lifetime, bal.Spent, bal.Remaining, bal.Converted)
		})
	}
	// The same 200 charges converted one by one would count 200 δ's and
	// far more ε: that is why a session is counted once.
	perCharge := 200 * dp.ZCDPEpsilon(rho1/200, 1e-5)
	if whole := dp.ZCDPEpsilon(rho1, 1e-5); !(perCharge > 5*whole) {
		t.Fatalf("per-charge conversion %v, whole-session %v", perCharge, whole)
	} else {
		t.Logf("ρ=%.5g (ε=1 at δ=1e-5): counted as ε=%.6f once; charge by charge (200) it would be ε=%.3f and δ=2e-3", rho1, whole, perCharge)
	}
}

func repeat(x float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = x
	}
	return out
}

// A running zCDP session holds the conversion of its budget less that of
// its charges; a charge that would take the dataset past its lifetime
// budget is refused with nothing recorded; release gives back the rest.
func TestZCDPSessionReservationAndOverspend(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "ledger.db"))
	defer s.Close()
	if err := s.Define("d", dp.Approx(1.5, 1e-5)); err != nil {
		t.Fatal(err)
	}
	rho := rhoAt(t, 1, 1e-6)
	a := accountant(t, dp.Concentrated(rho))
	tr, err := s.ReserveAt("d", "z", a.Budget(), 1e-6, a)
	if err != nil {
		t.Fatal(err)
	}
	_ = a.Spend(zcharge("first half", rho/2).Charge)
	if _, err := tr.Commit(); err != nil {
		t.Fatal(err)
	}
	bal, _ := s.Balance("d")
	half, whole := dp.ZCDPEpsilon(rho/2, 1e-6), dp.ZCDPEpsilon(rho, 1e-6)
	if !relNear(bal.Spent.Epsilon, half) || !relNear(bal.Reserved.Epsilon, whole-half) || bal.Reserved.Delta != 0 || bal.Running != 1 {
		t.Fatalf("balance with z half charged: %+v (want spent ε %v, reserved ε %v)", bal, half, whole-half)
	}
	for _, tc := range []struct {
		name  string
		do    func() error
		wants []string
	}{
		{"a second session beside z", func() error {
			b := accountant(t, dp.Concentrated(rho))
			_, err := s.ReserveAt("d", "z2", b.Budget(), 1e-6, b)
			return err
		}, []string{"counted at the session's δ=1e-06 as (ε=1, δ=1e-06)", "would exceed the lifetime budget (ε=1.5, δ=1e-05)", "reserved by 1 running sessions"}},
		{"z's second half after another session spent", func() error {
			if err := s.Spend("d", "other", charge("x", dp.Pure(0.6))); err != nil {
				return err
			}
			_ = a.Spend(zcharge("second half", rho/2).Charge)
			_, err := tr.Commit()
			return err
		}, []string{`charging ρ=`, `in session "z" (the session's ρ=`, "would exceed its lifetime budget (ε=1.5, δ=1e-05)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.do()
			for _, w := range tc.wants {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Fatalf("want %q in the refusal, got %v", w, err)
				}
			}
		})
	}
	// Nothing of the refused charge was recorded.
	bal, _ = s.Balance("d")
	if bal.Entries != 2 || !relNear(bal.Spent.Epsilon, half+0.6) || len(tr.Committed()) != 1 {
		t.Fatalf("after the refusal: %+v, %d committed", bal, len(tr.Committed()))
	}
	r, err := s.Release("d", "z", ReservationAborted, "refused by the ledger")
	if err != nil {
		t.Fatal(err)
	}
	if !relNear(r.Released.Rho, rho/2) || !approxNear(r.Counted(), dp.Approx(half, 1e-6)) {
		t.Fatalf("released %+v", r)
	}
	bal, _ = s.Balance("d")
	if !bal.Reserved.IsZero() || !relNear(bal.Remaining.Epsilon, 1.5-half-0.6) || !relNear(bal.Remaining.Delta, 1e-5-1e-6) {
		t.Fatalf("after the release: %+v", bal)
	}
	if err := s.Verify(); err != nil {
		t.Fatal(err)
	}
	a2, err := s.LoadAccountant("d", "owner")
	if err != nil || !relNear(a2.Remaining().Epsilon, bal.Remaining.Epsilon) || len(a2.Charges()) != 2 {
		t.Fatalf("loaded accountant of the mixed ledger: %v, %v", a2, err)
	}
}

// A zCDP session without a δ cannot be counted against an (ε, δ)
// lifetime and is refused, naming what to give; on a ρ lifetime the δ is
// not needed and not recorded.
func TestZCDPSessionWithoutDelta(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "ledger.db"))
	defer s.Close()
	if err := s.Define("approx", dp.Approx(3, 1e-5)); err != nil {
		t.Fatal(err)
	}
	if err := s.Define("rho", dp.Concentrated(1)); err != nil {
		t.Fatal(err)
	}
	z := dp.Concentrated(0.02)
	for _, tc := range []struct {
		name string
		do   func() error
		want string
	}{
		{"reserved without δ", func() error { _, err := s.Reserve("approx", "a", z, accountant(t, z)); return err },
			`session "a" spends ρ=0.02 (zCDP) but has no δ at which to count it against the (ε, δ) lifetime budget (ε=3, δ=1e-05): run the session with --epsilon and --delta`},
		{"spent without a reservation", func() error { return s.Spend("approx", "b", charge("x", z)) },
			`session "b" spends ρ=0.02 (zCDP) but has no δ`},
		{"δ out of range", func() error { _, err := s.ReserveAt("approx", "c", z, 1.5, accountant(t, z)); return err },
			`δ 1.5 must be in (0, 1)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.do(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("want %q, got %v", tc.want, err)
			}
		})
	}
	if bal, _ := s.Balance("approx"); bal.Entries != 0 || bal.Running != 0 {
		t.Fatalf("a refused session left %+v", bal)
	}
	a := accountant(t, z)
	tr, err := s.ReserveAt("rho", "r", z, 1e-5, a)
	if err != nil {
		t.Fatal(err)
	}
	_ = a.Spend(zcharge("x", 0.01).Charge)
	if _, err := tr.Commit(); err != nil {
		t.Fatal(err)
	}
	rs, _ := s.Reservations("rho")
	bal, _ := s.Balance("rho")
	if rs[0].Delta != 0 || bal.Spent != dp.Concentrated(0.01) || len(bal.Converted) != 0 {
		t.Fatalf("ρ lifetime: reservation %+v, balance %+v", rs[0], bal)
	}
}

// Verify recomputes the converted totals from the entries and catches a
// changed charge, session δ or stored total.
func TestVerifyConvertedSessions(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tamper func(b *bolt.Bucket) error
		want   string
	}{
		{"untouched", nil, ""},
		{"a charge's ρ", func(b *bolt.Bucket) error {
			return edit(b.Bucket(bktEntries), seqKey(2), func(e *Entry) { e.Charge.Spec.Guarantee.Rho /= 2 })
		}, `session "z"'s reservation records ρ=`},
		{"the session's δ", func(b *bolt.Bucket) error {
			return edit(b.Bucket(bktReservations), []byte("z"), func(r *Reservation) { r.Delta = 1e-9 })
		}, "stored total (ε="},
		{"the stored total", func(b *bolt.Bucket) error {
			return putGuarantee(b, keySpent, dp.Approx(0.5, 2e-6))
		}, "differs from its entries'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t, filepath.Join(t.TempDir(), "ledger.db"))
			defer s.Close()
			if err := s.Define("d", dp.Approx(3, 1e-5)); err != nil {
				t.Fatal(err)
			}
			if err := s.Spend("d", "pure", charge("mean", dp.Pure(0.25))); err != nil {
				t.Fatal(err)
			}
			a := accountant(t, dp.Concentrated(0.05))
			tr, err := s.ReserveAt("d", "z", a.Budget(), 1e-6, a)
			if err != nil {
				t.Fatal(err)
			}
			for _, rho := range []float64{0.01, 0.02, 0.01} {
				_ = a.Spend(zcharge("release", rho).Charge)
				if _, err := tr.Commit(); err != nil {
					t.Fatal(err)
				}
			}
			if tc.tamper != nil {
				if err := s.db.Update(func(tx *bolt.Tx) error { return tc.tamper(tx.Bucket([]byte("d"))) }); err != nil {
					t.Fatal(err)
				}
			}
			err = s.Verify()
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				bal, _ := s.Balance("d")
				if want := 0.25 + dp.ZCDPEpsilon(0.04, 1e-6); !relNear(bal.Spent.Epsilon, want) || bal.Spent.Delta != 1e-6 {
					t.Fatalf("spent %v, want ε %v, δ 1e-6", bal.Spent, want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("want %q, got %v", tc.want, err)
			}
		})
	}
}

// edit rewrites one JSON value of bucket b in place.
func edit[T any](b *bolt.Bucket, key []byte, change func(*T)) error {
	var v T
	if err := json.Unmarshal(b.Get(key), &v); err != nil {
		return err
	}
	change(&v)
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put(key, raw)
}
