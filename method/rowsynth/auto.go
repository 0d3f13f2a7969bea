package rowsynth

import (
	"fmt"
	"slices"

	"github.com/dppub/dppub/engine/marginal"
)

// The shape on which --method auto gives owners of rows the adaptive
// method (AutoMethod). Measured at ε = 1, 2-way / 3-way TVD over 16 bins,
// paper → adaptive (docs/results/rows/adaptive-owners.md): Shuttle (10
// attributes of at most 16 values, 58 000 rows) better everywhere, 3
// owners 0.0169 / 0.0359 → 0.0090 / 0.0208 (5 seeds), 10 owners 0.0168 /
// 0.0363 → 0.0090 / 0.0208, exact noise 0.0159 / 0.0349 → 0.0090 /
// 0.0210 (3 seeds); NLTCS (16 binary attributes, 21 574 rows) mixed, 3
// owners 0.0070 / 0.0124 → 0.0057 / 0.0122 but 10 owners 0.0059 /
// 0.0105 → 0.0063 / 0.0132 and exact noise 3-way 0.0108 → 0.0123; Adult
// (15 attributes, one of them, native-country, of 41 values; 45 222 rows)
// worse with 3 owners, 0.0301 / 0.0647 → 0.0323 / 0.0691, level with 10.
// The bounds are read off these three tables, not derived: at most 16
// attributes of at most 16 values each on the public domain, and at
// least 4 000 records per owner on average, which keeps NLTCS with 10
// owners (2 157 each) on the paper method and gives it the adaptive one
// with 3 (7 191 each), as measured; Shuttle's 80 % benchmark split (46 400
// rows) gets it with 3 and 10 owners (each round's summed candidate
// scores carry noise and the owners' sampling excess, which grows with
// the number of owners and weighs more on a smaller table).
const (
	AutoMaxAttributes      = 16
	AutoMaxValues          = 16
	AutoMinRecordsPerOwner = 4000
)

// AutoMethod is the method --method auto runs for owners owners of rows
// of n records in all over a public domain of sizes, with combined marginals
// capped at maxCells cells, and the sentence the report gives for it.
// Every input is public (the owners' record counts are public in
// synthesize-rows), so the choice costs nothing. A cap of one cell per
// marginal (max_cells 1, which owners bringing 1- and 2-way statistics
// need) keeps the paper method: the adaptive workload has triples.
func AutoMethod(sizes []int, n, owners, maxCells int) (marginal.Method, string) {
	largest := slices.Max(append([]int{0}, sizes...))
	m := marginal.MethodPaper
	if maxCells != 1 && len(sizes) <= AutoMaxAttributes && largest <= AutoMaxValues && n >= AutoMinRecordsPerOwner*max(owners, 1) {
		m = marginal.MethodAdaptive
	}
	return m, fmt.Sprintf("the method (%s) was chosen by method auto from public facts only: %d attributes of at most %d values on the public domain, %d records among %d owners (adaptive for owners of rows of at most %d attributes of at most %d values and at least %d records per owner, unless max_cells is 1; paper otherwise: docs/results/rows/adaptive-owners.md)",
		m, len(sizes), largest, n, owners, AutoMaxAttributes, AutoMaxValues, AutoMinRecordsPerOwner)
}
