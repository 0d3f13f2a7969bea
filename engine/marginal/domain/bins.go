package domain

import (
	"cmp"
	"math"
	"slices"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
)

// DefaultGrid is the number of cells of the public grid measurement.ChooseCuts
// releases a numeric attribute's histogram on.
const DefaultGrid = 256

// Refinement says what the data-chosen bins of a numeric attribute are
// used for.
type Refinement string

const (
	// RefineMeasured: the engine measures its marginals on the refined
	// bins (every data-chosen bin is a cell of every marginal the
	// attribute is in). The zero Refinement means DefaultRefine.
	RefineMeasured Refinement = "measured"
	// RefineDecoded: the engine measures the equal-width bins plus the
	// point masses (heavy single cells) only; the finer bins and their
	// noisy masses, from the same release, only draw each value inside
	// its measured bin (Options.Within). The marginals have about
	// the equal-width bins' cells, so their noise is about the equal-width
	// bins', while values keep the refined one-way shape and point masses.
	RefineDecoded Refinement = "decoded"
)

// refinements are the words a Refinement may be.
var refinements = dp.NewWords("refinement", RefineMeasured, RefineDecoded)

// Validate accepts the two refinements and the zero one (DefaultRefine).
func (r Refinement) Validate() error {
	if r == "" {
		return nil
	}
	return refinements.Check(r)
}

// SetChosen records b as attribute name's bins in o: its cuts and, when
// it has them, the pieces values are drawn in.
func (o *Options) SetChosen(name string, b ChosenBins) {
	if o.Cuts == nil {
		o.Cuts = map[string][]float64{}
	}
	o.Cuts[name] = b.Cuts
	if b.Pieces != nil {
		if o.Within == nil {
			o.Within = map[string]Pieces{}
		}
		o.Within[name] = *b.Pieces
	}
}

// DefaultRefine is what data-chosen bins are for by default: decoded, by
// measurement (docs/results/synthesis, "Sixth run"): on Shuttle the
// measured refinement left the paper engine at 1.7× AIM's 2-way TVD
// and the adaptive one at 2.1× at ε = 1, decoded both match what the
// equal-width bins give (1.7× and 0.98×) while keeping the zeros (mode
// mass error 0.013 against 0.26 on equal-width bins); on Adult and WDBC
// the two are within run-to-run noise.
const DefaultRefine = RefineDecoded

// ChosenBins are a numeric attribute's data-chosen bins (ChooseBins):
// Cuts, the bins the engine measures (Options.Cuts), and, with
// RefineDecoded, the finer pieces values are drawn in
// (Options.Within; nil with RefineMeasured).
type ChosenBins struct {
	Cuts   []float64
	Pieces *Pieces
}

// PublicGrid returns the lower edges of a data-independent grid over
// numeric attribute a's declared bounds: every integer when the range has
// at most cells integers; otherwise its public values (PublicValues: the
// minimum, the maximum and zero inside the bounds, values many columns
// pile up on: a floor, a cap or top-code, or the "nothing happened" of a
// signed measurement such as Shuttle's V2, 0 in 62 % of rows in
// [−10000, 10000]) each a cell of its own (singleValueEdges), and
// equal-width cells between (for an integer attribute, from one above the
// minimum). So a column that is exactly 0 in 99 % of
// rows, or capped at its maximum in 30 %, keeps that value as a point
// mass, real-valued or integer (on equal-width cells alone a real-valued
// column's zeros, and an integer column's cap, came out 0 % of the
// synthetic rows).
//
// Isolating public values costs nothing: the grid is still a partition
// of the declared range that depends on the schema alone, so one record
// still moves one unit of count from one cell to another (the histogram's
// sensitivity is unchanged), and a single-value cell whose noisy count is
// heavy becomes a point mass (measurement.ChooseCuts), decoded as exactly its value
// (Domain.Decode).
func PublicGrid(a data.Attribute, cells int) []float64 {
	if a.Integer {
		span := int64(a.Max-a.Min) + 1
		if span <= int64(cells) {
			out := make([]float64, span)
			for i := range out {
				out[i] = a.Min + float64(i)
			}
			return out
		}
		out := []float64{a.Min}
		rest := float64(span - 1)
		for k := range cells - 1 {
			v := a.Min + 1 + math.Floor(float64(k)*rest/float64(cells-1))
			if v > out[len(out)-1] {
				out = append(out, v)
			}
		}
		out = append(out, singleValueEdges(a)...)
		slices.Sort(out)
		return slices.Compact(out)
	}
	out := make([]float64, cells)
	w := (a.Max - a.Min) / float64(cells)
	for k := range out {
		out[k] = a.Min + float64(k)*w
	}
	out = append(out, singleValueEdges(a)...)
	slices.Sort(out)
	return slices.Compact(out)
}

