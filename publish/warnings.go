package publish

import (
	"fmt"
	"math"

	"github.com/dppub/dppub/algo/dppca"
)

// Warnings that a release is mostly noise, and what would do better. Each
// is computed from public quantities only (noise scales, domain sizes,
// the number of records the engine already treats as public), so it can
// go into the published privacy report; ClassifierWarning, computed from
// the owner's rows, is for the owner's terminal only. PPCA-DP-MH's is in
// method/ppcadpmh (ppcadpmh.MostlyNoise).

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
