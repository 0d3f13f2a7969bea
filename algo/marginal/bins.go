package marginal

import (
	"fmt"
	"math"
	"slices"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// DefaultGrid is the number of cells of the public grid ChooseCuts
// releases a numeric attribute's histogram on.
const DefaultGrid = 256

// CutsOptions configure ChooseCuts.
type CutsOptions struct {
	// Bins is the number of equal-width bins the result refines
	// (default DefaultBins); heavy single grid cells and equal-width bins
	// holding more than about n/Bins records are split, so the result
	// has more (Adult at 16: 16–32 per numeric attribute).
	Bins int
	// Grid is the number of cells of the public grid (default
	// DefaultGrid).
	Grid int
	// Rho is the zCDP cost of the noisy histogram (required).
	Rho float64
	// Accountant is charged Rho before anything is released (required).
	Accountant *privacy.Accountant
	// Source draws the noise (default randx.NewSecure()).
	Source *randx.Source
}

// PublicGrid returns the lower edges of a data-independent grid over
// numeric attribute a's declared bounds: every integer when the range has
// at most cells integers; otherwise, for an integer attribute, the minimum
// alone (a value many columns pile up on, such as a zero) and then
// equal-width cells; for a continuous one, equal-width cells.
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
		return out
	}
	out := make([]float64, cells)
	w := (a.Max - a.Min) / float64(cells)
	for k := range out {
		out[k] = a.Min + float64(k)*w
	}
	return slices.Compact(out)
}

// ChooseCuts picks data-adaptive bins for numeric attribute a from its
// values (one per record): it releases the values' histogram on the
// public grid (PublicGrid) with discrete Gaussian noise on dp's grid
// (Δ₂ = √2 under replace-one: one record leaves one cell for another;
// ρ-zCDP), charged to the accountant first, and then, as post-processing
// of the noisy counts only, cuts the Bins equal-width bins over a's
// declared bounds further: any grid cell that alone holds at least half
// of n/Bins records becomes a bin of its own (a point mass such as
// capital-gain's zeros stays a single value), and the cells between are
// merged into bins of about n/Bins records (see mergeCells). No bin
// crosses an equal-width edge, so a value drawn uniformly inside its bin
// stays in its equal-width bin. The returned edges suit
// DomainOptions.Cuts.
func ChooseCuts(a data.Attribute, values []float64, o CutsOptions) ([]float64, error) {
	if a.Kind != data.Numeric {
		return nil, fmt.Errorf("marginal: cuts for %q: attribute is %s, not numeric", a.Name, a.Kind)
	}
	if len(values) == 0 {
		return nil, fmt.Errorf("marginal: cuts for %q: no values", a.Name)
	}
	if o.Grid == 0 {
		o.Grid = DefaultGrid
	}
	if o.Grid < 2 {
		return nil, fmt.Errorf("marginal: cuts for %q: grid %d, need at least 2 cells", a.Name, o.Grid)
	}
	grid := PublicGrid(a, o.Grid)
	return releaseCuts(a, grid, GridCounts(a, grid, values), float64(len(values)), o)
}

