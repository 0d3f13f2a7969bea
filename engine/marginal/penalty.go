package marginal

import (
	"math"
)

// Penalty chooses how the adaptive method estimates the error a candidate's
// measurement would leave, the term its quality score subtracts from the
// model's current error and its annealing test compares the model's move
// with. Both choices use only public quantities (σ, the domain, and the
// model, itself post-processing of earlier releases), so neither changes
// the selection's sensitivity.
type Penalty string

const (
	// PenaltyAIM is AIM's (McKenna et al., VLDB 2022, Alg. 2): the expected
	// L1 norm of the measurement's noise, √(2/π)·σ per cell.
	PenaltyAIM Penalty = "aim"
	// PenaltyClipped is the expected L1 error of the measurement once
	// clipped at zero, taking the model's current estimate x̂ of each
	// cell as its count: clippedError(x̂, σ) per cell, from σ/√(2π) for
	// an empty cell to AIM's √(2/π)·σ for a count far above σ. The fitted
	// model is a distribution, so a measurement's negative noise on an
	// empty cell never reaches it; on a sparse table most of a
	// candidate's cells are empty and AIM's penalty overstates what a
	// measurement leaves by up to half, so it passes over sets the model
	// estimates only moderately badly and never returns to them.
	PenaltyClipped Penalty = "clipped"
)

// ParsePenalty checks a penalty's name.
func ParsePenalty(v string) (Penalty, error) {
	return penalties.Parse(v)
}

// Describe says what the penalty is, for a report.
func (p Penalty) Describe() string {
	if p == PenaltyAIM {
		return "AIM's, the noise's expected L1 norm √(2/π)·σ per cell"
	}
	return "the noise's expected L1 error once clipped at zero, at the model's estimate of each cell (public: post-processing of earlier releases)"
}

// of is the penalty of a candidate whose model estimate is est (one count
// per cell), measured with Gaussian noise of standard deviation sigma.
func (p Penalty) of(est []float64, sigma float64) float64 {
	if p == PenaltyAIM {
		return math.Sqrt(2/math.Pi) * sigma * float64(len(est))
	}
	e := 0.0
	for _, x := range est {
		e += clippedError(x, sigma)
	}
	return e
}

// clippedError is E|max(x + z, 0) − x| for z ~ N(0, σ²) and a count x
// (negative x as 0): the noise where x + z > 0, and x where it is not,
//
//	σ/√(2π)·(2 − e^{−x²/2σ²}) + x·Φ(−x/σ),
//
// σ/√(2π) at x = 0, rising to √(2/π)·σ, the unclipped E|z|.
func clippedError(x, sigma float64) float64 {
	x = math.Max(x, 0)
	t := x / sigma
	return sigma/math.Sqrt(2*math.Pi)*(2-math.Exp(-t*t/2)) + x*0.5*math.Erfc(t/math.Sqrt2)
}

// String returns the word as flags and JSON spell it.
func (p Penalty) String() string { return string(p) }
