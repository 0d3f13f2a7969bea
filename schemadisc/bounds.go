package schemadisc

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/dppub/dppub/dp"
)

// LowerQuantile and UpperQuantile are the quantiles Bounds aims at: the
// rarest 0.5% of values at either end are clamped by the encoder rather
// than stretching the bounds (and with them every mechanism's noise).
const (
	LowerQuantile = 0.005
	UpperQuantile = 0.995
)

// failureRate is the chance, per column, that noise alone lifts an empty
// bin of the public grid over the keep threshold (which would put a bound
// far outside the data). It is a utility figure, not a privacy one.
const failureRate = 1e-3

// mantissas and the decade range define the public grid: 0 and
// ±m·10^k for k in [minDecade, maxDecade]. It spans 10⁻⁴ to 9·10⁹ with
// steps of at most 25% of the value, and depends on nothing private.
// They are written as tenths (12 for 1.2) so that every edge is an exact
// integer product or a correctly rounded quotient of two integers. The
// coarser grids (3 and 1 steps a decade) are subsets, for budgets that
// cannot resolve the fine one.
var mantissas = map[int][]float64{
	12: {10, 12, 15, 20, 25, 30, 40, 50, 60, 70, 80, 90},
	3:  {10, 20, 50},
	1:  {10},
}

const minDecade, maxDecade = -4, 9

// Grid returns the finest public bin edges for a numeric column,
// ascending (see GridAt).
func Grid(integer bool) []float64 { return GridAt(12, integer) }

// GridAt returns the public bin edges at perDecade (12, 3 or 1) steps a
// decade, ascending: integer edges only (rounded, deduplicated) for an
// integer column. 0 is always an edge.
func GridAt(perDecade int, integer bool) []float64 {
	ms, ok := mantissas[perDecade]
	if !ok {
		panic(fmt.Sprintf("schemadisc: no grid with %d steps a decade", perDecade))
	}
	edges := []float64{0}
	for k := minDecade; k <= maxDecade; k++ {
		for _, m := range ms {
			v := m * math.Pow10(k-1)
			if k-1 < 0 {
				v = m / math.Pow10(1-k)
			}
			if integer {
				v = math.Round(v)
			}
			edges = append(edges, v, -v)
		}
	}
	sort.Float64s(edges)
	return slices.Compact(edges)
}

// histogramBins is the number of released counts of a column's histogram
// on the grid with perDecade steps (decimal grid, the larger one).
func histogramBins(perDecade int) int { return len(GridAt(perDecade, false)) + 3 }

// keepThreshold is the noisy count an empty bin among bins exceeds with
// probability at most failureRate: σ·√(2 ln(bins/failureRate)), from the
// sub-Gaussian tail of the discrete Gaussian (Canonne, Kamath & Steinke
// 2020, Cor. 9) and a union bound.
func keepThreshold(sigma float64, bins int) float64 {
	return sigma * math.Sqrt(2*math.Log(float64(bins)/failureRate))
}

// BoundsResult is what Bounds found for one column.
type BoundsResult struct {
	Min, Max float64
	// Found is false when no usable bound was found at this budget (too
	// few rows, or values beyond a point mass that the noise hides): Min
	// and Max are then NaN and Why says which.
	Found bool
	Why   string
	// Rough is true when the upper (or lower) bound was placed a decade
	// beyond the values' most likely place because they were too few to
	// resolve at this budget.
	Rough bool
	// NoisyMissing is the released count of missing cells.
	NoisyMissing float64
	// Threshold is the keep threshold in rows.
	Threshold float64
	// Beyond is the estimated share of non-missing values outside [Min,
	// Max], which the encoder will clamp, and BeyondSD its standard
	// deviation (post-processing of the same release: the non-missing
	// count less the noisy counts of the bins inside the bounds).
	Beyond, BeyondSD float64
	// Spec is the mechanism, for the privacy report.
	Spec dp.Spec
}

