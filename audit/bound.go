package audit

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// ClopperPearsonLower is the exact one-sided lower confidence bound on a
// binomial probability after k successes in n trials: P(p < bound) ≥ 1 − α
// for every p (Clopper & Pearson 1934). It is the α quantile of
// Beta(k, n − k + 1), and 0 when k = 0.
func ClopperPearsonLower(k, n int, alpha float64) float64 {
	checkBinomial(k, n, alpha)
	if k == 0 {
		return 0
	}
	return distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1)}.Quantile(alpha)
}

// ClopperPearsonUpper is the exact one-sided upper confidence bound: the
// 1 − α quantile of Beta(k + 1, n − k), and 1 when k = n.
func ClopperPearsonUpper(k, n int, alpha float64) float64 {
	checkBinomial(k, n, alpha)
	if k == n {
		return 1
	}
	return distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(1 - alpha)
}

func checkBinomial(k, n int, alpha float64) {
	if n < 1 || k < 0 || k > n || !(alpha > 0 && alpha < 1) {
		panic("audit: Clopper–Pearson needs 0 ≤ k ≤ n, n ≥ 1 and α in (0, 1)")
	}
}

// EpsilonLower is the lower bound on ε implied by one event S that occurred
// kNum times in nNum runs on one dataset and kDen times in nDen runs on its
// neighbour: an (ε, δ)-DP mechanism has P_num(S) ≤ e^ε P_den(S) + δ, so
//
//	ε ≥ ln((p_lo(num) − δ) / p_hi(den)),
//
// where p_lo and p_hi are one-sided Clopper–Pearson bounds at level α each.
// The bound holds with probability at least 1 − 2α. It is 0 (no evidence)
// when p_lo(num) ≤ δ or the ratio is below 1.
func EpsilonLower(kNum, nNum, kDen, nDen int, delta, alpha float64) float64 {
	lo := ClopperPearsonLower(kNum, nNum, alpha) - delta
	if lo <= 0 {
		return 0
	}
	return math.Max(0, math.Log(lo/ClopperPearsonUpper(kDen, nDen, alpha)))
}
