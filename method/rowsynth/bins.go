// The numeric bins: chosen from noisy pooled histograms on the public
// grid (bins), planned before any release (planBins), and the one-way
// marginals released on the way handed to the engine (premeasured).

package rowsynth

import (
	"cmp"
	"context"
	"math"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/measurement"
	proto "github.com/dppub/dppub/method/rowsynth/roles"
)

// binPlan is how the coordinator chooses the numeric bins, all public:
// each numeric attribute's histogram released at each (BinShare·ρ split
// over the numeric attributes), or, for those of oneWay, at oneWayRho,
// the adaptive rounds' one-way ρ (planBins). rho is what the bins' own
// releases cost, engine the budget left to the engine, floor the plan of
// the counts below which a bin merges with its light neighbours;
// binsFromCounts is false for equal-width bins at no cost (no BinShare).
type binPlan struct {
	numeric        []int
	each, rho      float64
	oneWay         map[int]bool
	oneWayRho      float64
	engine         float64
	floor          marginal.FloorPlan
	binsFromCounts bool
}

// planBins plans the bins of a run of method on n records in which each
// owner has res.Rho, res.CountRho of it spent on the record count. As
// one owner of synthesize does (MST's order), an attribute for which
// marginal.OneWayFirst holds has its histogram released once at the
// adaptive rounds' one-way ρ instead of at the bin share, the same
// release then being the engine's one-way measurement of it, where the
// engine takes such releases (Options.OneWayRho: the adaptive method on
// more than AutoMaxAttributes attributes) and the noise swamps the
// average bin (the floor's gate, at the engine budget that results when
// those attributes' bin share goes back to the engine). Elsewhere the
// plan, and so the run, is what it was before.
func (s *session) planBins(n int, res *Result, method marginal.Method) (binPlan, error) {
	st := s.Settings
	p := binPlan{binsFromCounts: st.BinShare > 0}
	for j, a := range s.Schema.Attributes {
		if a.Kind == data.Numeric {
			p.numeric = append(p.numeric, j)
		}
	}
	rho := res.Rho
	if !p.binsFromCounts || len(p.numeric) == 0 {
		p.engine = rho - p.rho - res.CountRho
		return p, nil
	}
	p.each = st.BinShare * rho / float64(len(p.numeric))
	p.rho = p.each * float64(len(p.numeric))
	p.engine = rho - p.rho - res.CountRho
	p.floor = s.floorPlan(method, n, rho*(1-st.BinShare)-rho*countShare(st.Neighbours))
	oneWay := map[int]bool{}
	for _, j := range p.numeric {
		if marginal.OneWayFirst(s.Schema.Attributes[j]) {
			oneWay[j] = true
		}
	}
	if len(oneWay) == 0 {
		return p, nil
	}
	// The engine's budget, to the last bit: the engine refuses one-ways
	// released at any other ρ than its rounds' (run passes it as is).
	spent := p.each * float64(len(p.numeric)-len(oneWay))
	engine := rho - spent - res.CountRho
	o := s.engineOptions(method, n, engine, nil)
	oneRho, ok, err := o.OneWayRho(len(s.Schema.Attributes))
	if err != nil {
		return binPlan{}, err
	}
	floor := s.floorPlan(method, n, engine)
	if !ok || !(floor.Floor() > 0) {
		// As for one owner: elsewhere the bins' own release tells heavy
		// values from light ones (synthesize's planBins).
		return p, nil
	}
	p.oneWay, p.oneWayRho, p.rho, p.engine, p.floor = oneWay, oneRho, spent, engine, floor
	return p, nil
}

