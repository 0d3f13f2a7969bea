package budgetstore

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/privacy"
	bolt "go.etcd.io/bbolt"
)

// Options configure Open.
type Options struct {
	// Path is the ledger file; it is created if missing.
	Path string
	// LockTimeout is how long to wait for another process holding the file
	// (default 1s); only one process may use a ledger at a time.
	LockTimeout time.Duration
	// Now stamps entries (default time.Now).
	Now func() time.Time
}

// Store is an open ledger. It is safe for concurrent use.
type Store struct {
	db  *bolt.DB
	now func() time.Time

	mu sync.Mutex
	// damaged is set by the first transaction that found the file
	// damaged; every later call returns it.
	damaged error
}

// Entry is one recorded charge.
type Entry struct {
	Seq     uint64         `json:"seq"`
	Time    time.Time      `json:"time"`
	Session string         `json:"session"`
	Charge  privacy.Charge `json:"charge"`
}

// Balance is a dataset's budget state.
type Balance struct {
	Dataset   string       `json:"dataset"`
	Lifetime  dp.Guarantee `json:"lifetime"`
	Spent     dp.Guarantee `json:"spent"`
	Remaining dp.Guarantee `json:"remaining"`
	// Reserved is what the running sessions (open reservations) may still
	// charge: their budgets less what they charged so far.
	Reserved dp.Guarantee `json:"reserved,omitzero"`
	Running  int          `json:"running,omitempty"`
	Entries  int          `json:"entries"`
	Sessions int          `json:"sessions"`
	// Converted lists the zCDP sessions counted against an (ε, δ)
	// lifetime budget, each once, at the (ε, δ) its charged ρ converts to
	// at the session's δ; Spent includes their counts.
	Converted []Conversion `json:"converted,omitempty"`
}

var (
	keyLifetime     = []byte("lifetime")
	keySpent        = []byte("spent")
	bktEntries      = []byte("entries")
	bktSessions     = []byte("sessions")
	bktReservations = []byte("reservations")
)

// ErrUnknownDataset is returned for a dataset with no lifetime budget.
var ErrUnknownDataset = errors.New("budgetstore: unknown dataset")

// Open opens or creates the ledger at o.Path.
func Open(o Options) (*Store, error) {
	if o.Path == "" {
		return nil, fmt.Errorf("budgetstore: no ledger path")
	}
	if o.LockTimeout == 0 {
		o.LockTimeout = time.Second
	}
	if o.LockTimeout < 0 {
		return nil, fmt.Errorf("budgetstore: lock timeout %v is negative", o.LockTimeout)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	db, err := openDB(o.Path, o.LockTimeout)
	if err != nil {
		return nil, err
	}
	return &Store{db: db, now: o.Now}, nil
}

// Close closes the file.
func (s *Store) Close() error {
	s.mu.Lock()
	damaged := s.damaged != nil
	s.mu.Unlock()
	return closeDB(s.db, damaged)
}

// view runs fn in a read transaction, and update in a write transaction,
// at the store's boundary: a panic of bbolt's on a damaged page becomes
// a *DamagedError, and the store refuses every later call with it.
func (s *Store) view(fn func(*bolt.Tx) error) error {
	return s.guarded(func() error { return s.db.View(fn) })
}

func (s *Store) update(fn func(*bolt.Tx) error) error {
	return s.guarded(func() error { return s.db.Update(fn) })
}

// viewDataset runs fn on dataset's bucket in a read transaction; a
// dataset without a lifetime budget is ErrUnknownDataset.
func (s *Store) viewDataset(dataset string, fn func(*bolt.Bucket) error) error {
	return s.view(func(tx *bolt.Tx) error { return inDataset(tx, dataset, fn) })
}

// updateDataset runs fn on dataset's bucket in a write transaction; a
// dataset without a lifetime budget is ErrUnknownDataset.
func (s *Store) updateDataset(dataset string, fn func(*bolt.Bucket) error) error {
	return s.update(func(tx *bolt.Tx) error { return inDataset(tx, dataset, fn) })
}

func inDataset(tx *bolt.Tx, dataset string, fn func(*bolt.Bucket) error) error {
	b, err := dataBucket(tx, dataset)
	if err != nil {
		return err
	}
	return fn(b)
}

func (s *Store) guarded(fn func() error) error {
	s.mu.Lock()
	damaged := s.damaged
	s.mu.Unlock()
	if damaged != nil {
		return damaged
	}
	err := guard(s.db.Path(), fn)
	if _, ok := errors.AsType[*DamagedError](err); ok {
		s.mu.Lock()
		s.damaged = err
		s.mu.Unlock()
	}
	return err
}

// Path is the ledger file.
func (s *Store) Path() string { return s.db.Path() }

// Define sets the lifetime budget of dataset the first time it is seen. A
// lifetime budget never changes afterwards: a different one is refused.
func (s *Store) Define(dataset string, lifetime dp.Guarantee) error {
	if dataset == "" {
		return fmt.Errorf("budgetstore: empty dataset name")
	}
	if err := lifetime.Validate(); err != nil {
		return fmt.Errorf("budgetstore: lifetime budget of %q: %w", dataset, err)
	}
	return s.update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(dataset))
		if b != nil {
			old, err := getGuarantee(b, keyLifetime)
			if err != nil {
				return err
			}
			if old != lifetime {
				return fmt.Errorf("budgetstore: dataset %q already has lifetime budget %v; refusing to change it to %v", dataset, old, lifetime)
			}
			return nil
		}
		b, err := tx.CreateBucket([]byte(dataset))
		if err != nil {
			return fmt.Errorf("budgetstore: %w", err)
		}
		for _, name := range [][]byte{bktEntries, bktSessions} {
			if _, err := b.CreateBucket(name); err != nil {
				return fmt.Errorf("budgetstore: %w", err)
			}
		}
		if err := putGuarantee(b, keyLifetime, lifetime); err != nil {
			return err
		}
		return putGuarantee(b, keySpent, dp.Zero(lifetime.Notion))
	})
}

