package budgetstore

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/privacy"
	bolt "go.etcd.io/bbolt"
)

// States of a reservation.
const (
	// ReservationOpen: the session runs and may charge up to its budget.
	ReservationOpen = "open"
	// ReservationDone: the session ended as planned.
	ReservationDone = "done"
	// ReservationAborted: the session failed (its coordinator or a member
	// died or refused, or this member stopped).
	ReservationAborted = "aborted"
	// ReservationRefused: this member refused the session after reserving
	// (its role could not be built).
	ReservationRefused = "refused"
)

// Reservation is one session's claim on a dataset's lifetime budget. While
// it is open, what the session may still charge (its budget less its
// charges) counts against the lifetime budget for other sessions; when the
// session ends, that part is released and the charges stay spent.
type Reservation struct {
	Session string       `json:"session"`
	Budget  dp.Guarantee `json:"budget"`
	// Charged composes the charges recorded for the session (in its
	// budget's notion).
	Charged dp.Guarantee `json:"charged"`
	// Delta is δ_s, set only for a zCDP session on a dataset whose
	// lifetime budget is (ε, δ): the session counts against it as the
	// (ε, δ) its charged ρ converts to at δ_s (Counted), once for the
	// whole session (see zcdp.go).
	Delta  float64   `json:"delta,omitempty"`
	Opened time.Time `json:"opened"`
	State  string    `json:"state"`
	Closed time.Time `json:"closed,omitzero"`
	// Released is the budget less the charges, given back when the session
	// ended (nil while it is open).
	Released *dp.Guarantee `json:"released,omitempty"`
	// Reason is why the session ended, if not as planned.
	Reason string `json:"reason,omitempty"`
}

// held is what an open reservation may still charge, in its budget's
// notion (never below zero: rounding in the charges' composition).
func (r Reservation) held() dp.Guarantee {
	h := remaining(r.Budget, r.Charged)
	h.Epsilon, h.Delta, h.Rho = max(h.Epsilon, 0), max(h.Delta, 0), max(h.Rho, 0)
	return h
}

// Reserve claims budget on dataset for session, in one transaction with
// the checks that the session ID never ran on the dataset and that budget,
// with what is spent and what running sessions hold, fits in the lifetime
// budget. The returned tracker commits acct's charges (acct must hold
// budget); Release ends the reservation. A zCDP budget on an (ε, δ)
// lifetime needs ReserveAt.
func (s *Store) Reserve(dataset, session string, budget dp.Guarantee, acct *privacy.Accountant) (*Tracker, error) {
	return s.ReserveAt(dataset, session, budget, 0, acct)
}

// ReserveAt is Reserve for a session run at δ: the δ at which a ρ-zCDP
// session is counted against an (ε, δ) lifetime budget (see zcdp.go).
// Such a session is refused without one. The session's charges then
// compose in ρ, and the whole session counts as (ZCDPEpsilon(ρ, δ), δ);
// what it reserves is the conversion of its whole budget. For any other
// pair of lifetime and budget, delta is ignored (0 or in (0, 1)).
func (s *Store) ReserveAt(dataset, session string, budget dp.Guarantee, delta float64, acct *privacy.Accountant) (*Tracker, error) {
	if session == "" {
		return nil, fmt.Errorf("budgetstore: reserve without a session ID")
	}
	if acct == nil || acct.Budget() != budget {
		return nil, fmt.Errorf("budgetstore: session %q: reserve %v with an accountant of another budget", session, budget)
	}
	if err := budget.Validate(); err != nil {
		return nil, fmt.Errorf("budgetstore: session %q: budget: %w", session, err)
	}
	err := s.updateDataset(dataset, func(b *bolt.Bucket) error {
		if old, err := getReservation(b, session); err != nil || old != nil {
			if err == nil {
				err = fmt.Errorf("budgetstore: dataset %q: session %q already ran here (%s); a session ID never runs twice", dataset, session, old.State)
			}
			return err
		}
		if b.Bucket(bktSessions).Get([]byte(session)) != nil {
			return fmt.Errorf("budgetstore: dataset %q: session %q already spent budget here; a session ID never runs twice", dataset, session)
		}
		lifetime, spent, err := getBudget(b)
		if err != nil {
			return err
		}
		r := Reservation{Session: session, Budget: budget, Charged: dp.Zero(budget.Notion), Opened: s.now().UTC(), State: ReservationOpen}
		if r.Delta, err = checkSessionDelta(dataset, session, lifetime, budget, delta); err != nil {
			return err
		}
		held, running, err := reserved(b, lifetime.Notion)
		if err != nil {
			return err
		}
		// A new reservation holds what it may add to spent: its whole
		// budget, converted for a zCDP session on an (ε, δ) lifetime.
		asked := r.holds()
		total, err := dp.Compose(spent, held)
		if err == nil {
			total, err = dp.Compose(total, asked)
		}
		if err != nil {
			return fmt.Errorf("budgetstore: dataset %q: session %q: %w", dataset, session, err)
		}
		if !dp.Within(total, lifetime) {
			return fmt.Errorf("budgetstore: dataset %q: %s would exceed the lifetime budget %v (spent %v%s, remaining %v)",
				dataset, asking(r, asked), lifetime, spent, runningText(Balance{Reserved: held, Running: running}), remaining(lifetime, spent))
		}
		return putReservation(b, r)
	})
	if err != nil {
		return nil, err
	}
	return &Tracker{store: s, dataset: dataset, session: session, acct: acct}, nil
}