// bins chooses every numeric attribute's bins from its pooled histogram
// on the public grid, released with discrete Gaussian noise as p plans
// (the single-owner engine's ChooseBins, with the counting done by the
// owners and the merging, post-processing, here), in one round of
// requests: the cuts the owners count on and, with BinRefine decoded,
// the pieces the coordinator draws values in, recorded in do. Where the
// engine's planned noise swamps the average bin, bins whose noisy count
// is below the floor merge (domain.Coarsen: post-processing of the same
// release), as for one owner. It returns the releases of p.oneWay's
// attributes, in the order they were made.
func (s *session) bins(ctx context.Context, m *proto.Measurer, n int, p binPlan, do *domain.Options) ([]marginal.OneWayRelease, error) {
	st := s.Settings
	if !p.binsFromCounts || len(p.numeric) == 0 {
		// Equal-width bins, no budget: with each public value (minimum,
		// maximum, 0 inside the bounds) a bin of its own, as the engines of
		// parties of columns have them, sent to the owners as explicit
		// cuts.
		for _, j := range p.numeric {
			a := s.Schema.Attributes[j]
			if c := domain.PublicValueCuts(a, cmp.Or(st.BinsFor[a.Name], st.Bins, domain.DefaultBins)); c != nil {
				do.SetChosen(a.Name, domain.ChosenBins{Cuts: c})
			}
		}
		return nil, nil
	}
	rs, err := s.binReleases(p)
	if err != nil {
		return nil, err
	}
	hists, err := m.Histograms(ctx, p.numeric, domain.DefaultGrid, rs)
	if err != nil {
		return nil, err
	}
	floor, pointMass := p.floor.Floor(), p.floor.PointMassFloor()
	var out []marginal.OneWayRelease
	for i, j := range p.numeric {
		a := s.Schema.Attributes[j]
		bins := cmp.Or(st.BinsFor[a.Name], st.Bins)
		// σ of the noise the release carries: the calibrated noise in exact
		// mode, (K+1)/K of its variance in insider-safe mode (the
		// coordinator's share on top), so that the noise-aware cuts are no
		// bolder than the noise allows.
		grid := domain.PublicGrid(a, domain.DefaultGrid)
		sigma := math.Sqrt(rs[i].Noise.Variance() * noiseVariance(st.Noise, len(s.Owners)))
		do.SetChosen(a.Name, domain.CoarseBinsFromHistogram(a, grid, hists[i], float64(n), bins, sigma, st.BinRefine, floor, pointMass))
		if p.oneWay[j] {
			out = append(out, marginal.OneWayRelease{Attr: j, Grid: measurement.GridRelease{Grid: grid, Counts: hists[i], Release: rs[i]}})
		}
	}
	return out, nil
}

// binReleases are the releases of p's histograms, one per numeric
// attribute: at the bin share, or, for p.oneWay's, at the rounds'
// one-way ρ with the noise the engine's one-way measurement carries.
func (s *session) binReleases(p binPlan) ([]measurement.Release, error) {
	st := s.Settings
	noise, err := measurement.CountNoise(measurement.Gaussian, st.Neighbours, p.each)
	if err != nil {
		return nil, err
	}
	var oneWay measurement.Noise
	if len(p.oneWay) > 0 {
		if oneWay, err = measurement.CountNoise(measurement.Gaussian, st.Neighbours.Or(), p.oneWayRho); err != nil {
			return nil, err
		}
	}
	rs := make([]measurement.Release, len(p.numeric))
	for i, j := range p.numeric {
		name := s.Schema.Attributes[j].Name
		rs[i] = measurement.Release{Purpose: "bins of " + name, Parties: []int{0}, Noise: noise}
		if p.oneWay[j] {
			rs[i].Purpose, rs[i].Noise = "one-way marginal and bins of "+name, oneWay
		}
	}
	return rs, nil
}

// premeasured sums each one-way release into its attribute's bins in
// dom (marginal.BinnedOneWays: post-processing), for the engine's
// AdaptiveOptions.Premeasured, in the order of the releases, and records
// the attributes in res.
func premeasured(dom *domain.Domain, released []marginal.OneWayRelease, res *Result) ([]marginal.Premeasured, error) {
	for _, r := range released {
		res.OneWays = append(res.OneWays, dom.Name(r.Attr))
	}
	return marginal.BinnedOneWays(dom, released)
}

// floorPlan plans the counts below which a numeric bin is merged with
// its light neighbours (domain.CoarsenFloor, domain.PointMassFloor) for
// a run of method on n records at engine budget rho, from the noise the
// owners' releases carry (noiseVariance): public quantities only.
func (s *session) floorPlan(method marginal.Method, n int, rho float64) marginal.FloorPlan {
	o := s.Settings.Options(method, n)
	return marginal.FloorPlan{Method: method, Neighbours: s.Settings.Neighbours.Or(), Schema: s.Schema, Bins: s.Settings.Bins,
		BinsFor: s.Settings.BinsFor, Records: n, Rho: rho, Rounds: o.Adaptive.Rounds, Split: o.Split,
		NoiseVariance: noiseVariance(s.Settings.Noise, len(s.Owners))}
}