// Spend records charges for session in one transaction, or none of them if
// together they would exceed the lifetime budget.
func (s *Store) Spend(dataset, session string, charges ...privacy.Charge) error {
	if session == "" {
		return fmt.Errorf("budgetstore: spend without a session ID")
	}
	return s.updateDataset(dataset, func(b *bolt.Bucket) error {
		lifetime, spent, err := getBudget(b)
		if err != nil {
			return err
		}
		entries, sessions := b.Bucket(bktEntries), b.Bucket(bktSessions)
		res, err := getReservation(b, session)
		if err != nil {
			return err
		}
		if res != nil && res.State != ReservationOpen {
			return fmt.Errorf("budgetstore: dataset %q: session %q ended (%s) and its reservation was released: nothing more may be charged to it", dataset, session, res.State)
		}
		for _, c := range charges {
			if spent, err = spentAfter(dataset, session, lifetime, spent, res, c); err != nil {
				return err
			}
			if res != nil {
				if res.Charged, err = dp.Compose(res.Charged, c.Spec.Guarantee); err != nil {
					return fmt.Errorf("budgetstore: dataset %q: charge for %q in session %q: %w", dataset, c.Purpose, session, err)
				}
			}
			if err := s.appendEntry(entries, sessions, session, c); err != nil {
				return err
			}
		}
		if res != nil {
			if err := putReservation(b, *res); err != nil {
				return err
			}
		}
		return putGuarantee(b, keySpent, spent)
	})
}

// spentAfter returns what the dataset has spent once charge c of session
// (reservation res, nil for none) is added to spent, refusing a charge
// that is invalid or would exceed the lifetime budget.
//
// A zCDP session on an (ε, δ) lifetime (res.Delta > 0) composes its
// charges in ρ; spent holds its count, the conversion of their sum,
// replaced at every charge.
func spentAfter(dataset, session string, lifetime, spent dp.Guarantee, res *Reservation, c privacy.Charge) (dp.Guarantee, error) {
	if err := c.Spec.Guarantee.Validate(); err != nil {
		return dp.Guarantee{}, fmt.Errorf("budgetstore: dataset %q: charge for %q: %w", dataset, c.Purpose, err)
	}
	var total dp.Guarantee
	how := ""
	switch {
	case res != nil && res.Delta > 0:
		charged, err := dp.Compose(res.Charged, c.Spec.Guarantee)
		if err != nil {
			return dp.Guarantee{}, fmt.Errorf("budgetstore: dataset %q: charge for %q in session %q: %w", dataset, c.Purpose, session, err)
		}
		now := counted(charged.Rho, res.Delta)
		total = rebase(spent, res.Counted(), now)
		how = fmt.Sprintf(" (the session's ρ=%.4g in all, counted at its δ=%.3g as %v)", charged.Rho, res.Delta, now)
	case lifetime.Notion == dp.ApproxDP && c.Spec.Guarantee.Notion == dp.ZCDP:
		return dp.Guarantee{}, noDeltaError(dataset, session, lifetime, c.Spec.Guarantee)
	default:
		var err error
		if total, err = dp.Compose(spent, c.Spec.Guarantee); err != nil {
			return dp.Guarantee{}, fmt.Errorf("budgetstore: dataset %q: charge for %q: %w", dataset, c.Purpose, err)
		}
	}
	if !dp.Within(total, lifetime) {
		return dp.Guarantee{}, fmt.Errorf("budgetstore: dataset %q: charging %v for %q in session %q%s would exceed its lifetime budget %v (spent %v, remaining %v)",
			dataset, c.Spec.Guarantee, c.Purpose, session, how, lifetime, spent, remaining(lifetime, spent))
	}
	return total, nil
}

