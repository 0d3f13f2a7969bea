package dp

import (
	"math"
	"testing"

	"github.com/dppub/dppub/internal/testenv"
)

// ksStatistic returns √n·D for the one-sample Kolmogorov–Smirnov test of
// sample against cdf.
func ksStatistic(sample []float64, cdf func(float64) float64) float64 {
	return testenv.KSDistance(sample, cdf) * math.Sqrt(float64(len(sample)))
}

// ksCritical is the asymptotic Kolmogorov critical value for √n·D at a
// false-rejection probability of 1e-4 (P(K > 2.226) ≈ 1e-4).
const ksCritical = 2.226

func laplaceCDF(b float64) func(float64) float64 {
	return func(x float64) float64 {
		if x < 0 {
			return 0.5 * math.Exp(x/b)
		}
		return 1 - 0.5*math.Exp(-x/b)
	}
}

func normalCDF(sigma float64) func(float64) float64 {
	return func(x float64) float64 { return 0.5 * math.Erfc(-x/(sigma*math.Sqrt2)) }
}

func assertKS(t *testing.T, name string, sample []float64, cdf func(float64) float64) {
	t.Helper()
	if k := ksStatistic(sample, cdf); k > ksCritical {
		t.Errorf("%s: KS statistic √n·D = %.3f exceeds %.3f (false-rejection probability 1e-4)", name, k, ksCritical)
	}
}
