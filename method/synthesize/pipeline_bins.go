// The records' cells and bins: the domain the records are encoded with
// (DomainFor), the numeric bins chosen from the data (adaptiveBins), and
// the records recoded and merged to them (binRecords).

package synthesize

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/privacy"
)

// DomainFor is the domain a table with schema s must be
// discretised with for Synthesize under o (Encoded): the schema's bins
// (equal-width, with each numeric attribute's public values, its minimum,
// its maximum and 0 inside its bounds, a bin of its own:
// domain.PublicValueCuts), or, when the numeric bins are chosen from
// the data (one owner, the default), numeric attributes cut at every edge
// those bins may have (domain.FineEdges), so that the bins chosen
// afterwards from the cells' counts are unions of cells and the records
// need not be read again.
func DomainFor(s data.Schema, o Options) (*domain.Domain, error) {
	if !adaptive(o) {
		d, err := domain.New(s, domain.Options{Bins: o.Bins, BinsFor: o.BinsFor, PublicValueBins: true})
		if err != nil {
			return nil, fmt.Errorf("publish: %w", err)
		}
		return d, nil
	}
	fine := map[string][]float64{}
	for _, a := range s.Attributes {
		if a.Kind == data.Numeric {
			fine[a.Name] = domain.FineEdges(a, binsOf(o, a), domain.DefaultGrid)
		}
	}
	d, err := domain.New(s, domain.Options{Bins: o.Bins, BinsFor: o.BinsFor, Cuts: fine})
	if err != nil {
		return nil, fmt.Errorf("publish: cells to choose the bins from: %w", err)
	}
	return d, nil
}

// adaptive reports whether o chooses numeric bins from the data.
func adaptive(o Options) bool {
	return o.BinShare > 0 || (o.BinShare == 0 && len(o.Parties) <= 1)
}

// binsOf is the number of equal-width bins attribute a's bins refine.
func binsOf(o Options, a data.Attribute) int {
	return cmp.Or(o.BinsFor[a.Name], o.Bins, domain.DefaultBins)
}

// binRecords encodes the input's records in the cells of DomainFor and,
// when o chooses the numeric bins from the data, chooses them (charged to
// accts) and recodes the records to them. It returns the domain the
// engine runs on (dom, the public domain, unless bins are chosen), the
// records in its cells, how many values were clamped to their bounds and
// the one-way marginals released on the way (adaptiveBins).
func binRecords(o Options, schema data.Schema, dom *domain.Domain, accts []*privacy.Accountant, n int, plan binPlan) (*domain.Domain, domain.Chunks, int, []marginal.Premeasured, error) {
	pre, err := DomainFor(schema, o)
	if err != nil {
		return nil, nil, 0, nil, err
	}
	real, clamped, err := encodeRecords(o, pre)
	if err != nil {
		return nil, nil, 0, nil, err
	}
	if !adaptive(o) {
		// The schema's bins with the public values split off, which the
		// records were encoded with: a point mass at 0 or at a cap keeps a
		// bin of its own without a data-chosen bin (parties of columns).
		dom = pre
	}
	var oneWays []marginal.Premeasured
	if dom, oneWays, err = adaptiveBins(o, dom, pre, real, accts, n, plan); err != nil {
		return nil, nil, 0, nil, err
	}
	if real, err = mergeBinned(o, real, plan.rho); err != nil {
		return nil, nil, 0, nil, err
	}
	return dom, real, clamped, oneWays, nil
}

// encodeRecords returns the input's records in the cells of pre, and the
// number of values clamped to their bounds: the table encoded, or the
// caller's encoded records once checked to have pre's cells.
func encodeRecords(o Options, pre *domain.Domain) (domain.Chunks, int, error) {
	if o.Table != nil {
		ds, st, err := pre.Encode(o.Table)
		if err != nil {
			return nil, 0, fmt.Errorf("publish: %w", err)
		}
		return domain.Chunks{domain.CellsOf(ds)}, st.Clamped, nil
	}
	if !slices.Equal(o.Encoded.Domain.Sizes(), pre.Sizes()) {
		return nil, 0, fmt.Errorf("publish: records encoded with cells %v, want %v (DomainFor)", o.Encoded.Domain.Sizes(), pre.Sizes())
	}
	if err := o.Encoded.Chunks.Check(); err != nil {
		return nil, 0, fmt.Errorf("publish: %w", err)
	}
	return o.Encoded.Chunks, o.Encoded.Clamped, nil
}

// mergeBinned merges the caller's encoded records once bins were chosen
// from the data (binRho > 0): tuples of fine cells that fall in the same
// bins are then identical, and merged they are fewer rows to count, with
// the same counts. The caller's pieces are consumed, so it gets the
// merged ones in their place. A table's records are returned as they are.
func mergeBinned(o Options, real domain.Chunks, binRho float64) (domain.Chunks, error) {
	if !(o.Encoded != nil && binRho > 0) {
		return real, nil
	}
	merged, err := real.Merged()
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	o.Encoded.Chunks = merged
	return merged, nil
}

// DefaultBinShare is the default share of ρ spent choosing numeric bins.
const DefaultBinShare = 0.05