// histogram is a column's noisy histogram on a public grid: intervals
// (−∞, e₀), [e₀, e₁), …, [e_last, ∞) with the interval starting at 0
// made open ((0, e)), a bin for exact zeros, and one for missing cells.
type histogram struct {
	edges []float64
	// y holds the noisy counts: intervals, then zeros, then missing.
	y []float64
	// asc lists the value bins (intervals and zeros) in value order.
	asc   []int
	sigma float64
	// rows is the public row count; rho the zCDP cost of the counts.
	rows, rho float64
	// keep is the keep threshold; total the noisy non-missing count.
	keep, total float64
}

func (h *histogram) zeroBin() int    { return len(h.edges) + 1 }
func (h *histogram) missingBin() int { return len(h.edges) + 2 }

func (h *histogram) binOf(v float64) int {
	if v == 0 {
		return h.zeroBin()
	}
	return sort.Search(len(h.edges), func(i int) bool { return h.edges[i] > v })
}

// lo and hi are the value range of bin b (the grid's end edges for the
// open end bins; 0 for the zero bin).
func (h *histogram) lo(b int) float64 {
	if b == h.zeroBin() {
		return 0
	}
	return h.edges[max(b-1, 0)]
}

func (h *histogram) hi(b int) float64 {
	if b == h.zeroBin() {
		return 0
	}
	return h.edges[min(b, len(h.edges)-1)]
}

func newHistogram(edges []float64) *histogram {
	h := &histogram{edges: edges, y: make([]float64, len(edges)+3)}
	zero := slices.Index(edges, 0)
	for b := 0; b <= zero; b++ {
		h.asc = append(h.asc, b)
	}
	h.asc = append(h.asc, h.zeroBin())
	for b := zero + 1; b <= len(edges); b++ {
		h.asc = append(h.asc, b)
	}
	return h
}

// Bounds finds public-grid bounds for a numeric column, releasing one
// histogram with discrete Gaussian noise of scale sigma (before the
// grid's rounding slack) on the public grid with perDecade steps.
//
// Mechanism: the histogram of the column over the public bins plus a bin
// for exact zeros and one for missing cells is released once through a
// dp.Noiser (dp.PlanGaussian). Under the replace-one relation a changed
// record moves one cell from one bin to another, so the L2 sensitivity is
// √2 and the release is ρ-zCDP with ρ = 1/σ². Everything after is
// post-processing of the noisy counts and the public row count n:
//
//   - bins whose noisy count is below the keep threshold τ (keepThreshold)
//     are treated as empty, so that noise in the many empty bins of an
//     unbounded grid does not accumulate into a far-off bound;
//   - Max is the upper edge of the first bin, from the top, where the kept
//     counts reach 1 − UpperQuantile of the noisy non-missing count, moved
//     up over adjacent bins whose noisy counts are over 2σ (values just
//     above a bin that passed, too few to pass on their own), the first
//     step also when the next bin may hold 4.5% of the rows (margin: a
//     bound a bin too wide clamps nothing, one too narrow clamps 5%);
//     Min likewise from the bottom;
//   - a bound that lands on the zero bin (the exact zeros of a sparse
//     column) while the estimated count beyond it is over the target is
//     not kept there: the bins beyond are searched for the values' most
//     likely place (the largest noisy count of one bin or two adjacent
//     ones, erring outwards: a window further out within locateSlack
//     deviations of the best is taken), and the bound is set one decade
//     beyond it (Rough). It stays at 0 only when no window passes
//     locateScore deviations and the 95% quantile is 0 with stayZ
//     deviations to spare.
//
// Discover measures a column in two rounds (see measureNumeric) and
// reads the bounds off the noise-weighted average; Bounds is one round.
//
// Why not the exponential mechanism over candidate values: on a grid
// without public bounds every candidate below the data has the same
// utility, and there are many of them, so it would often pick one far
// outside the data unless n·ε is large.
func Bounds(n *dp.Noiser, values []float64, missing int, integer bool, sigma float64, perDecade int) (BoundsResult, error) {
	h, err := releaseHistogram(n, values, missing, integer, sigma, perDecade)
	if err != nil {
		return BoundsResult{}, err
	}
	return h.bounds(), nil
}

// histogramSensitivity is the L2 sensitivity of a column's histogram
// under the replace-one relation: one count down, one up.
const histogramSensitivity = math.Sqrt2

