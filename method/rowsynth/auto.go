package rowsynth

import (
	"fmt"
	"slices"

	"github.com/dppub/dppub/engine/marginal"
)

// The shape on which --method auto gives owners of rows the adaptive
// method (AutoMethod). Measured with 3 owners in the default noise mode
// at ε = 1, 5 seeds, 2-way / 3-way TVD over 16 bins, paper → adaptive
// (docs/results/rows/adaptive-owners.md): Shuttle (10 attributes of at
// most 16 values, 58 000 rows) 0.0169 / 0.0359 → 0.0090 / 0.0208; NLTCS
// (16 binary attributes, 21 574 rows) 0.0070 / 0.0124 → 0.0057 / 0.0122;
// Adult (15 attributes, one of them, native-country, of 41 values;
// 45 222 rows) worse, 0.0301 / 0.0647 → 0.0323 / 0.0691. The bounds are
// read off these three tables, not derived: at most 16 attributes of at
// most 16 values each on the public domain, and at least 20 000 records
// (NLTCS, the smallest measured: each round's summed candidate scores
// carry noise of a fixed number of records, a larger share of a smaller
// table).
const (
	AutoMaxAttributes = 16
	AutoMaxValues     = 16
	AutoMinRecords    = 20000
)

// AutoMethod is the method --method auto runs for owners of rows of n
// records in all over a public domain of sizes, with combined marginals
// capped at maxCells cells, and the sentence the report gives for it.
// Every input is public (the owners' record counts are public in
// synthesize-rows), so the choice costs nothing. A cap of one cell per
// marginal (max_cells 1, which owners bringing 1- and 2-way statistics
// need) keeps the paper method: the adaptive workload has triples.
func AutoMethod(sizes []int, n, maxCells int) (marginal.Method, string) {
	largest := slices.Max(append([]int{0}, sizes...))
	m := marginal.MethodPaper
	if maxCells != 1 && len(sizes) <= AutoMaxAttributes && largest <= AutoMaxValues && n >= AutoMinRecords {
		m = marginal.MethodAdaptive
	}
	return m, fmt.Sprintf("the method (%s) was chosen by method auto from public facts only: %d attributes of at most %d values on the public domain, %d records (adaptive for owners of rows of at most %d attributes of at most %d values and at least %d records, unless max_cells is 1; paper otherwise: docs/results/rows/adaptive-owners.md)",
		m, len(sizes), largest, n, AutoMaxAttributes, AutoMaxValues, AutoMinRecords)
}
