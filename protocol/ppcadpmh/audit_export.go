package ppcadpmh

import "fmt"

// Aggregate is what the curator computes from the owners' masked
// statistics in secure-aggregate mode: the sum of their packed noisy
// moments (Σx, then the upper triangle of Σxxᵀ), the pairwise masks having
// cancelled. For audits and tests of what the curator sees.
func Aggregate(p int, stats []Statistics) ([]float64, error) {
	total := make([]uint64, packedLen(p))
	for i, s := range stats {
		if len(s.Masked) != len(total) {
			return nil, fmt.Errorf("ppcadpmh: statistics %d hold %d masked words, want %d", i, len(s.Masked), len(total))
		}
		for j, w := range s.Masked {
			total[j] += w
		}
	}
	out := make([]float64, len(total))
	for j, w := range total {
		out[j] = fromFixed(w)
	}
	return out, nil
}