// binPlan is how synthesize chooses numeric bins from the data (one
// owner): each attribute's histogram released at rho (binShare·ρ split
// over the numeric attributes), or, for those of oneWay (oneWayFirst, when
// the engine takes premeasured one-ways), at oneWayRho, the engine's
// one-way budget.
type binPlan struct {
	rho, oneWayRho float64
	oneWay         map[int]bool
	floor          floors
}

// planBins splits the bins' budget for a run whose single owner has
// budget rho before the bins, of which count and check are spent on the
// record count and the label check: it returns the plan and the ρ the
// bins' own releases cost (the one-way releases are the engine's).
func planBins(o Options, schema data.Schema, n int, rho, count, check float64) (binPlan, float64, error) {
	var p binPlan
	if !(o.BinShare > 0) {
		p.floor = coarsenFloors(o, schema, n, rho*(1-o.BinShare)-count-check)
		return p, 0, nil
	}
	if len(o.Parties) != 1 || o.BinShare >= 1 {
		return binPlan{}, 0, fmt.Errorf("publish: data-adaptive bins (share %v) need one owner and a share below 1", o.BinShare)
	}
	var numeric, first int
	p.oneWay = map[int]bool{}
	for j, a := range schema.Attributes {
		if a.Kind == data.Numeric {
			numeric++
			if marginal.OneWayFirst(a) && !o.ownBinRelease {
				p.oneWay[j] = true
				first++
			}
		}
	}
	if numeric == 0 {
		return p, 0, nil
	}
	p.rho = o.BinShare * rho / float64(numeric)
	whole := p.rho * float64(numeric)
	p.floor = coarsenFloors(o, schema, n, rho*(1-o.BinShare)-count-check)
	if first == 0 {
		p.oneWay = nil
		return p, whole, nil
	}
	// The engine's budget is computed as Publish leaves it, to the last
	// bit: the engine refuses one-ways released at any other ρ.
	spent := p.rho * float64(numeric-first)
	engine := rho - (spent + count + check)
	// Not engineOptions: that would draw the engine's randomness.
	eo := marginal.Options{Method: o.Method, Records: n, Neighbours: o.Neighbours, Parties: []marginal.Party{{Rho: engine}}, Adaptive: adaptiveOptions(o, nil)}
	oneRho, ok, err := eo.OneWayRho(len(schema.Attributes))
	if err != nil {
		return binPlan{}, 0, fmt.Errorf("publish: %w", err)
	}
	floor := coarsenFloors(o, schema, n, engine)
	if !ok || !(floor.all > 0) {
		// Only where the noise swamps the average bin (CoarsenFloor's
		// gate) do the one-way marginals choose the bins: elsewhere the
		// bins' own release tells heavy values from light ones, and on
		// `digits` at ε = 4 the one-way order cost GBT accuracy.
		p.oneWay = nil
		return p, whole, nil
	}
	p.oneWayRho, p.floor = oneRho, floor
	return p, spent, nil
}

// adaptiveBins chooses every numeric attribute's bins from the data as p
// plans (one owner), charging the owner's accountant, and returns the
// domain with those bins (the records recoded to it) and the one-way
// marginals released on the way (p.oneWay), summed into the bins, for
// the engine. The records are discretised with pre (DomainFor): the bins
// come from the counts of its fine cells, which give the same histogram,
// and so the same release, as the values themselves. n is the public
// record count the bins aim at: the released one under add/remove.
func adaptiveBins(o Options, dom, pre *domain.Domain, real domain.Chunks, accts []*privacy.Accountant, n int, p binPlan) (*domain.Domain, []marginal.Premeasured, error) {
	if !(p.rho > 0) {
		return dom, nil, nil
	}
	s := dom.Schema()
	do := domain.Options{Bins: o.Bins, BinsFor: o.BinsFor}
	src := o.Source.Child()
	var released []marginal.OneWayRelease
	for j, a := range s.Attributes {
		if a.Kind != data.Numeric {
			continue
		}
		counts, err := real.Count([]int{j})
		if err != nil {
			return nil, nil, fmt.Errorf("publish: %w", err)
		}
		co := measurement.CutsOptions{Bins: binsOf(o, a), Rho: p.rho, Accountant: accts[0], Source: src, Refine: o.Refine,
			Neighbours: o.Neighbours, Records: float64(n), Floor: p.floor.all, PointMassFloor: p.floor.pointMass}
		if p.oneWay[j] {
			co.Rho, co.Purpose = p.oneWayRho, "one-way marginal and bins of "+a.Name
		}
		c, g, err := measurement.ReleaseBinsFromFine(a, counts.Counts, co)
		if err != nil {
			return nil, nil, fmt.Errorf("publish: %w", err)
		}
		do.SetChosen(a.Name, c)
		if p.oneWay[j] {
			released = append(released, marginal.OneWayRelease{Attr: j, Grid: g})
		}
	}
	d, err := domain.New(s, do)
	if err != nil {
		return nil, nil, fmt.Errorf("publish: %w", err)
	}
	lut, err := domain.Recoding(pre, d)
	if err != nil {
		return nil, nil, fmt.Errorf("publish: %w", err)
	}
	real.Recode(lut, d.Sizes())
	oneWays, err := marginal.BinnedOneWays(d, released)
	return d, oneWays, err
}