// releaseHistogram counts values (and missing cells) on the public grid
// and releases the counts once with discrete Gaussian noise of scale
// sigma (ρ = 1/σ², zCDP).
func releaseHistogram(n *dp.Noiser, values []float64, missing int, integer bool, sigma float64, perDecade int) (*histogram, error) {
	h := newHistogram(GridAt(perDecade, integer))
	for _, v := range values {
		h.y[h.binOf(v)]++
	}
	h.y[h.missingBin()] = float64(missing)
	plan, err := dp.PlanGaussian(histogramSensitivity, sigma, len(h.y))
	if err != nil {
		return nil, fmt.Errorf("schemadisc: bounds: %w", err)
	}
	n.Release(plan, h.y)
	h.rows = float64(len(values) + missing) // public n
	h.setSigma(plan.Scale())
	h.rho = 1 / (sigma * sigma)
	return h, nil
}

// setSigma sets the noise scale and what follows from it.
func (h *histogram) setSigma(s float64) {
	h.sigma = s
	h.keep = keepThreshold(h.sigma, len(h.y))
	h.total = math.Max(h.rows-math.Max(h.y[h.missingBin()], 0), 1)
}

// merge combines a second release of the same counts into h, weighting
// each by the inverse of its noise variance (post-processing: the
// combined count is unbiased with variance 1/(1/s₁² + 1/s₂²), and
// sub-Gaussian with that variance, so the keep threshold still holds).
func (h *histogram) merge(o *histogram) {
	w1, w2 := 1/(h.sigma*h.sigma), 1/(o.sigma*o.sigma)
	for b := range h.y {
		h.y[b] = (w1*h.y[b] + w2*o.y[b]) / (w1 + w2)
	}
	h.rho += o.rho
	h.setSigma(1 / math.Sqrt(w1+w2))
}

// bounds reads the bounds off a released histogram (post-processing).
func (h *histogram) bounds() BoundsResult {
	res := BoundsResult{
		Min: math.NaN(), Max: math.NaN(), NoisyMissing: h.y[h.missingBin()], Threshold: h.keep,
		Spec: dp.Spec{Mechanism: "discrete gaussian histogram on a public log grid", Norm: "L2",
			Sensitivity: histogramSensitivity, Scale: h.sigma, Guarantee: dp.Concentrated(h.rho)},
	}
	lo, okLo := h.crossing(LowerQuantile*h.total, false)
	hi, okHi := h.crossing((1-UpperQuantile)*h.total, true)
	if !okLo || !okHi {
		res.Why = fmt.Sprintf("no grid bin reached %.0f noisy rows", h.keep)
		return res
	}
	if hi < lo { // noise put the crossings out of order
		lo, hi = hi, lo
	}
	hi, roughHi := h.pastPointMass(lo, hi, true)
	lo, roughLo := h.pastPointMass(lo, hi, false)
	if !roughHi {
		hi = h.margin(hi, true)
	}
	if !roughLo {
		lo = h.margin(lo, false)
	}
	res.Min, res.Max = h.lo(h.asc[lo]), h.hi(h.asc[hi])
	if roughHi {
		res.Max = h.decadeBeyond(res.Max, true)
	}
	if roughLo {
		res.Min = h.decadeBeyond(res.Min, false)
	}
	if res.Max <= res.Min { // a single point: one grid step up
		res.Max = h.edges[min(sort.SearchFloat64s(h.edges, res.Min+math.SmallestNonzeroFloat64), len(h.edges)-1)]
		if res.Max <= res.Min {
			res.Why = "the values sit at one point on the grid's edge"
			return res
		}
	}
	res.Found, res.Rough = true, roughHi || roughLo
	res.Beyond, res.BeyondSD = h.outside(res.Min, res.Max)
	return res
}

// crossing returns the position in asc of the first bin, scanning from
// the bottom (or the top), at which the sum of kept counts reaches
// target (margin then moves it outwards over bins that may hold values).
func (h *histogram) crossing(target float64, fromTop bool) (int, bool) {
	sum, found, pos := 0.0, false, 0
	for k := range h.asc {
		pos = k
		if fromTop {
			pos = len(h.asc) - 1 - k
		}
		if c := h.y[h.asc[pos]]; c >= h.keep {
			if sum += c; sum >= target {
				found = true
				break
			}
		}
	}
	if !found {
		return 0, false
	}
	return pos, true
}

