package marginal

import (
	"cmp"
	"math"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/domain"
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

// FloorPlan is what fixes the count below which a numeric bin is merged
// with its light neighbours: the run's method, relation, schema and bins
// (Bins, BinsFor as in domain.Options), its n records (public, or the
// released count), its engine budget Rho, and its Rounds and Split as in
// PlannedSigma. NoiseVariance is the variance of the noise every release
// carries as a multiple of its calibrated noise's (Options.NoiseVariance:
// (K+1)/K for K owners of rows in insider-safe mode; 0 means 1). Every
// field is public.
type FloorPlan struct {
	Method        Method
	Neighbours    dp.Neighbours
	Schema        data.Schema
	Bins          int
	BinsFor       map[string]int
	Records       int
	Rho           float64
	Rounds        int
	Split         Split
	NoiseVariance float64
}

// Floor is measurement.CutsOptions.Floor for a run planned as p:
// domain.CoarsenFloor of the per-cell noise PlannedSigma plans, against
// the most equal-width bins any numeric attribute of the schema gets; 0
// (no coarsening) when the noise cannot be planned or does not swamp the
// average bin.
//
// Noise v times the calibrated variance at ρ is the calibrated noise at
// ρ/v, and the adaptive engine plans its rounds there (Options.noiseRho),
// so the floor is planned at ρ/v.
func (p FloorPlan) Floor() float64 {
	sigma := p.sigma()
	if !(sigma > 0) {
		return 0
	}
	bins := 0
	for _, a := range p.Schema.Attributes {
		if a.Kind == data.Numeric {
			bins = max(bins, cmp.Or(p.BinsFor[a.Name], p.Bins, domain.DefaultBins))
		}
	}
	return domain.CoarsenFloor(sigma, float64(p.Records), bins)
}

// PointMassFloor is domain.CoarsenZ times the noise Floor plans, without
// its gate: the floor of a count attribute whose heavy public value
// leaves its other bins light (domain.PointMassFloor); 0 when the noise
// cannot be planned.
func (p FloorPlan) PointMassFloor() float64 {
	return domain.CoarsenZ * p.sigma()
}

// sigma is the per-cell noise the plan's measurements carry.
func (p FloorPlan) sigma() float64 {
	rho := p.Rho / cmp.Or(p.NoiseVariance, 1)
	return PlannedSigma(p.Method, p.Neighbours, len(p.Schema.Attributes), p.Records, rho, p.Rounds, p.Split)
}
