package domain

// Coarsening: merging the numeric bins a noisy histogram cannot tell apart
// from noise, as post-processing of that histogram (MST's domain
// compression, for contiguous bins).

import (
	"math"
	"slices"

	"github.com/dppub/dppub/data"
)

// CoarsenZ is how many noise standard deviations of the engine's later
// measurements a measured bin's count must reach to stay a bin of its
// own: MST's 3 (private-pgm's compress_domain keeps the values whose
// noisy one-way count is at least 3σ). On digits (1 438 rows, 64 pixels,
// ε = 1, add/remove, per-cell σ ≈ 50) floors of 100–200 records gave the
// same 2-way TVD within run-to-run noise (0.227 ± 0.005) and 300 worse
// (0.250) (measured before merged bins were capped at the floor and
// drawn by pieceWeights).
const CoarsenZ = 3

// CoarsenFloor is the Floor (CutsOptions) at which a table of n records
// (public, or the released count) whose numeric attributes refine bins
// equal-width bins is coarsened, when the engine's measurements will
// carry noise of standard deviation sigma per cell (public: from ρ, the
// method's plan and the attribute count): CoarsenZ·sigma when the average
// equal-width bin, n/bins records, is below it, 0 (no coarsening)
// otherwise. The gate keeps the rule to tables where most bins are noise
// in every marginal they are in (digits at ε = 1: 88 records per bin
// against a floor of 150); where the average bin stands clear (wide and
// zeroinfl at ε = 1, Adult, Shuttle, Musk2), merging only the light tails
// measured no better (wide 2-way TVD 0.098–0.101 against 0.097 without,
// paper engine, ε = 1) and the bins, and so every output, stay as they
// were.
func CoarsenFloor(sigma float64, n float64, bins int) float64 {
	floor := CoarsenZ * sigma
	if bins < 1 || !(n/float64(bins) < floor) {
		return 0
	}
	return floor
}

// PointMassFloor is the floor at which count attribute a's bins b are
// coarsened although the table's average bin stands clear of it
// (CoarsenFloor's gate closed): when a is an integer attribute with a
// grid cell per value (a count: visits, claims, days in hospital), one
// of its public values (PublicValues: 0, the minimum, the maximum) holds
// a bin of its own whose noisy mass reaches floor, and its other bins
// hold less than floor on average by their noisy masses (noisy, over
// grid). Such a column's tail is a few hundred records spread over a
// dozen bins, each mostly noise in every marginal it is in, and the
// clipping of that noise in the model fit takes mass from the heavy
// value: on zeroinfl at ε = 1 (8 000 records; claims and
// days_in_hospital 50–70 % zeros, visits) merging those tails took the
// worst zero-inflated column of 3 owners of rows on the adaptive engine
// from 2.7 to 1.8 pp off and their 2-way TVD from 0.0757 to 0.0714
// (seeds 1–3). It returns 0 otherwise: on Adult's capital-gain (390
// values a grid cell, 92 % zeros) merging the tails cost one owner's
// 2-way TVD 0.0253 → 0.0272 at ε = 1. floor is CoarsenZ·σ ungated
// (marginal.FloorPlan.PointMassFloor), public, so the result is
// post-processing of the released histogram.
func PointMassFloor(a data.Attribute, b ChosenBins, grid, noisy []float64, floor float64) float64 {
	if !(floor > 0) || !a.Integer || a.Max-a.Min+1 > float64(len(grid)) || len(b.Cuts) < 2 {
		return 0
	}
	mass, _ := binMass(b.Cuts, grid, noisy)
	public := PublicValues(a)
	heavy, light, k := false, 0.0, 0
	for i, lo := range b.Cuts {
		single := i+1 < len(b.Cuts) && b.Cuts[i+1] == nextValue(a, lo) || i+1 == len(b.Cuts) && lo == a.Max
		if single && slices.Contains(public, lo) && mass[i] >= floor {
			heavy = true
			continue
		}
		light += math.Max(mass[i], 0)
		k++
	}
	if !heavy || k == 0 || !(light/float64(k) < floor) {
		return 0
	}
	return floor
}

// Coarsen merges adjacent measured bins of a numeric attribute whose
// noisy mass does not stand clear of floor, the count below which a cell
// of the engine's later measurements is mostly noise (CoarsenFloor), so
// that those measurements spend their noise on fewer cells: the domain
// compression MST applies to its one-way marginals before it measures
// pairs, on ordered bins.
//
// b are the bins BinsFromHistogram chose from the noisy histogram noisy
// over grid (PublicGrid's cells, the same release), with standard
// deviation sigma per count. A bin whose noisy mass is at least floor
// stays a bin of its own (a point mass such as 0 or the maximum, when it
// is heavy, keeps its single-value bin); each run of light bins between
// them is cut, left to right, into bins of noisy mass below floor
// (coarseCuts). Every new edge is an old edge, so the old bins (or their pieces)
// become the pieces values are drawn in (DomainOptions.Within), weighted
// by their noisy masses shrunk towards an even spread over the bin as far
// as the noise explains their differences (pieceWeights): where the noise
// swamps the pieces the draw is uniform across the bin instead of
// following noise spikes. a is the attribute the bins cut.
//
// Privacy: the result depends on the released noisy counts and on
// floor, which comes from public quantities only (the budget, the
// attribute count, the record count used as public); it is
// post-processing of the "bins of" release and costs nothing beyond its
// charge. The merged bins still partition the declared range, so every
// later marginal keeps its sensitivity.
//
// With floor ≤ 0, or when every bin clears it, b comes back unchanged.
func Coarsen(a data.Attribute, b ChosenBins, grid, noisy []float64, sigma, floor float64) ChosenBins {
	if !(floor > 0) || len(b.Cuts) < 2 {
		return b
	}
	mass, cells := binMass(b.Cuts, grid, noisy)
	for i := range mass {
		if sigma*math.Sqrt(float64(cells[i])) > floor {
			// the release cannot tell this bin from one at the floor:
			// keep it (WDBC's 16-cell bins, σ·4 ≈ 4 floors).
			mass[i] = math.Inf(1)
		}
	}
	cuts := coarseCuts(b.Cuts, mass, floor)
	if len(cuts) == len(b.Cuts) {
		return b
	}
	pieces := b.Pieces
	if pieces == nil {
		pieces = &Pieces{Edges: b.Cuts}
	}
	return ChosenBins{Cuts: cuts, Pieces: &Pieces{Edges: slices.Clone(pieces.Edges), Weights: pieceWeights(a, cuts, pieces.Edges, grid, noisy, sigma)}}
}