// extend moves pos outwards (up if up) while the next bin's count
// exceeds 2σ: values just beyond a kept bin are more likely there than
// noise is (2.3% per empty bin, and then the bound is one step wider).
// It never moves from or onto the zero bin: what lies beyond a point mass
// is pastPointMass's question.
func (h *histogram) extend(pos int, up bool) int {
	step := -1
	if up {
		step = 1
	}
	for next := pos + step; next >= 0 && next < len(h.asc); next += step {
		if h.asc[pos] == h.zeroBin() || h.asc[next] == h.zeroBin() || h.y[h.asc[next]] <= 2*h.sigma {
			break
		}
		pos = next
	}
	return pos
}

// pointMassHides is true when the upper crossing lands on the zero bin:
// values above a point mass at 0 too few to show at this noise, whose
// place the bound must guess (pastPointMass).
func (h *histogram) pointMassHides() bool {
	hi, ok := h.crossing((1-UpperQuantile)*h.total, true)
	return ok && h.asc[hi] == h.zeroBin()
}

// Tuning of the search past a point mass (see pastPointMass), measured on
// zero-inflated tables (TestMeasureSparseBounds): a window must score
// locateScore deviations to count as found; one further out within
// locateSlack deviations of the best is taken instead (erring outwards);
// without a found window the bound stays at 0 only when the estimate
// beyond is stayZ deviations under 5% of the rows. Variables so that the
// measurement can vary them.
var (
	locateScore = 3.0
	locateSlack = 1.0
	stayZ       = marginZ
)

// pastPointMass checks an upper (or lower) crossing on the zero bin, the
// point mass of sparse columns: when the estimated count beyond it
// exceeds its target, values lie beyond that no bin showed on its own,
// and the bound moves a decade past where they most likely are (rough).
// The estimate (the noisy non-missing count less the counts inside and
// the kept counts on the other side) has a standard deviation of
// σ√(bins + 1). When no window beyond shows the values (locateScore), the
// bound stays at 0 only if the 95% quantile is 0 with stayZ deviations
// to spare; otherwise the best guess is taken, since a bound too wide
// clamps nothing and one at 0 would clamp every value beyond. Crossings
// elsewhere are left to margin and the clamped-share estimate, since a
// search over the many bins beyond finds noise there as often as values.
func (h *histogram) pastPointMass(lo, hi int, upper bool) (int, bool) {
	beyond, sd := h.beyondPointMass(lo, hi, upper)
	target := (1 - UpperQuantile) * h.total
	// The estimate cannot tell the two sides apart (both are what the
	// inside bins leave over). Values above a point mass at 0 are the
	// common case (counts, amounts, frequencies), so the upper side
	// claims it; the lower side only when its bins sum to significantly
	// more than the upper side's (else noise in its many empty bins would
	// put a lower bound at −10⁹ on non-negative data).
	side, far, at := h.asc[hi+1:], h.asc[:lo], hi
	if !upper {
		side, far, at = h.asc[:lo], h.asc[hi+1:], lo
	}
	if h.asc[at] != h.zeroBin() || beyond <= target || len(side) == 0 || !upper && !h.dominates(side, far) {
		return at, false
	}
	pos, score := h.locate(side, upper)
	if score <= locateScore && beyond+stayZ*sd <= (1-clampQuantile)*h.total {
		return at, false
	}
	if upper {
		return h.extend(hi+1+pos, true), true
	}
	return h.extend(pos, false), true
}

// beyondPointMass estimates the count beyond the bins from lo to hi
// (positions in asc) on the upper side (or the lower): the noisy
// non-missing count less the counts inside and the kept counts on the
// other side; and its standard deviation.
func (h *histogram) beyondPointMass(lo, hi int, upper bool) (float64, float64) {
	inside := 0.0
	for _, b := range h.asc[lo : hi+1] {
		inside += h.y[b]
	}
	other := 0.0
	for k, b := range h.asc {
		if (upper && k < lo || !upper && k > hi) && h.y[b] >= h.keep {
			other += h.y[b]
		}
	}
	return h.total - inside - other, h.sigma * math.Sqrt(float64(hi-lo+2))
}