// appendEntry records charge c of session as the next entry, and the
// session's first entry if it has none yet.
func (s *Store) appendEntry(entries, sessions *bolt.Bucket, session string, c privacy.Charge) error {
	seq, err := entries.NextSequence()
	if err != nil {
		return fmt.Errorf("budgetstore: %w", err)
	}
	v, err := json.Marshal(Entry{Seq: seq, Time: s.now().UTC(), Session: session, Charge: c})
	if err != nil {
		return fmt.Errorf("budgetstore: %w", err)
	}
	if err := entries.Put(seqKey(seq), v); err != nil {
		return fmt.Errorf("budgetstore: %w", err)
	}
	if sessions.Get([]byte(session)) == nil {
		if err := sessions.Put([]byte(session), seqKey(seq)); err != nil {
			return fmt.Errorf("budgetstore: %w", err)
		}
	}
	return nil
}

// Balance returns dataset's lifetime budget and what is spent and left.
func (s *Store) Balance(dataset string) (Balance, error) {
	var bal Balance
	err := s.viewDataset(dataset, func(b *bolt.Bucket) error {
		var err error
		if bal.Lifetime, bal.Spent, err = getBudget(b); err != nil {
			return err
		}
		bal.Dataset = dataset
		bal.Remaining = remaining(bal.Lifetime, bal.Spent)
		bal.Entries = b.Bucket(bktEntries).Stats().KeyN
		bal.Sessions = b.Bucket(bktSessions).Stats().KeyN
		if bal.Reserved, bal.Running, err = reserved(b, bal.Lifetime.Notion); err != nil {
			return err
		}
		all, err := listReservations(b)
		if err != nil {
			return err
		}
		for _, r := range all {
			if r.Delta > 0 {
				bal.Converted = append(bal.Converted, Conversion{Session: r.Session, State: r.State,
					Budget: r.Budget.Rho, Charged: r.Charged.Rho, Delta: r.Delta, Counted: r.Counted()})
			}
		}
		return nil
	})
	return bal, err
}

// Fits reports, as an error naming the shortfall, whether extra (e.g. the
// budgets of sessions about to run) would fit in what remains.
func (s *Store) Fits(dataset string, extra ...dp.Guarantee) error {
	bal, err := s.Balance(dataset)
	if err != nil {
		return err
	}
	total, err := dp.Compose(bal.Spent, bal.Reserved)
	if err != nil {
		return fmt.Errorf("budgetstore: dataset %q: %w", dataset, err)
	}
	for _, g := range extra {
		if total, err = dp.Compose(total, g); err != nil {
			return fmt.Errorf("budgetstore: dataset %q: %w", dataset, err)
		}
	}
	if !dp.Within(total, bal.Lifetime) {
		return fmt.Errorf("budgetstore: dataset %q: %s would exceed the lifetime budget %v (spent %v%s, remaining %v)",
			dataset, describe(extra), bal.Lifetime, bal.Spent, runningText(bal), bal.Remaining)
	}
	return nil
}

// runningText states what running sessions hold, if any.
func runningText(bal Balance) string {
	if bal.Running == 0 {
		return ""
	}
	return fmt.Sprintf(", %v reserved by %d running sessions", bal.Reserved, bal.Running)
}

func describe(gs []dp.Guarantee) string {
	if len(gs) == 1 {
		return gs[0].String()
	}
	return fmt.Sprintf("%d budgets %v", len(gs), gs)
}

