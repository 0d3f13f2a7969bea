package dppca

import (
	"fmt"
	"math"
)

// NoiseWarning says when the noise on the second moment A = XᵀX/n of the
// DPPCA-SVM methods drowns it: every row lies in the unit ball, so no
// direction of the data carries more than 1 (A's trace is at most 1),
// while a symmetric d × d matrix of independent noise of standard
// deviation s per entry has a largest eigenvalue near 2s√d (the edge of
// Wigner's semicircle). Above 1 the top principal components are the
// noise's, and the classifier trained on them learns little. d is the
// number of encoded columns. It reads only the public noise plan, so the
// warning may go into the published report. It returns "" when the
// noise is below that and for pca-dpsvm (no noise on A).
func NoiseWarning(fit *Result, d int) string {
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
