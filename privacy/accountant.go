package privacy

import (
	"fmt"
	"sync"

	"github.com/dppub/dppub/dp"
)

// Charge is one noisy release charged to a party.
type Charge struct {
	// Purpose names what was released, e.g. "second-moment matrix".
	Purpose string `json:"purpose"`
	// Spec is the calibrated mechanism; Spec.Guarantee is what is charged.
	Spec dp.Spec `json:"spec"`
	// Calibration is "sound" or "paper".
	Calibration string `json:"calibration,omitempty"`
	// Actual is the guarantee the release really gives when it differs from
	// the charged one (a paper calibration with a wrong sensitivity).
	Actual *dp.Guarantee `json:"actual,omitempty"`
	// Note explains anything unusual about this release.
	Note string `json:"note,omitempty"`
}

// AccountantOptions configures an Accountant.
type AccountantOptions struct {
	// Party names the data owner whose records this budget protects.
	Party string
	// Budget is the party's total budget; charges compose into its notion.
	Budget dp.Guarantee
}

// Accountant keeps one party's spending. It is safe for concurrent use.
type Accountant struct {
	mu      sync.Mutex
	party   string
	budget  dp.Guarantee
	spent   dp.Guarantee
	charges []Charge
}

// NewAccountant validates o and returns an accountant with nothing spent.
func NewAccountant(o AccountantOptions) (*Accountant, error) {
	if o.Party == "" {
		return nil, fmt.Errorf("privacy: accountant needs a party name")
	}
	if err := o.Budget.Validate(); err != nil {
		return nil, fmt.Errorf("privacy: budget of party %q: %w", o.Party, err)
	}
	return &Accountant{party: o.Party, budget: o.Budget, spent: dp.Zero(o.Budget.Notion)}, nil
}

// Party is the name of the party.
func (a *Accountant) Party() string { return a.party }

// Budget is the party's total budget.
func (a *Accountant) Budget() dp.Guarantee { return a.budget }

// Spend records c, or refuses it (recording nothing) if it would exceed the
// budget or cannot be composed into the budget's notion.
func (a *Accountant) Spend(c Charge) error {
	if err := c.Spec.Guarantee.Validate(); err != nil {
		return fmt.Errorf("privacy: party %q: charge for %q: %w", a.party, c.Purpose, err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	total, err := dp.Compose(a.spent, c.Spec.Guarantee)
	if err != nil {
		return fmt.Errorf("privacy: party %q: charge for %q: %w", a.party, c.Purpose, err)
	}
	if !dp.Within(total, a.budget) {
		return fmt.Errorf("privacy: party %q: charging %v for %q would exceed its budget %v (spent %v, remaining %v)",
			a.party, c.Spec.Guarantee, c.Purpose, a.budget, a.spent, a.remainingLocked())
	}
	a.spent = total
	a.charges = append(a.charges, c)
	return nil
}

// Spent is the composed total of every charge.
func (a *Accountant) Spent() dp.Guarantee {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.spent
}

// Remaining is the budget minus what is spent.
func (a *Accountant) Remaining() dp.Guarantee {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.remainingLocked()
}

func (a *Accountant) remainingLocked() dp.Guarantee {
	r := a.budget
	r.Epsilon -= a.spent.Epsilon
	r.Delta -= a.spent.Delta
	r.Rho -= a.spent.Rho
	return r
}

// Charges returns a copy of the recorded charges, in order.
func (a *Accountant) Charges() []Charge {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Charge(nil), a.charges...)
}
