package audit

import (
	"fmt"
	"math"
)

// LaplaceLLR returns the log-likelihood ratio ln p_D(y)/p_D'(y) of a
// release y = f + independent Laplace noise of scale b_i:
//
//	Σ_i (|y_i − f(D')_i| − |y_i − f(D)_i|) / b_i.
//
// By the Neyman–Pearson lemma its threshold events are the most powerful
// tests of D against D', so they are the events to audit with when the
// noise distribution is known. The ratio has point masses at its extremes
// ±Σ|f(D)_i − f(D')_i|/b_i; it is rounded to 1e-9 so that floating-point
// error does not split a point mass and fake a likelihood ratio above e^ε
// at a threshold placed exactly on it.
func LaplaceLLR(fD, fDPrime, scale []float64) func([]float64) float64 {
	checkLLR(fD, fDPrime, scale)
	return func(y []float64) float64 {
		s := 0.0
		for i, v := range y {
			s += (math.Abs(v-fDPrime[i]) - math.Abs(v-fD[i])) / scale[i]
		}
		return math.Round(s*1e9) / 1e9
	}
}

// GaussianLLR is the same for independent Gaussian noise of standard
// deviation σ_i: Σ_i ((y_i − f(D')_i)² − (y_i − f(D)_i)²) / (2σ_i²).
func GaussianLLR(fD, fDPrime, sigma []float64) func([]float64) float64 {
	checkLLR(fD, fDPrime, sigma)
	return func(y []float64) float64 {
		s := 0.0
		for i, v := range y {
			a, b := v-fDPrime[i], v-fD[i]
			s += (a*a - b*b) / (2 * sigma[i] * sigma[i])
		}
		return s
	}
}

func checkLLR(fD, fDPrime, scale []float64) {
	if len(fD) != len(fDPrime) || len(fD) != len(scale) {
		panic(fmt.Sprintf("audit: LLR needs equal lengths, got %d, %d, %d", len(fD), len(fDPrime), len(scale)))
	}
	for _, s := range scale {
		if !(s > 0) {
			panic(fmt.Sprintf("audit: LLR noise scale %v is not positive", s))
		}
	}
}
