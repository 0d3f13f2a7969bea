package synthesize

import (
	"cmp"
	"math"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/engine/marginal"
)

// coarsenFloor is the Floor numeric attributes' bins are coarsened at
// (marginal.CoarsenFloor, marginal.Coarsen): from the per-cell noise the
// engine's measurements are planned to carry (plannedSigma) at engine
// budget rho (the owner's ρ less what the bins, the record count and the
// label check take), n records (the public or released count) and the
// schema's numeric attributes' bins. Public quantities only.
func coarsenFloor(o Options, s data.Schema, n int, rho float64) float64 {
	sigma := plannedSigma(o, len(s.Attributes), n, rho)
	if !(sigma > 0) {
		return 0
	}
	bins := 0
	for _, a := range s.Attributes {
		if a.Kind == data.Numeric {
			bins = max(bins, binsOf(o, a))
		}
	}
	return marginal.CoarsenFloor(sigma, float64(n), bins)
}

// plannedSigma is the noise standard deviation per cell of the engine's
// measurements, as planned from public facts before any is made: for the
// adaptive method a first-round measurement's ((1 − 0.1)·ρ/T, T its
// rounds: the one-way marginals and the first pairs; later rounds anneal
// to less), for the paper method a combined marginal's with the
// marginals' share of ρ split over 2·d sets (the paper engine measured
// 149 sets on a 73-column table). 0 when the budget cannot be read.
func plannedSigma(o Options, d, n int, rho float64) float64 {
	if !(rho > 0) || d < 1 {
		return 0
	}
	var each float64
	switch o.Method {
	case marginal.MethodAdaptive:
		const selectShare = 0.1 // AdaptiveOptions' default
		_, l2 := marginal.CountSensitivity(o.Neighbours)
		replaceOne := rho * (marginal.CountL2 / l2) * (marginal.CountL2 / l2)
		rounds := cmp.Or(o.AdaptiveRounds, marginal.DefaultRounds(d, n, replaceOne, selectShare))
		each = (1 - selectShare) * rho / float64(rounds)
	default:
		split := o.Split
		if split == (marginal.Split{}) {
			split = marginal.PaperSplit
		}
		each = split.Marginals * rho / float64(2*d)
	}
	noise, err := marginal.CountNoise(marginal.Gaussian, o.Neighbours, each)
	if err != nil {
		return 0
	}
	return math.Sqrt(noise.Variance())
}