// PublicValues are the values of numeric attribute a that are public by
// construction and that many columns pile up on: the declared minimum (a
// floor, "none"), the declared maximum (a cap, a top-code) and zero when
// it lies strictly inside the bounds (the "nothing happened" of a signed
// measurement). They come from the schema alone.
func PublicValues(a data.Attribute) []float64 {
	out := []float64{a.Min}
	if a.Min < 0 && a.Max > 0 {
		out = append(out, 0)
	}
	if a.Max > a.Min {
		out = append(out, a.Max)
	}
	return out
}

// singleValueEdges are the lower edges that make each of a's public
// values (PublicValues) a cell of its own in a lower-edge partition such
// as Options.Cuts, PublicGrid or FineEdges: v and the next value
// above it, v+1 for an integer attribute and math.Nextafter(v, +∞) for a
// continuous one, so the cell [v, next) holds v alone (no float64 lies
// strictly between the two); for the maximum, Max itself, whose cell is
// the last one, [Max, Max]. Domain.Bin, GridCounts and Recoding need
// nothing else to place a value in such a cell (a binary search on the
// lower edges), and the fine cells of ownerstats end at Nextafter(next,
// −∞) = v. A bin or piece holding one value decodes to that value
// (Domain.Decode).
func singleValueEdges(a data.Attribute) []float64 {
	var out []float64
	for _, v := range PublicValues(a) {
		out = append(out, v)
		if v < a.Max {
			out = append(out, nextValue(a, v))
		}
	}
	return out
}

// nextValue is the least value of a above v: v+1 for an integer
// attribute, the next float64 for a continuous one.
func nextValue(a data.Attribute, v float64) float64 {
	if a.Integer {
		return v + 1
	}
	return math.Nextafter(v, math.Inf(1))
}