// Release ends session's open reservation on dataset in state (done,
// aborted or refused) for reason: what the session did not charge is
// given back; its charges stay spent, and nothing more may be charged to
// it.
func (s *Store) Release(dataset, session, state, reason string) (Reservation, error) {
	if !slices.Contains([]string{ReservationDone, ReservationAborted, ReservationRefused}, state) {
		return Reservation{}, fmt.Errorf("budgetstore: release session %q in state %q, want done, aborted or refused", session, state)
	}
	var out Reservation
	err := s.updateDataset(dataset, func(b *bolt.Bucket) error {
		r, err := getReservation(b, session)
		if err != nil {
			return err
		}
		if r == nil || r.State != ReservationOpen {
			return fmt.Errorf("budgetstore: dataset %q: session %q has no open reservation", dataset, session)
		}
		out = s.close(*r, state, reason)
		return putReservation(b, out)
	})
	return out, err
}

// ReleaseOpen aborts every open reservation on dataset for reason. A
// member calls it when it starts: the sessions of the process that held
// the ledger before ended with it.
func (s *Store) ReleaseOpen(dataset, reason string) ([]Reservation, error) {
	var out []Reservation
	err := s.updateDataset(dataset, func(b *bolt.Bucket) error {
		all, err := listReservations(b)
		if err != nil {
			return fmt.Errorf("budgetstore: dataset %q: %w", dataset, err)
		}
		for _, r := range all {
			if r.State != ReservationOpen {
				continue
			}
			r = s.close(r, ReservationAborted, reason)
			if err := putReservation(b, r); err != nil {
				return err
			}
			out = append(out, r)
		}
		return nil
	})
	return out, err
}

func (s *Store) close(r Reservation, state, reason string) Reservation {
	r.State, r.Reason, r.Closed = state, reason, s.now().UTC()
	held := r.held()
	r.Released = &held
	return r
}

// Reservations returns dataset's reservations, oldest first.
func (s *Store) Reservations(dataset string) ([]Reservation, error) {
	var out []Reservation
	err := s.viewDataset(dataset, func(b *bolt.Bucket) error {
		var err error
		if out, err = listReservations(b); err != nil {
			return fmt.Errorf("budgetstore: dataset %q: %w", dataset, err)
		}
		return nil
	})
	return out, err
}

// asking names what a new reservation asks of the lifetime budget.
func asking(r Reservation, asked dp.Guarantee) string {
	if r.Delta > 0 {
		return fmt.Sprintf("%v, counted at the session's δ=%.3g as %v,", r.Budget, r.Delta, asked)
	}
	return r.Budget.String()
}

// reserved composes, in notion (the lifetime budget's), what the open
// reservations may still add to what is spent, and counts them.
func reserved(b *bolt.Bucket, notion dp.Notion) (dp.Guarantee, int, error) {
	total := dp.Zero(notion)
	all, err := listReservations(b)
	if err != nil {
		return total, 0, err
	}
	n := 0
	for _, r := range all {
		if r.State != ReservationOpen {
			continue
		}
		n++
		if total, err = dp.Compose(total, r.holds()); err != nil {
			return total, 0, fmt.Errorf("budgetstore: session %q: %w", r.Session, err)
		}
	}
	return total, n, nil
}

// listReservations reads the reservations bucket (absent in ledgers
// written before reservations: none), oldest first.
func listReservations(b *bolt.Bucket) ([]Reservation, error) {
	rb := b.Bucket(bktReservations)
	if rb == nil {
		return nil, nil
	}
	var out []Reservation
	err := rb.ForEach(func(k, v []byte) error {
		r, err := decodeReservation(k, v)
		if err != nil {
			return err
		}
		out = append(out, r)
		return nil
	})
	slices.SortStableFunc(out, func(a, b Reservation) int { return a.Opened.Compare(b.Opened) })
	return out, err
}

func getReservation(b *bolt.Bucket, session string) (*Reservation, error) {
	rb := b.Bucket(bktReservations)
	if rb == nil {
		return nil, nil
	}
	v := rb.Get([]byte(session))
	if v == nil {
		return nil, nil
	}
	r, err := decodeReservation([]byte(session), v)
	return &r, err
}

func decodeReservation(k, v []byte) (Reservation, error) {
	var r Reservation
	if err := json.Unmarshal(v, &r); err != nil {
		return r, fmt.Errorf("budgetstore: reservation %q: %w", k, err)
	}
	if r.Session != string(k) {
		return r, fmt.Errorf("budgetstore: reservation %q holds session %q", k, r.Session)
	}
	if !slices.Contains([]string{ReservationOpen, ReservationDone, ReservationAborted, ReservationRefused}, r.State) {
		return r, fmt.Errorf("budgetstore: reservation %q in unknown state %q", k, r.State)
	}
	if err := r.Budget.Validate(); err != nil {
		return r, fmt.Errorf("budgetstore: reservation %q: %w", k, err)
	}
	if r.Delta != 0 && !(r.Delta > 0 && r.Delta < 1 && r.Budget.Notion == dp.ZCDP) {
		return r, fmt.Errorf("budgetstore: reservation %q: δ %v set for a %v budget (want a zCDP budget and δ in (0, 1))", k, r.Delta, r.Budget)
	}
	return r, nil
}

func putReservation(b *bolt.Bucket, r Reservation) error {
	rb, err := b.CreateBucketIfNotExists(bktReservations)
	if err != nil {
		return fmt.Errorf("budgetstore: %w", err)
	}
	v, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("budgetstore: %w", err)
	}
	if err := rb.Put([]byte(r.Session), v); err != nil {
		return fmt.Errorf("budgetstore: %w", err)
	}
	return nil
}
