package marginal

import (
	"fmt"
	"math"
	"strings"
)

// NoiseWarning says when marginals the engine measured (synthesize,
// synthesize-rows, pdp-mvds) are mostly noise: a measurement's per-cell noise
// standard deviation σ is above its average count per cell, n/cells, so
// its cells are mostly noise and the synthetic rows that match it are
// too. Measurements of one attribute set are merged (inverse variance)
// first. dom names the attributes; n is the number of records. It
// returns "" when every measurement's σ is below its average count.
func NoiseWarning(res *Result, dom *Domain, n int) string {
	if res == nil || n <= 0 {
		return ""
	}
	type set struct {
		m        *Noisy
		variance float64
	}
	var order []string
	sets := map[string]*set{}
	for _, m := range res.Measured {
		if !(m.Variance > 0) {
			continue
		}
		k := m.Key()
		if s, ok := sets[k]; ok {
			s.variance = 1 / (1/s.variance + 1/m.Variance)
			continue
		}
		sets[k] = &set{m, m.Variance}
		order = append(order, k)
	}
	noisy, worst, worstRatio := 0, (*set)(nil), 0.0
	for _, k := range order {
		s := sets[k]
		cells := len(s.m.Counts)
		ratio := math.Sqrt(s.variance) / (float64(n) / float64(cells))
		if ratio <= 1 {
			continue
		}
		noisy++
		if ratio > worstRatio {
			worst, worstRatio = s, ratio
		}
	}
	if noisy == 0 {
		return ""
	}
	names := make([]string, len(worst.m.Attrs))
	for i, a := range worst.m.Attrs {
		names[i] = dom.Name(a)
	}
	cells := len(worst.m.Counts)
	return fmt.Sprintf("%d of the %d measured marginals are mostly noise: the noise on each cell has a standard deviation above the marginal's average count per cell (worst: %s, σ = %.3g against %.3g records per cell over %d cells), so the synthetic rows follow the noise more than the data there; a larger budget (ρ or ε), fewer bins for numeric columns, a smaller --max-cells, fewer columns, or more rows would do better",
		noisy, len(order), strings.Join(names, " × "), math.Sqrt(worst.variance), float64(n)/float64(cells), cells)
}