// FineEdges are the lower edges of the cells a numeric attribute's values
// can be counted in before measurement.ChooseCuts picks its bins: the public grid's
// cells (PublicGrid over grid cells) cut further at the edges of the
// bins equal-width bins measurement.ChooseCuts refines. Every edge measurement.ChooseCuts can
// return is one of them, so a value's bin follows from its fine cell
// (Recoding), and the grid's histogram is the sum of the fine cells'.
// A reader that sees each record once counts fine cells, and the bins
// are chosen afterwards with measurement.ChooseBinsFromFine.
func FineEdges(a data.Attribute, bins, grid int) []float64 {
	if bins == 0 {
		bins = DefaultBins
	}
	if grid == 0 {
		grid = DefaultGrid
	}
	g := PublicGrid(a, grid)
	out := slices.Clone(g)
	for _, r := range gridRuns(a, g, bins) {
		out = append(out, r.edge)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// GridCounts counts values (clamped to a's bounds, rounded for an integer
// attribute) in the cells of grid (PublicGrid's lower edges): the
// histogram measurement.ChooseCuts releases. Owners of rows sum theirs.
func GridCounts(a data.Attribute, grid, values []float64) []float64 {
	counts := make([]float64, len(grid))
	for _, v := range values {
		v = math.Min(math.Max(v, a.Min), a.Max)
		if a.Integer {
			v = math.Round(v)
		}
		i, ok := slices.BinarySearch(grid, v)
		if !ok {
			i--
		}
		counts[i]++
	}
	return counts
}

// BinsFromHistogram turns a noisy histogram of n records over grid
// (PublicGrid(a, ·)'s cells), whose counts carry noise of standard
// deviation sigma each (0: exact counts), into bins refining bins
// equal-width bins over a's bounds (post-processing only; see measurement.ChooseCuts
// and mergeCells). With RefineMeasured the refined edges are the cuts;
// with RefineDecoded the cuts are the equal-width edges and the dominant
// point masses, and every refined edge starts a piece weighing the noisy
// mass of the grid cells whose lower edges it holds (negative counts as
// 0).
func BinsFromHistogram(a data.Attribute, grid, noisy []float64, n float64, bins int, sigma float64, refine Refinement) ChosenBins {
	var public []float64
	if !a.Integer {
		public = PublicValues(a)
	}
	all, coarse := mergeCells(gridRuns(a, grid, bins), grid, noisy, n, bins, sigma, public)
	if cmp.Or(refine, DefaultRefine) != RefineDecoded {
		return ChosenBins{Cuts: all}
	}
	w := make([]float64, len(all))
	for i, c := range noisy {
		p, ok := slices.BinarySearch(all, grid[i])
		if !ok {
			p--
		}
		w[p] += math.Max(c, 0)
	}
	return ChosenBins{Cuts: coarse, Pieces: &Pieces{Edges: all, Weights: w}}
}

// cutZ is how many noise standard deviations a noisy count must clear
// before measurement.ChooseCuts reads a point mass or a finer bin into it. With the
// default 256-cell grid an empty cell's count passes 3.5σ with
// probability 2.3·10⁻⁴, so about 0.06 false point masses per attribute.
// Where 3.5σ is below the data's own thresholds (Adult's and Shuttle's
// training rows at ε ≥ 0.3 with the default 5 % bin share: σ ≤ 230 against
// n/(2·16) ≥ 1 130) the bins are those of the noise-blind rule.
const cutZ = 3.5

// mergeCells turns a noisy histogram over grid cells into bin edges.
//
// The range is first cut at the edges of `bins` equal-width bins over the
// attribute's declared [Min, Max] (runs: the edges np.histogram(x, bins,
// range=(Min, Max)) uses; for an integer attribute the first integer on
// or above each). No adaptive bin crosses one of them: the adaptive bins
// refine the equal-width ones, so drawing a value uniformly inside a bin
// never moves mass from one equal-width bin to another, and a histogram
// read at that resolution keeps what the engine measured. Inside such a
// run, a heavy grid cell (at least half the target n/bins, and cutZ·σ)
// is a bin of its own (among the coarse edges too when it holds at least
// half of its run) (a point mass such as capital-gain's zeros stays a
// single value), and the cells between heavy cells are cut into bins of
// about target records each (one bin when they hold less), but never
// into more than their noisy total can tell apart: k bins need
// T/k ≥ cutZ·σ·√(m/k) for m cells of total T, the noise of a bin of m/k
// cells. A grid cell an equal-width edge falls inside counts toward the
// run holding its lower edge. A heavy cell of one of the values public
// (PublicValues: the minimum, the maximum, 0) is a coarse bin of its own
// whatever its run holds (BinsFromHistogram passes them for a continuous
// attribute only: on Shuttle, all integers, the rule measured a 2-way TVD
// of 0.0100 ± 0.0000 against 0.0080 ± 0.0001 without, one owner, ε = 1,
// 3 seeds).
func mergeCells(runs []run, grid, counts []float64, n float64, bins int, sigma float64, public []float64) (edges, coarse []float64) {
	target := n / float64(bins)
	heavy := math.Max(target/2, cutZ*sigma)
	g := len(grid)
	e := &edgeCuts{edges: []float64{grid[0]}, coarse: []float64{grid[0]}}
	for r, rn := range runs {
		lo, hi, top := rn.first, g, math.Inf(1)
		if r+1 < len(runs) {
			hi, top = runs[r+1].first, runs[r+1].edge
		}
		c := runCells{grid: grid, counts: counts, top: top, target: target, sigma: sigma, public: public}
		e.keep(rn.edge)
		c.cut(e, rn.edge, lo, hi, heavy)
	}
	return e.edges, e.coarse
}

// edgeCuts are the bin edges mergeCells has cut so far, in increasing
// order: all of them, and the coarse ones.
type edgeCuts struct {
	edges, coarse []float64
}

// cut adds v to the edges (if above the last).
func (e *edgeCuts) cut(v float64) {
	if v > e.edges[len(e.edges)-1] {
		e.edges = append(e.edges, v)
	}
}

// keep cuts v among the coarse edges too: an equal-width edge or a
// dominant point mass's ends.
func (e *edgeCuts) keep(v float64) {
	e.cut(v)
	if v > e.coarse[len(e.coarse)-1] {
		e.coarse = append(e.coarse, v)
	}
}

// runCells are the grid cells and noisy counts mergeCells cuts, inside a
// run of cells whose upper edge is top, into bins of about target
// records (sigma the counts' noise).
type runCells struct {
	grid, counts       []float64
	top, target, sigma float64
	// public are the attribute's public values (PublicValues), each a
	// grid cell of its own.
	public []float64
}

// upper is cell i's upper edge inside the run.
func (c runCells) upper(i int) float64 {
	if i+1 < len(c.grid) {
		return math.Min(c.grid[i+1], c.top)
	}
	return c.top
}

// cut cuts the run's cells lo..hi−1 (starting at edge): every heavy cell
// (count at least heavy) a bin of its own, the light cells between them
// spans of about target records.
func (c runCells) cut(e *edgeCuts, edge float64, lo, hi int, heavy float64) {
	// The run's mass is its noisy total, clipped once: clipping each
	// cell's count at 0 first adds about σ/√(2π) a cell, so a run of
	// 16 cells at σ = 365 (zeroinfl at ε = 0.3) read 2 300 records more
	// than it held, and a point mass of 5 257 zeros out of 5 527 records
	// failed "half of its run" in one of three seeds: measured with the
	// amounts next to it and decoded at 48 % zeros against 66 %.
	runMass := 0.0
	for i := lo; i < hi; i++ {
		runMass += c.counts[i]
	}
	runMass = math.Max(runMass, 0)
	start := lo
	for i := lo; i < hi; i++ {
		if c.counts[i] >= heavy {
			c.span(e, start, i)
			// A heavy cell is a coarse bin of its own when it holds most
			// of its equal-width bin (capital-gain's zeros, 97 % of
			// theirs), or when it holds a public value (at most three an
			// attribute): Shuttle's V1 has a cell per integer and a dozen
			// heavy ones in a bin, which as coarse bins would multiply
			// the measured cells for values the pieces draw anyway. The
			// run's mass carries the noise of all its cells, the heavy
			// cell's count only its own: owners of rows at ε = 0.3 (σ =
			// 421 a cell, 17 cells in w_thanks's first bin) read 5 224
			// zeros of 7 016 records as less than half in one seed of
			// three, and decoded them at 40 % zeros against 65 %.
			mark := e.cut
			if c.counts[i] >= runMass/2 || slices.Contains(c.public, c.grid[i]) {
				mark = e.keep
			}
			mark(math.Max(c.grid[i], edge))
			if u := c.upper(i); !math.IsInf(u, 1) {
				mark(u)
			}
			start = i + 1
		}
	}
	c.span(e, start, hi)
}

// span cuts the light cells from..to−1 into bins of about target
// records each (no more than the noise lets one tell apart).
func (c runCells) span(e *edgeCuts, from, to int) {
	mass, total := 0.0, 0.0
	for i := from; i < to; i++ {
		mass += math.Max(c.counts[i], 0)
		total += c.counts[i]
	}
	k := math.Max(1, math.Round(mass/c.target))
	if c.sigma > 0 && to > from {
		k = math.Max(1, math.Min(k, math.Floor(separable(total, c.sigma, to-from))))
	}
	per, acc, made := mass/k, 0.0, 1.0
	for i := from; i < to-1 && made < k; i++ {
		acc += math.Max(c.counts[i], 0)
		if acc >= per*made {
			e.cut(c.upper(i))
			made++
		}
	}
}

// separable is the most bins m cells of noisy total T can be cut into
// with each bin's count cutZ noise deviations clear of zero:
// T/k ≥ cutZ·σ·√(m/k) ⟺ k ≤ T² / (cutZ²·σ²·m) (0 when T ≤ 0).
func separable(total, sigma float64, cells int) float64 {
	if total <= 0 {
		return 0
	}
	return total * total / (cutZ * cutZ * sigma * sigma * float64(cells))
}

// run is one equal-width bin on the grid: the value it starts at and the
// first grid cell whose lower edge is not below that value.
type run struct {
	edge  float64
	first int
}

// gridRuns returns the equal-width bins over a's declared bounds on its
// public grid, in order, starting at grid[0] (fewer than bins when there
// are fewer cells than bins). Bin k starts at Min + k·(Max − Min)/bins,
// for an integer attribute at the first integer on or above that, and is
// snapped to a grid edge within rounding of it.
func gridRuns(a data.Attribute, grid []float64, bins int) []run {
	g := len(grid)
	lo, hi := a.Min, a.Max
	runs := []run{{edge: grid[0]}}
	tol := 1e-9 * (hi - lo)
	for k := 1; k < bins; k++ {
		e := lo + float64(k)*(hi-lo)/float64(bins)
		if a.Integer {
			e = math.Ceil(e - tol)
		}
		i, _ := slices.BinarySearch(grid, e-tol)
		if i < g && math.Abs(grid[i]-e) <= tol {
			e = grid[i]
		}
		if e > runs[len(runs)-1].edge && i < g {
			runs = append(runs, run{edge: e, first: i})
		}
	}
	return runs
}
