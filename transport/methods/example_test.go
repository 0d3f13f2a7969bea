package methods_test

import (
	"fmt"

	"github.com/dppub/dppub/transport"
	_ "github.com/dppub/dppub/transport/methods"
)

// Importing the package registers the networked methods.
func Example() {
	m, err := transport.Lookup("ppca-dp-mh")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Name, "is coordinated by the", m.CoordinatorRole)
	// Output:
	// ppca-dp-mh is coordinated by the curator
}
