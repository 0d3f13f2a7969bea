package roles

import (
	"fmt"

	"github.com/dppub/dppub/method/ppcadpmh/ppca"
)

// Aggregate is what the curator computes from the owners' masked
// statistics in secure-aggregate mode: the sum of their packed noisy
// moments (Σx, then the upper triangle of Σxxᵀ), the pairwise masks having
// cancelled, decoded from grid steps with the plan's public grids. For
// audits and tests of what the curator sees.
func Aggregate(params Params, stats []Statistics) ([]float64, error) {
	plan, err := ppca.NewPlan(params.Plan)
	if err != nil {
		return nil, err
	}
	p := params.Plan.Bounds.P
	total := make([]uint64, packedLen(p))
	for i, s := range stats {
		if len(s.Masked) != len(total) {
			return nil, fmt.Errorf("ppcadpmh: statistics %d hold %d masked words, want %d", i, len(s.Masked), len(total))
		}
		for j, w := range s.Masked {
			total[j] += w
		}
	}
	return decode(plan, p, total)
}
