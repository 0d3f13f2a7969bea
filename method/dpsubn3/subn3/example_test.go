package subn3_test

import (
	"fmt"

	dpsubn3 "github.com/dppub/dppub/method/dpsubn3/subn3"
	privbayes "github.com/dppub/dppub/method/privbayes/bayesnet"
)

// The search frontier of a prior in which attribute 2 copies attribute 0
// and attribute 1 is unrelated: each copy ranks the other first.
func ExampleSearchFrontier() {
	var rows [][]int
	for i := range 40 {
		a := i % 2
		rows = append(rows, []int{a, (i / 2) % 2, a})
	}
	prior, _ := privbayes.NewData([]int{2, 2, 2}, rows)
	for x, allowed := range dpsubn3.SearchFrontier(prior, privbayes.R, 1) {
		fmt.Printf("attribute %d may take parents from %v\n", x, allowed)
	}
	// Output:
	// attribute 0 may take parents from [2]
	// attribute 1 may take parents from [0]
	// attribute 2 may take parents from [0]
}
