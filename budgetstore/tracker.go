package budgetstore

import (
	"fmt"
	"sync"

	"github.com/dppub/dppub/privacy"
)

// Tracker binds one session's in-memory accountant to the ledger.
type Tracker struct {
	store   *Store
	dataset string
	session string
	acct    *privacy.Accountant

	mu        sync.Mutex
	committed int
}

// Track returns a tracker that commits acct's charges to dataset under
// session. acct should be new (nothing charged yet) and used by this
// session only.
func (s *Store) Track(dataset, session string, acct *privacy.Accountant) (*Tracker, error) {
	if acct == nil {
		return nil, fmt.Errorf("budgetstore: track session %q without an accountant", session)
	}
	if _, err := s.Balance(dataset); err != nil {
		return nil, err
	}
	return &Tracker{store: s, dataset: dataset, session: session, acct: acct}, nil
}

// Accountant is the tracked accountant.
func (t *Tracker) Accountant() *privacy.Accountant { return t.acct }

// Commit records, in one transaction, every charge the accountant took
// since the last Commit, and returns how many. Call it after each protocol
// step and before sending that step's messages; on error send nothing.
func (t *Tracker) Commit() (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	charges := t.acct.Charges()
	fresh := charges[t.committed:]
	if len(fresh) == 0 {
		return 0, nil
	}
	if err := t.store.Spend(t.dataset, t.session, fresh...); err != nil {
		return 0, err
	}
	t.committed = len(charges)
	return len(fresh), nil
}

// Committed returns the charges recorded so far by this tracker.
func (t *Tracker) Committed() []privacy.Charge {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.acct.Charges()[:t.committed]
}
