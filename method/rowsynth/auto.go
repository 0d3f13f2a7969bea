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
// least 1 000 records per owner on average. The bound was 4 000 (NLTCS
// with 10 owners, 2 157 each, measured worse above) until the owners'
// rounds batched their selections (OwnersBatch); since then, 3 seeds,
// 2-way TVD, paper → adaptive: NLTCS with 20 owners (1 078 each) 0.0055
// → 0.0044 at ε = 1 and 0.0021 → 0.0016 at ε = 4, Shuttle with 20 owners
// (2 900 each) 0.0161 → 0.0088 and with 50 (1 160 each) 0.0163 → 0.0096
// at ε = 1. Below 1 000 records per owner nothing was measured.
const (
	AutoMaxAttributes      = 16
	AutoMaxValues          = 16
	AutoMinRecordsPerOwner = 1000
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

// OwnersBatch is how many adaptive selections follow one another before
// the model is refitted and the candidates rescored
// (marginal.AdaptiveOptions.Batch) for owners of rows on a table of at
// most marginal.AutoMaxAttributes attributes whose workload offers at
// least marginal.PreciseBatchCandidates sets (AdaptiveBatch). Each
// selection is still its own select request, charged and calibrated by
// every owner as a round of its own; only the coordinator's refits
// (post-processing) are fewer, so the privacy argument is unchanged.
// Measured, not derived: NLTCS (696 candidates), 5 seeds, 2-way TVD, one
// per refit → four → eight: ε = 1, 3 owners 0.0057 → 0.0047 → 0.0043,
// 10 owners 0.0061 → 0.0045 → 0.0039 (one curator 0.0047); ε = 4, 3
// owners 0.0022 → 0.0016 → 0.0015, 10 owners 0.0024 → 0.0017 → 0.0016
// (one curator 0.0018); sixteen level with eight
// (docs/results/rows/adaptive-owners.md). One curator gains on NLTCS
// too (eight per refit, a hook: 0.0037 at ε = 1, 0.0014 at ε = 4), but
// its engine batches only precise measurements; the owners gain more,
// plausibly because their summed scores rank only the large misfits
// (roles.Measurer.Select), which several picks from one model keep. On
// Shuttle (45 workload pairs) four per refit measured worse (ε = 1, 3
// owners 0.0090 → 0.0114; ε = 4 0.0051 → 0.0057), as for one curator
// (PreciseBatchCandidates), so a small workload keeps the engine's one.
const OwnersBatch = 8

// AdaptiveBatch is the adaptive engine's batch for owners of rows over a
// public domain of sizes with the workload's label (−1 for none):
// OwnersBatch on a table of at most marginal.AutoMaxAttributes attributes
// whose default workload has at least marginal.PreciseBatchCandidates
// sets, 0 (the engine's default) otherwise. It reads public facts only.
func AdaptiveBatch(sizes []int, label int) int {
	if len(sizes) > marginal.AutoMaxAttributes || len(marginal.DefaultWorkload(sizes, label)) < marginal.PreciseBatchCandidates {
		return 0
	}
	return OwnersBatch
}
