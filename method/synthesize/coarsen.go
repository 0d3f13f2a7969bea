package synthesize

import (
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/engine/marginal/domain"
)

// coarsenFloor is the Floor numeric attributes' bins are coarsened at
// (domain.CoarsenFloor, domain.Coarsen): from the per-cell noise the
// engine's measurements are planned to carry (marginal.PlannedSigma) at
// engine budget rho (the owner's ρ less what the bins, the record count
// and the label check take), n records (the public or released count)
// and the schema's numeric attributes' bins. Public quantities only.
func coarsenFloor(o Options, s data.Schema, n int, rho float64) float64 {
	sigma := marginal.PlannedSigma(o.Method, o.Neighbours, len(s.Attributes), n, rho, o.AdaptiveRounds, o.Split)
	if !(sigma > 0) {
		return 0
	}
	bins := 0
	for _, a := range s.Attributes {
		if a.Kind == data.Numeric {
			bins = max(bins, binsOf(o, a))
		}
	}
	return domain.CoarsenFloor(sigma, float64(n), bins)
}