// Entries returns dataset's recorded charges in order.
func (s *Store) Entries(dataset string) ([]Entry, error) {
	var out []Entry
	err := s.viewDataset(dataset, func(b *bolt.Bucket) error {
		return b.Bucket(bktEntries).ForEach(func(k, v []byte) error {
			var e Entry
			if err := json.Unmarshal(v, &e); err != nil {
				return fmt.Errorf("budgetstore: dataset %q: entry %x: %w", dataset, k, err)
			}
			out = append(out, e)
			return nil
		})
	})
	return out, err
}

// SessionSeen reports whether session has recorded a spend on dataset.
func (s *Store) SessionSeen(dataset, session string) (bool, error) {
	seen := false
	err := s.viewDataset(dataset, func(b *bolt.Bucket) error {
		seen = b.Bucket(bktSessions).Get([]byte(session)) != nil
		return nil
	})
	return seen, err
}

// Datasets lists the datasets with a lifetime budget.
func (s *Store) Datasets() ([]string, error) {
	var out []string
	err := s.view(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
			out = append(out, string(name))
			return nil
		})
	})
	return out, err
}

// Verify checks the file's page structure and that, for every dataset, the
// stored total equals the composition of its entries, lies within the
// lifetime budget, and every entry's session is indexed. The entries of a
// zCDP session on an (ε, δ) lifetime compose in ρ per session, and each
// such session enters the total once, converted at the δ its reservation
// records.
func (s *Store) Verify() error {
	if err := s.guarded(func() error { return checkDB(s.db) }); err != nil {
		return err
	}
	return s.view(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error { return verifyDataset(string(name), b) })
	})
}

