package psi_test

import (
	"fmt"

	"github.com/dppub/dppub/crypto/psi"
	"github.com/dppub/dppub/randx"
)

// Three parties find their common IDs. Each blinds its own set; the two
// others re-blind it; Common lines up the common rows in one order that
// all three compute alike.
func Example() {
	src := randx.NewSeeded(1) // tests only: a real key needs randx.NewSecure()
	sets := [][]string{
		{"ann", "bob", "cid", "dee"},
		{"eve", "dee", "bob", "ann"},
		{"bob", "ann", "fay"},
	}
	keys := make([]*psi.Key, len(sets))
	for i := range keys {
		keys[i], _ = psi.NewKey(src.Child())
	}
	full := make([][]psi.Element, len(sets))
	rows := make([][]int, len(sets))
	for i, ids := range sets {
		elems, r, _ := keys[i].Blind(ids)
		for hop := 1; hop < len(sets); hop++ {
			elems, _ = keys[(i+hop)%len(sets)].Reblind(elems)
		}
		full[i], rows[i] = elems, r
	}
	pos, _ := psi.Common(full)
	for i := range sets {
		var ids []string
		for _, p := range pos[i] {
			ids = append(ids, sets[i][rows[i][p]])
		}
		fmt.Println("party", i+1, "common rows hold", len(ids), "IDs; same order as party 1:", same(ids, sets[0], rows[0], pos[0]))
	}
	// Output:
	// party 1 common rows hold 2 IDs; same order as party 1: true
	// party 2 common rows hold 2 IDs; same order as party 1: true
	// party 3 common rows hold 2 IDs; same order as party 1: true
}

func same(ids, first []string, rows, pos []int) bool {
	for j, p := range pos {
		if first[rows[p]] != ids[j] {
			return false
		}
	}
	return true
}
