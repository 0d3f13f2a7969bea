package marginal

import (
	"cmp"
	"math"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/measurement"
)

// PlannedSigma is the noise standard deviation per cell of the engine's
// measurements under method m (MethodPaper or MethodAdaptive), as planned
// from public facts before any is made: d attributes, n records (public,
// or the released count), the engine's budget rho, its rounds (adaptive;
// 0: DefaultRounds) and split (paper; zero: PaperSplit). For the adaptive
// method, a first-round measurement's ((1 − 0.1)·ρ/T: the one-way
// marginals and the first pairs; later rounds anneal to less); for the
// paper method, a combined marginal's, with the marginals' share of ρ
// split over 2·d sets (the paper engine measured 149 sets on the
// 73-column `wide`). 0 when the budget cannot be read.
func PlannedSigma(m Method, nb dp.Neighbours, d, n int, rho float64, rounds int, split Split) float64 {
	if !(rho > 0) || d < 1 {
		return 0
	}
	var each float64
	switch m {
	case MethodAdaptive:
		const selectShare = 0.1 // AdaptiveOptions' default
		_, l2 := measurement.CountSensitivity(nb)
		replaceOne := rho * (measurement.CountL2 / l2) * (measurement.CountL2 / l2)
		rounds = cmp.Or(rounds, DefaultRounds(d, n, replaceOne, selectShare))
		each = (1 - selectShare) * rho / float64(rounds)
	default:
		if split == (Split{}) {
			split = PaperSplit
		}
		each = split.Marginals * rho / float64(2*d)
	}
	noise, err := measurement.CountNoise(measurement.Gaussian, nb, each)
	if err != nil {
		return 0
	}
	return math.Sqrt(noise.Variance())
}