// margin moves a crossing at pos outwards over the bins beyond that may
// hold values (extend). The first step is also taken when the next bin
// may hold enough values to put the 95% (or 5%) quantile beyond it: a
// bin holding 4.5% of the rows is moved over except with probability
// below 10⁻⁴, however few rows that is in units of the noise. A bound too
// wide by a bin clamps nothing; one too narrow clamps 5% or more. On
// many rows that test is extend's own (2σ), and the margin costs nothing.
func (h *histogram) margin(pos int, up bool) int {
	step := 1
	if !up {
		step = -1
	}
	next := pos + step
	if next < 0 || next >= len(h.asc) || h.asc[next] == h.zeroBin() || h.asc[pos] == h.zeroBin() {
		return pos
	}
	threshold := math.Min(2*h.sigma, 0.045*h.total-marginZ*h.sigma)
	if h.y[h.asc[next]] <= threshold {
		return pos
	}
	return h.extend(next, up)
}

// clampQuantile is the quantile a bound must never fall inside (the
// issue's promise: at most 5% of a column's values clamped).
const clampQuantile = 0.95

// marginZ is the normal quantile of 10⁻⁴.
const marginZ = 3.72

// locate returns the position in side of the bin most likely to hold
// values, and its score: the largest noisy count of one bin, or of two
// adjacent bins (in units of their noise; the position of the one further
// out, up if up). Erring outwards, a window further out is taken when its
// score is within locateSlack of the best: a bound a decade too wide
// clamps nothing, one too narrow clamps every value beyond it.
func (h *histogram) locate(side []int, up bool) (int, float64) {
	type window struct {
		pos   int
		score float64
	}
	var ws []window
	for k := range side {
		ws = append(ws, window{k, h.y[side[k]] / h.sigma})
		if k > 0 {
			pos := k
			if !up {
				pos = k - 1
			}
			ws = append(ws, window{pos, (h.y[side[k]] + h.y[side[k-1]]) / (h.sigma * math.Sqrt2)})
		}
	}
	best := 0.0
	for _, w := range ws {
		best = math.Max(best, w.score)
	}
	pos, found := 0, false
	for _, w := range ws {
		if w.score >= best-locateSlack && w.score > 0 {
			if !found || up && w.pos > pos || !up && w.pos < pos {
				pos, found = w.pos, true
			}
		}
	}
	return pos, best
}

// dominates: the bins of a sum to more than those of b by two
// deviations of the difference.
func (h *histogram) dominates(a, b []int) bool {
	return h.sum(a)-h.sum(b) > 2*h.sigma*math.Sqrt(float64(len(a)+len(b)))
}

// sum is the noisy count of bins.
func (h *histogram) sum(bins []int) float64 {
	t := 0.0
	for _, b := range bins {
		t += h.y[b]
	}
	return t
}

// decadeBeyond moves a bound one decade outwards (up if up), keeping it
// on the grid.
func (h *histogram) decadeBeyond(v float64, up bool) float64 {
	if v == 0 {
		return v
	}
	w := v * 10
	if (v > 0) != up {
		w = v / 10
	}
	i := sort.SearchFloat64s(h.edges, w)
	if up {
		return h.edges[min(i, len(h.edges)-1)]
	}
	if i < len(h.edges) && h.edges[i] == w {
		return w
	}
	return h.edges[max(i-1, 0)]
}

// outside estimates the share of non-missing values outside [lo, hi]:
// the noisy non-missing count less the noisy counts of the bins inside,
// and its standard deviation.
func (h *histogram) outside(lo, hi float64) (share, sd float64) {
	inside, bins := 0.0, 1
	for _, b := range h.asc {
		if h.lo(b) >= lo && h.hi(b) <= hi {
			inside += h.y[b]
			bins++
		}
	}
	return math.Max(h.total-inside, 0) / h.total, h.sigma * math.Sqrt(float64(bins)) / h.total
}
