package budgetstore_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/dppub/dppub/budgetstore"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/privacy"
)

// An owner's session: the role charges its in-memory accountant, the
// transport commits the charges to disk before the statistic is sent.
func Example() {
	dir, _ := os.MkdirTemp("", "ledger")
	defer os.RemoveAll(dir)
	store, err := budgetstore.Open(budgetstore.Options{Path: filepath.Join(dir, "owner.budget.db")})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer store.Close()
	_ = store.Define("adult-a", dp.Pure(3)) // lifetime budget

	acct, _ := privacy.NewAccountant(privacy.AccountantOptions{Party: "hospital-a", Budget: dp.Pure(1)})
	tracker, _ := store.Track("adult-a", "session-1", acct)
	_ = acct.Spend(privacy.Charge{Purpose: "noisy sums", Spec: dp.Spec{Guarantee: dp.Pure(1)}})
	n, err := tracker.Commit() // before the noisy sums leave
	fmt.Println(n, err)

	bal, _ := store.Balance("adult-a")
	fmt.Println("spent", bal.Spent, "remaining", bal.Remaining)
	fmt.Println(store.Fits("adult-a", dp.Pure(2.5)) != nil)
	// Output:
	// 1 <nil>
	// spent ε=1 remaining ε=2
	// true
}
