package privacy_test

import (
	"fmt"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/privacy"
)

// An owner's accountant refuses a release that would overspend its budget.
func ExampleAccountant_Spend() {
	a, _ := privacy.NewAccountant(privacy.AccountantOptions{Party: "hospital-a", Budget: dp.Pure(1)})
	lap, _ := dp.NewLaplace(dp.LaplaceOptions{L1Sensitivity: 1, Epsilon: 0.7})
	fmt.Println(a.Spend(privacy.Charge{Purpose: "admissions count", Spec: lap.Spec()}))
	fmt.Println(a.Spend(privacy.Charge{Purpose: "discharges count", Spec: lap.Spec()}))
	fmt.Println("remaining:", a.Remaining())
	// Output:
	// <nil>
	// privacy: party "hospital-a": charging ε=0.7 for "discharges count" would exceed its budget ε=1 (spent ε=0.7, remaining ε=0.3)
	// remaining: ε=0.3
}
