package publish

import (
	"fmt"
	"math"
	"strings"

	"github.com/dppub/dppub/algo/dppca"
	"github.com/dppub/dppub/algo/marginal"
)

// Warnings that a release is mostly noise, and what would do better. Each
// is computed from public quantities only (noise scales, domain sizes,
// the number of records the engine already treats as public), so it can
// go into the published privacy report; ClassifierWarning, computed from
// the owner's rows, is for the owner's terminal only. PPCA-DP-MH's is in
// method/ppcadpmh (ppcadpmh.MostlyNoise).

// MarginalNoiseWarning says when marginals the marginal engine measured
// (synthesize, pdp-mvds) are mostly noise: a measurement's per-cell noise
// standard deviation σ is above its average count per cell, n/cells, so
// its cells are mostly noise and the synthetic rows that match it are
// too. Measurements of one attribute set are merged (inverse variance)
// first. dom names the attributes; n is the number of records. It
// returns "" when every measurement's σ is below its average count.
func MarginalNoiseWarning(res *marginal.Result, dom *marginal.Domain, n int) string {
	if res == nil || n <= 0 {
		return ""
	}
	type set struct {
		m        *marginal.Noisy
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

// DPPCANoiseWarning says when the noise on the second moment A = XᵀX/n
// of the DPPCA-SVM methods drowns it: every row lies in the unit ball, so
// no direction of the data carries more than 1 (A's trace is at most 1),
// while a symmetric d × d matrix of independent noise of standard
// deviation s per entry has a largest eigenvalue near 2s√d (the edge of
// Wigner's semicircle). Above 1 the top principal components are the
// noise's, and the classifier trained on them learns little. d is the
// number of encoded columns. It returns "" when the noise is below that
// and for pca-dpsvm (no noise on A).
func DPPCANoiseWarning(fit *dppca.Result, d int) string {
	if fit == nil || fit.MatrixNoise == nil || d <= 0 {
		return ""
	}
	plan := fit.MatrixNoise
	sd := plan.Scale
	better := "a larger ε, more rows, or fewer columns (--features)"
	if plan.Mechanism == "laplace" {
		sd *= math.Sqrt2 // a Laplace variable of scale b has standard deviation √2·b
		better = "a larger ε, more rows, fewer columns (--features), or ag-svm (Gaussian noise, whose scale grows with √d instead of d)"
	}
	top := 2 * sd * math.Sqrt(float64(d))
	if top <= 1 {
		return ""
	}
	return fmt.Sprintf("the principal components are mostly noise: the noise on the second moment XᵀX/n has standard deviation %.3g per entry over %d encoded columns, so its largest eigenvalue is near %.3g, above 1, the most any direction of the data can carry (every row lies in the unit ball); the components, and the classifier trained on them, carry little of the data; %s would do better",
		sd, d, top, better)
}

// ClassifierWarning says when a published classifier does no better than
// always predicting the most common class on the owner's own rows
// (accuracy at most the majority rate plus half a point). Both rates come
// from the private rows: print it on the owner's terminal, never in the
// published report.
func ClassifierWarning(accuracy, majority float64) string {
	if accuracy > majority+0.005 {
		return ""
	}
	return fmt.Sprintf("the classifier does no better than always predicting the most common class (%.1f%% of your rows right, against %.1f%% for the most common class): at this budget it has learnt nothing useful; a larger ε, more rows, or fewer columns would do better",
		100*accuracy, 100*majority)
}