// pieceWeights weighs the pieces (lower edges) of every bin of cuts by
// their noisy masses shrunk towards the bin's noisy mass spread in
// proportion to width (an empirical-Bayes estimate): when the pieces'
// deviations from that even spread exceed what the noise alone gives
// (their mean square above σ²·(1 + CoarsenZ·√(2/k)) for k pieces, the
// noise's mean plus CoarsenZ of its standard deviations), each deviation
// is kept in the share V/(V + σ²), V the mean square beyond the noise's;
// otherwise the bin is drawn uniformly. On a digits pixel at ε = 1 (σ ≈
// 145 against 20–90 records a value) that is uniform: the 2-way TVD reads
// 0.218 (add/remove, 3 seeds), against 0.219 uniform everywhere, 0.225
// with each noisy mass plus σ, 0.237 with the shrinkage and no test and
// 0.33 with the raw masses (clipped at 0).
func pieceWeights(a data.Attribute, cuts, edges, grid, noisy []float64, sigma float64) []float64 {
	mass, cells := binMass(edges, grid, noisy)
	top := a.Max
	if a.Integer {
		top++
	}
	width := func(p int) float64 {
		if p+1 < len(edges) {
			return edges[p+1] - edges[p]
		}
		return top - edges[p]
	}
	w := make([]float64, len(edges))
	for lo := 0; lo < len(edges); {
		hi := lo + 1
		for hi < len(edges) && !slices.Contains(cuts, edges[hi]) {
			hi++
		}
		total, span, noise := 0.0, 0.0, 0.0
		for p := lo; p < hi; p++ {
			total += mass[p]
			span += width(p)
			noise += sigma * sigma * float64(cells[p])
		}
		k := float64(hi - lo)
		noise /= k
		dev := 0.0
		for p := lo; p < hi; p++ {
			d := mass[p] - math.Max(total, 0)*width(p)/span
			dev += d * d
		}
		keep := 0.0
		if v := dev/k - noise; dev/k > noise*(1+CoarsenZ*math.Sqrt(2/k)) {
			keep = v / (v + noise)
		}
		for p := lo; p < hi; p++ {
			even := math.Max(total, 0) * width(p) / span
			w[p] = math.Max(even+keep*(mass[p]-even), 0)
		}
		lo = hi
	}
	return w
}

// binMass sums the noisy counts of the grid cells whose lower edge lies
// in each bin of edges (lower edges, starting at grid[0]), and counts
// those cells.
func binMass(edges, grid, noisy []float64) (mass []float64, cells []int) {
	mass, cells = make([]float64, len(edges)), make([]int, len(edges))
	for i, c := range noisy {
		p, ok := slices.BinarySearch(edges, grid[i])
		if !ok {
			p--
		}
		mass[p] += c
		cells[p]++
	}
	return mass, cells
}

// coarseCuts keeps the edges of every bin of mass at least floor and cuts
// each run of lighter bins into bins whose mass (negative counts as 0)
// stays below floor: a new bin starts where the next light bin would take
// the current one to the floor. So a merged bin is itself a cell the
// later measurements cannot resolve, and drawing values uniformly inside
// it misplaces fewer than floor records. Chunks of at least the floor
// instead (MST merges every light value into one cell) made the tails of
// zeroinfl's count columns (visits, claims, days_in_hospital at ε = 0.3,
// floor 719) bins of 700–1 400 records drawn uniformly, and its 2-way
// TVD 0.097 → 0.101 (add/remove, 3 seeds); capped, 0.095, while digits
// at ε = 1 reads 0.222 against 0.218.
func coarseCuts(edges, mass []float64, floor float64) []float64 {
	out := []float64{edges[0]}
	cut := func(v float64) {
		if v > out[len(out)-1] {
			out = append(out, v)
		}
	}
	acc, inRun := 0.0, false
	for i := range edges {
		m := math.Max(mass[i], 0)
		switch {
		case mass[i] >= floor:
			cut(edges[i])
			if i+1 < len(edges) {
				cut(edges[i+1])
			}
			acc, inRun = 0, false
			continue
		case !inRun:
			cut(edges[i])
			inRun = true
		case acc+m >= floor:
			cut(edges[i])
			acc = 0
		}
		acc += m
	}
	return out
}

// CoarseBinsFromHistogram is the whole post-processing of a released
// "bins of" histogram, the same for one owner and owners of rows:
// BinsFromHistogram's cuts, then Coarsen at floor, or at PointMassFloor's
// floor (from pointMass) where a count column's tail asks for more.
func CoarseBinsFromHistogram(a data.Attribute, grid, noisy []float64, n float64, bins int, sigma float64, refine Refinement, floor, pointMass float64) ChosenBins {
	b := BinsFromHistogram(a, grid, noisy, n, bins, sigma, refine)
	return Coarsen(a, b, grid, noisy, sigma, max(floor, PointMassFloor(a, b, grid, noisy, pointMass)))
}