func verifyDataset(dataset string, b *bolt.Bucket) error {
	lifetime, stored, err := getBudget(b)
	if err != nil {
		return err
	}
	if b.Bucket(bktEntries) == nil || b.Bucket(bktSessions) == nil {
		return fmt.Errorf("budgetstore: dataset %q lacks its entries or sessions bucket", dataset)
	}
	reservations, err := listReservations(b)
	if err != nil {
		return fmt.Errorf("budgetstore: dataset %q: %w", dataset, err)
	}
	charged := map[string]dp.Guarantee{}
	for _, r := range reservations {
		charged[r.Session] = dp.Zero(r.Budget.Notion)
		if r.Delta > 0 && !converts(lifetime, r.Budget) {
			return fmt.Errorf("budgetstore: dataset %q: session %q's reservation records δ %v, but its budget %v is not counted by conversion against the lifetime budget %v", dataset, r.Session, r.Delta, r.Budget, lifetime)
		}
	}
	converted := map[string]bool{}
	for _, r := range reservations {
		converted[r.Session] = r.Delta > 0
	}
	total := dp.Zero(lifetime.Notion)
	sessions := b.Bucket(bktSessions)
	last := uint64(0)
	err = b.Bucket(bktEntries).ForEach(func(k, v []byte) error {
		var e Entry
		if err := json.Unmarshal(v, &e); err != nil {
			return fmt.Errorf("budgetstore: dataset %q: entry %x: %w", dataset, k, err)
		}
		if len(k) != 8 || binary.BigEndian.Uint64(k) != e.Seq || e.Seq <= last {
			return fmt.Errorf("budgetstore: dataset %q: entry key %x does not match sequence %d", dataset, k, e.Seq)
		}
		last = e.Seq
		if sessions.Get([]byte(e.Session)) == nil {
			return fmt.Errorf("budgetstore: dataset %q: entry %d's session %q is not indexed", dataset, e.Seq, e.Session)
		}
		if !converted[e.Session] { // counted below, once per session
			if total, err = dp.Compose(total, e.Charge.Spec.Guarantee); err != nil {
				return fmt.Errorf("budgetstore: dataset %q: entry %d: %w", dataset, e.Seq, err)
			}
		}
		if c, ok := charged[e.Session]; ok {
			if charged[e.Session], err = dp.Compose(c, e.Charge.Spec.Guarantee); err != nil {
				return fmt.Errorf("budgetstore: dataset %q: entry %d: %w", dataset, e.Seq, err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, r := range reservations {
		if c := charged[r.Session]; !dp.Within(c, r.Charged) || !dp.Within(r.Charged, c) {
			return fmt.Errorf("budgetstore: dataset %q: session %q's reservation records %v charged, its entries %v", dataset, r.Session, r.Charged, c)
		}
		if r.Delta > 0 {
			if total, err = dp.Compose(total, counted(charged[r.Session].Rho, r.Delta)); err != nil {
				return fmt.Errorf("budgetstore: dataset %q: session %q: %w", dataset, r.Session, err)
			}
		}
	}
	if !dp.Within(total, stored) || !dp.Within(stored, total) {
		return fmt.Errorf("budgetstore: dataset %q: stored total %v differs from its entries' %v", dataset, stored, total)
	}
	if !dp.Within(stored, lifetime) {
		return fmt.Errorf("budgetstore: dataset %q: spent %v exceeds the lifetime budget %v", dataset, stored, lifetime)
	}
	return nil
}

// LoadAccountant rebuilds an accountant for party whose budget is
// dataset's lifetime budget and whose charges are every recorded entry,
// except that a zCDP session counted against an (ε, δ) lifetime budget is
// one charge: the (ε, δ) its charged ρ converts to at its δ (an (ε, δ)
// accountant cannot compose its ρ charges one by one, and converting
// them one by one would overstate the spend). The accountant's spent and
// remaining are then the ledger's.
func (s *Store) LoadAccountant(dataset, party string) (*privacy.Accountant, error) {
	bal, err := s.Balance(dataset)
	if err != nil {
		return nil, err
	}
	entries, err := s.Entries(dataset)
	if err != nil {
		return nil, err
	}
	a, err := privacy.NewAccountant(privacy.AccountantOptions{Party: party, Budget: bal.Lifetime})
	if err != nil {
		return nil, fmt.Errorf("budgetstore: %w", err)
	}
	converted := map[string]Conversion{}
	for _, c := range bal.Converted {
		converted[c.Session] = c
	}
	taken := map[string]bool{}
	for _, e := range entries {
		c, ok := converted[e.Session]
		if !ok {
			if err := a.Spend(e.Charge); err != nil {
				return nil, fmt.Errorf("budgetstore: dataset %q entry %d: %w", dataset, e.Seq, err)
			}
			continue
		}
		if taken[e.Session] { // the session's one charge is taken at its first entry
			continue
		}
		taken[e.Session] = true
		err := a.Spend(privacy.Charge{Purpose: "zCDP session " + e.Session,
			Spec: dp.Spec{Mechanism: "zcdp-session", Guarantee: c.Counted},
			Note: fmt.Sprintf("its charges compose to ρ=%.6g, counted as one (ε, δ) at the session's δ=%.3g", c.Charged, c.Delta)})
		if err != nil {
			return nil, fmt.Errorf("budgetstore: dataset %q session %q: %w", dataset, e.Session, err)
		}
	}
	return a, nil
}

func dataBucket(tx *bolt.Tx, dataset string) (*bolt.Bucket, error) {
	b := tx.Bucket([]byte(dataset))
	if b == nil {
		return nil, fmt.Errorf("%w %q (no lifetime budget defined)", ErrUnknownDataset, dataset)
	}
	return b, nil
}

// getBudget reads a dataset's lifetime budget and what is spent of it.
func getBudget(b *bolt.Bucket) (lifetime, spent dp.Guarantee, err error) {
	if lifetime, err = getGuarantee(b, keyLifetime); err != nil {
		return lifetime, spent, err
	}
	spent, err = getGuarantee(b, keySpent)
	return lifetime, spent, err
}

func getGuarantee(b *bolt.Bucket, key []byte) (dp.Guarantee, error) {
	var g dp.Guarantee
	v := b.Get(key)
	if v == nil {
		return g, fmt.Errorf("budgetstore: ledger lacks %q", key)
	}
	if err := json.Unmarshal(v, &g); err != nil {
		return g, fmt.Errorf("budgetstore: %q: %w", key, err)
	}
	return g, nil
}

func putGuarantee(b *bolt.Bucket, key []byte, g dp.Guarantee) error {
	v, err := json.Marshal(g)
	if err != nil {
		return fmt.Errorf("budgetstore: %w", err)
	}
	if err := b.Put(key, v); err != nil {
		return fmt.Errorf("budgetstore: %w", err)
	}
	return nil
}

func seqKey(seq uint64) []byte { return binary.BigEndian.AppendUint64(nil, seq) }

func remaining(lifetime, spent dp.Guarantee) dp.Guarantee {
	r := lifetime
	r.Epsilon -= spent.Epsilon
	r.Delta -= spent.Delta
	r.Rho -= spent.Rho
	return r
}
