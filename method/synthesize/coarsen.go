package synthesize

import (
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/engine/marginal"
)

// coarsenFloor is the Floor numeric attributes' bins are coarsened at
// (domain.CoarsenFloor, domain.Coarsen): from the per-cell noise the
// engine's measurements are planned to carry (marginal.PlannedSigma) at
// engine budget rho (the owner's ρ less what the bins, the record count
// and the label check take), n records (the public or released count)
// and the schema's numeric attributes' bins. Public quantities only.
func coarsenFloor(o Options, s data.Schema, n int, rho float64) float64 {
	return floorPlan(o, s, n, rho).Floor()
}

// floors are the counts below which numeric bins merge with their light
// neighbours: every attribute's (coarsenFloor; 0: none) and a count
// attribute's with a heavy public value (marginal.FloorPlan.PointMassFloor).
type floors struct{ all, pointMass float64 }

// coarsenFloors are the floors of a run planned as coarsenFloor's.
func coarsenFloors(o Options, s data.Schema, n int, rho float64) floors {
	p := floorPlan(o, s, n, rho)
	return floors{all: p.Floor(), pointMass: p.PointMassFloor()}
}

func floorPlan(o Options, s data.Schema, n int, rho float64) marginal.FloorPlan {
	return marginal.FloorPlan{Method: o.Method, Neighbours: o.Neighbours, Schema: s, Bins: o.Bins, BinsFor: o.BinsFor,
		Records: n, Rho: rho, Rounds: o.AdaptiveRounds, Split: o.Split}
}
