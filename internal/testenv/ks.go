package testenv

import (
	"math"
	"slices"
)

// KSDistance is the one-sample Kolmogorov–Smirnov distance sup|F_n − F|
// between sample's empirical distribution and cdf, for the statistical
// tests of noise samplers (each states its own threshold and
// false-rejection rate).
func KSDistance(sample []float64, cdf func(float64) float64) float64 {
	s := slices.Sorted(slices.Values(sample))
	n := float64(len(s))
	d := 0.0
	for i, x := range s {
		f := cdf(x)
		d = math.Max(d, math.Max(f-float64(i)/n, float64(i+1)/n-f))
	}
	return d
}
