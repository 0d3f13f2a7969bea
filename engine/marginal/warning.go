package marginal

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/infer"
)

// measuredSet is one attribute set the engine measured, its measurements
// merged by inverse variance.
type measuredSet struct {
	m        *infer.Noisy
	variance float64
}

// noiseRatio is the set's per-cell noise standard deviation over its
// average count per cell, n/cells: above 1 its cells are mostly noise.
func (s measuredSet) noiseRatio(n int) float64 {
	return math.Sqrt(s.variance) / (float64(n) / float64(len(s.m.Counts)))
}

// describe names the set's attributes and its noise against its counts.
func (s measuredSet) describe(dom *domain.Domain, n int) string {
	names := make([]string, len(s.m.Attrs))
	for i, a := range s.m.Attrs {
		names[i] = dom.Name(a)
	}
	cells := len(s.m.Counts)
	return fmt.Sprintf("%s, σ = %.3g against %.3g records per cell over %d cells",
		strings.Join(names, " × "), math.Sqrt(s.variance), float64(n)/float64(cells), cells)
}

// measuredSets are res's measured attribute sets with noise, merged
// (mergeSets).
func measuredSets(res *Result) []measuredSet {
	var noisy []*infer.Noisy
	for _, m := range res.Measured {
		if m.Variance > 0 {
			noisy = append(noisy, m)
		}
	}
	return mergeSets(noisy)
}

// mergeSets are the attribute sets ms measure, in the order first
// measured, each with its measurements' merged per-cell variance
// (inverse variance of each one's worst cell, infer.Noisy.WorstVariance).
// The error bars and the noise warnings both read them.
func mergeSets(ms []*infer.Noisy) []measuredSet {
	var order []string
	sets := map[string]*measuredSet{}
	for _, m := range ms {
		k := m.Key()
		if s, ok := sets[k]; ok {
			s.variance = 1 / (1/s.variance + 1/m.WorstVariance())
			continue
		}
		sets[k] = &measuredSet{m, m.WorstVariance()}
		order = append(order, k)
	}
	out := make([]measuredSet, len(order))
	for i, k := range order {
		out[i] = *sets[k]
	}
	return out
}

// NoiseWarning says when marginals the engine measured (synthesize,
// synthesize-rows, pdp-mvds) are mostly noise: a measurement's per-cell noise
// standard deviation σ is above its average count per cell, n/cells, so
// its cells are mostly noise and the synthetic rows that match it are
// too. Measurements of one attribute set are merged (inverse variance)
// first. dom names the attributes; n is the number of records. It
// returns "" when every measurement's σ is below its average count.
func NoiseWarning(res *Result, dom *domain.Domain, n int) string {
	if res == nil || n <= 0 {
		return ""
	}
	sets := measuredSets(res)
	noisy, worst, worstRatio := 0, measuredSet{}, 0.0
	for _, s := range sets {
		ratio := s.noiseRatio(n)
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
	return fmt.Sprintf("%d of the %d measured marginals are mostly noise: the noise on each cell has a standard deviation above the marginal's average count per cell (worst: %s), so the synthetic rows follow the noise more than the data there; a larger budget (ρ or ε), fewer bins for numeric columns, a smaller --max-cells, fewer columns, or more rows would do better",
		noisy, len(sets), worst.describe(dom, n))
}

// LabelWarning says when the synthetic rows cannot be trusted to train a
// classifier of label (the attribute the data will be used to predict;
// "" for none): no measured marginal joins it with another attribute, so
// the synthetic label is independent of every other column; or the
// marginals that do are mostly noise even pooled: their noise ratios r
// (NoiseWarning's σ over the average count per cell) combine as
// (Σ 1/r²)^(−1/2), the ratio of one marginal measured with all their
// precision, and that is above 1. Its relation to the other columns then
// follows the noise and may come out backwards. It reads only the
// published measurements and their noise (post-processing). On WDBC
// (569 rows) at ε = 0.3 the default's five to nine label pairs pool to
// 1.9–2.6, and at ε = 1 its seven to twelve to 0.55–0.69 (measured
// before a label's pairs were measured first, labelStar); on the
// benchmark's 455 training rows a classifier trained on the default's
// synthetic rows scores 0.13–0.75 on real rows at ε = 0.3 (mean 0.62
// over 30 runs, below the majority class's 0.65 in 9 of them), and
// 0.84–0.89 at ε = 1 (docs/results/synthesis, thirteenth run).
func LabelWarning(res *Result, dom *domain.Domain, n int, label string) string {
	if res == nil || dom == nil || n <= 0 || label == "" {
		return ""
	}
	j, err := dom.Index(label)
	if err != nil {
		return ""
	}
	joined, precision, best, bestRatio := 0, 0.0, measuredSet{}, math.Inf(1)
	for _, s := range measuredSets(res) {
		if len(s.m.Attrs) < 2 || !slices.Contains(s.m.Attrs, j) {
			continue
		}
		joined++
		r := s.noiseRatio(n)
		precision += 1 / (r * r)
		if r < bestRatio {
			best, bestRatio = s, r
		}
	}
	if joined == 0 {
		return fmt.Sprintf("no measured marginal joins the label %q with another attribute: in the synthetic rows it is independent of every other column, so a classifier trained on them does no better than always predicting its most common value; a larger budget (ρ or ε), fewer columns, or more rows would do better", label)
	}
	if pooled := 1 / math.Sqrt(precision); pooled > 1 {
		return fmt.Sprintf("the %d measured marginals that join the label %q with other attributes are mostly noise even pooled (noise %.2g times the average count per cell; least noisy: %s): its relation to the other columns in the synthetic rows follows the noise more than the data, so a classifier trained on them may do no better than chance, or learn the relation backwards; a larger budget (ρ or ε), fewer bins for numeric columns, fewer columns, or more rows would do better",
			joined, label, pooled, best.describe(dom, n))
	}
	return ""
}