// FineEdges are the lower edges of the cells a numeric attribute's values
// can be counted in before ChooseCuts picks its bins: the public grid's
// cells (PublicGrid over grid cells) cut further at the edges of the
// bins equal-width bins ChooseCuts refines. Every edge ChooseCuts can
// return is one of them, so a value's bin follows from its fine cell
// (Recoding), and the grid's histogram is the sum of the fine cells'.
// A reader that sees each record once counts fine cells, and the bins
// are chosen afterwards with ChooseCutsFromFine.
func FineEdges(a data.Attribute, bins, grid int) []float64 {
	if bins == 0 {
		bins = DefaultBins
	}
	if grid == 0 {
		grid = DefaultGrid
	}
	g := PublicGrid(a, grid)
	out := slices.Clone(g)
	for _, r := range gridRuns(g, bins) {
		out = append(out, r.edge)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ChooseCutsFromFine is ChooseCuts from the counts of a's values in the
// cells of FineEdges(a, o.Bins, o.Grid) instead of the values: the same
// release, the same edges.
func ChooseCutsFromFine(a data.Attribute, counts []float64, o CutsOptions) ([]float64, error) {
	if o.Grid == 0 {
		o.Grid = DefaultGrid
	}
	if o.Grid < 2 {
		return nil, fmt.Errorf("marginal: cuts for %q: grid %d, need at least 2 cells", a.Name, o.Grid)
	}
	fine := FineEdges(a, o.Bins, o.Grid)
	if len(counts) != len(fine) {
		return nil, fmt.Errorf("marginal: cuts for %q: %d counts for %d fine cells", a.Name, len(counts), len(fine))
	}
	grid := PublicGrid(a, o.Grid)
	gc := make([]float64, len(grid))
	n := 0.0
	for f, c := range counts {
		i, ok := slices.BinarySearch(grid, fine[f])
		if !ok {
			i--
		}
		gc[i] += c
		n += c
	}
	if n == 0 {
		return nil, fmt.Errorf("marginal: cuts for %q: no values", a.Name)
	}
	return releaseCuts(a, grid, gc, n, o)
}

// releaseCuts releases the grid histogram counts of n values and turns it
// into edges (ChooseCuts).
func releaseCuts(a data.Attribute, grid, counts []float64, n float64, o CutsOptions) ([]float64, error) {
	if a.Kind != data.Numeric {
		return nil, fmt.Errorf("marginal: cuts for %q: attribute is %s, not numeric", a.Name, a.Kind)
	}
	if o.Bins == 0 {
		o.Bins = DefaultBins
	}
	if o.Bins < 1 || o.Accountant == nil {
		return nil, fmt.Errorf("marginal: cuts for %q: bins %d, accountant set %v", a.Name, o.Bins, o.Accountant != nil)
	}
	if o.Source == nil {
		o.Source = randx.NewSecure()
	}
	noise, err := Calibrate(Gaussian, CountL1, CountL2, o.Rho)
	if err != nil {
		return nil, err
	}
	r := Release{Purpose: "bins of " + a.Name, Parties: []int{0}, Noise: noise}
	if err := o.Accountant.Spend(r.Charge()); err != nil {
		return nil, fmt.Errorf("marginal: %w", err)
	}
	noise.Release(dp.NewNoiser(o.Source), counts)
	return CutsFromHistogram(grid, counts, n, o.Bins), nil
}

// GridCounts counts values (clamped to a's bounds, rounded for an integer
// attribute) in the cells of grid (PublicGrid's lower edges): the
// histogram ChooseCuts releases. Owners of rows sum theirs.
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

// CutsFromHistogram turns a noisy histogram over grid cells of n records
// into bin edges refining bins equal-width bins (post-processing only;
// see ChooseCuts and mergeCells).
func CutsFromHistogram(grid, noisy []float64, n float64, bins int) []float64 {
	return mergeCells(grid, noisy, n, bins)
}

// mergeCells turns a noisy histogram over grid cells into bin edges.
//
// The range is first cut at the edges of `bins` equal-width bins over the
// attribute's declared [Min, Max] (the edges np.histogram(x, bins,
// range=(Min, Max)) uses; for an integer attribute the first integer on
// or above each), which the grid tells (gridRuns). No adaptive bin
// crosses one of them: the adaptive bins refine the equal-width ones, so
// drawing a value uniformly inside a bin never moves mass from one
// equal-width bin to another, and a histogram read at that resolution
// keeps what the engine measured. Inside such a run, a heavy grid cell
// (at least half the target n/bins) is a bin of its own (a point mass
// such as capital-gain's zeros stays a single value), and the cells
// between heavy cells are cut into bins of about target records each
// (one bin when they hold less). A grid cell an equal-width edge falls
// inside counts toward the run holding its lower edge.
func mergeCells(grid, counts []float64, n float64, bins int) []float64 {
	target := n / float64(bins)
	g := len(grid)
	runs := gridRuns(grid, bins)
	edges := []float64{grid[0]}
	cut := func(v float64) {
		if v > edges[len(edges)-1] {
			edges = append(edges, v)
		}
	}
	for r, run := range runs {
		lo, hi, top := run.first, g, math.Inf(1)
		if r+1 < len(runs) {
			hi, top = runs[r+1].first, runs[r+1].edge
		}
		// upper is cell i's upper edge inside the run.
		upper := func(i int) float64 {
			if i+1 < g {
				return math.Min(grid[i+1], top)
			}
			return top
		}
		// span cuts the light cells from..to−1 into bins of about target
		// records each.
		span := func(from, to int) {
			mass := 0.0
			for i := from; i < to; i++ {
				mass += math.Max(counts[i], 0)
			}
			k := math.Max(1, math.Round(mass/target))
			per, acc, made := mass/k, 0.0, 1.0
			for i := from; i < to-1 && made < k; i++ {
				acc += math.Max(counts[i], 0)
				if acc >= per*made {
					cut(upper(i))
					made++
				}
			}
		}
		cut(run.edge)
		start := lo
		for i := lo; i < hi; i++ {
			if math.Max(counts[i], 0) >= target/2 {
				span(start, i)
				cut(math.Max(grid[i], run.edge))
				if u := upper(i); !math.IsInf(u, 1) {
					cut(u)
				}
				start = i + 1
			}
		}
		span(start, hi)
	}
	return edges
}

// run is one equal-width bin on the grid: the value it starts at and the
// first grid cell whose lower edge is not below that value.
type run struct {
	edge  float64
	first int
}

// gridRuns returns the equal-width bins over the range the grid covers,
// in order, starting at grid[0] (fewer than bins when there are fewer
// cells than bins). PublicGrid's lower edges tell the range: consecutive
// integers are an integer attribute with one cell per value, Min to the
// last edge; the minimum alone followed by cells of integers splitting
// Max − Min equally, some wider than one, an integer attribute whose Max
// is recovered by regenerating the grid; equally spaced edges otherwise
// a continuous attribute, Min to the last edge plus the width. Bin k starts
// at Min + k·(Max − Min)/bins, for an integer attribute at the first
// integer on or above that.
func gridRuns(grid []float64, bins int) []run {
	g := len(grid)
	lo, hi := grid[0], grid[g-1]
	integer := false
	switch {
	case g < 2:
	case grid[1] == lo+1 && lo == math.Trunc(lo) && hi-lo == float64(g-1):
		// One cell per value. (A span of exactly cells + 1 integers gives
		// the same grid with Max in the last cell: the edges are then
		// those of [Min, Max − 1].)
		integer = true
	case grid[1] == lo+1 && lo == math.Trunc(lo) && hi-lo > float64(g-1) && g >= 3:
		integer = true
		hi = lo + minAloneRest(grid)
	default:
		hi += grid[g-1] - grid[g-2]
	}
	runs := []run{{edge: lo}}
	tol := 1e-9 * (hi - lo)
	for k := 1; k < bins; k++ {
		e := lo + float64(k)*(hi-lo)/float64(bins)
		if integer {
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

// minAloneRest returns Max − Min of an integer attribute whose PublicGrid
// is the minimum alone followed by cells splitting Max − Min equally:
// grid[k+1] = Min + 1 + ⌊k·(Max − Min)/(g − 1)⌋.
func minAloneRest(grid []float64) float64 {
	g := len(grid)
	lo := grid[0]
	last := grid[g-1] - lo - 1
	guess := math.Ceil(last * float64(g-1) / float64(g-2))
	for _, rest := range []float64{guess, guess + 1, guess - 1} {
		ok := true
		for k := 0; k+1 < g && ok; k++ {
			ok = grid[k+1] == lo+1+math.Floor(float64(k)*rest/float64(g-1))
		}
		if ok {
			return rest
		}
	}
	return guess
}
