package consortium_test

import (
	"fmt"

	"github.com/dppub/dppub/consortium"
)

func Example() {
	f, err := consortium.Parse([]byte(`{
	  "name": "clinic-net",
	  "members": [
	    {"name": "curator", "role": "curator", "address": "10.0.0.1:7400"},
	    {"name": "hospital-a", "role": "owner", "address": "10.0.0.2:7400",
	     "dataset": {"path": "a.csv", "schema": "s.json"}, "budget": {"epsilon": 3}}
	  ]}`), "/etc/dppub")
	if err != nil {
		fmt.Println(err)
		return
	}
	m, _ := f.Member("hospital-a")
	g, _ := m.Budget.Guarantee()
	fmt.Println(f.Identity(m))
	fmt.Println("lifetime budget:", g)
	fmt.Println("step deadline:", f.Limits.StepTimeout)
	// Output:
	// dppub://clinic-net/owner/hospital-a
	// lifetime budget: ε=3
	// step deadline: 1m0s
}
