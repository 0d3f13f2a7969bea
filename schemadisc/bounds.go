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
// integer product or a correctly rounded quotient of two integers.
var mantissas = []float64{10, 12, 15, 20, 25, 30, 40, 50, 60, 70, 80, 90}

const minDecade, maxDecade = -4, 9

// Grid returns the public bin edges for a numeric column, ascending:
// integer edges only (rounded, deduplicated) for an integer column.
func Grid(integer bool) []float64 {
	edges := []float64{0}
	for k := minDecade; k <= maxDecade; k++ {
		for _, m := range mantissas {
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

// binOf returns the histogram bin of v over edges e: bin 0 is (−∞, e₀),
// bin i is [e_{i−1}, e_i), bin len(e) is [e_last, ∞).
func binOf(edges []float64, v float64) int {
	return sort.Search(len(edges), func(i int) bool { return edges[i] > v })
}

// BoundsResult is what Bounds found for one column.
type BoundsResult struct {
	Min, Max float64
	// Found is false when no bin's noisy count passed the keep threshold
	// at this budget (too few rows for ε): Min and Max are then NaN.
	Found bool
	// NoisyMissing is the released count of missing cells.
	NoisyMissing float64
	// Threshold is the keep threshold in rows.
	Threshold float64
	// Beyond is a cautious estimate of the share of non-missing values
	// outside [Min, Max], which the encoder will clamp: their noisy count
	// less two standard deviations of its noise (post-processing of the
	// same release; for a warning only).
	Beyond float64
	// Spec is the mechanism, for the privacy report.
	Spec dp.Spec
}

// Bounds finds public-grid bounds for a numeric column under ε-DP.
//
// Mechanism: the histogram of the column over the public bins of Grid
// plus one bin for missing cells is released once with discrete Laplace
// noise on a public grid (dp.Noiser.Release with dp.PlanLaplace). Under
// the replace-one relation a changed record moves one cell from one bin
// to another, so the histogram's L1 sensitivity is 2 and the release is
// ε-DP. Everything after is post-processing of the noisy counts and the
// public row count n: bins whose noisy count is below the threshold
// τ = b·ln(bins/failureRate) (b the Laplace scale) are treated as empty,
// so that noise in the many empty bins of an unbounded grid does not
// accumulate into a far-off bound; Min is the lower edge of the first bin
// where the kept counts, summed from below, reach LowerQuantile of the
// noisy number of non-missing cells, Max the upper edge of the first bin
// where they reach it summed from above.
//
// Why not the exponential mechanism over candidate values: on a grid
// without public bounds every candidate below the data has the same
// utility, and there are many of them, so it would often pick one far
// outside the data unless n·ε is large.
func Bounds(n *dp.Noiser, values []float64, missing int, integer bool, eps float64) (BoundsResult, error) {
	edges := Grid(integer)
	counts := make([]float64, len(edges)+2) // bins, then missing
	for _, v := range values {
		counts[binOf(edges, v)]++
	}
	counts[len(counts)-1] = float64(missing)
	const sensitivity = 2
	plan, err := dp.PlanLaplace(sensitivity, eps, len(counts))
	if err != nil {
		return BoundsResult{}, fmt.Errorf("schemadisc: bounds: %w", err)
	}
	n.Release(plan, counts)
	res := BoundsResult{
		Min: math.NaN(), Max: math.NaN(), NoisyMissing: counts[len(counts)-1],
		Threshold: plan.Scale() * math.Log(float64(len(counts))/failureRate),
		Spec: dp.Spec{Mechanism: "discrete laplace histogram on a public log grid", Norm: "L1",
			Sensitivity: sensitivity, Scale: plan.Scale(), Guarantee: dp.Pure(eps)},
	}
	hist := counts[:len(counts)-1]
	total := float64(len(values)+missing) - math.Max(res.NoisyMissing, 0)
	lo, okLo := crossing(hist, res.Threshold, LowerQuantile*total, false)
	hi, okHi := crossing(hist, res.Threshold, (1-UpperQuantile)*total, true)
	if !okLo || !okHi {
		return res, nil
	}
	lower, upper := lowerEdge(edges, lo), upperEdge(edges, hi)
	if upper <= lower { // noise put the crossings out of order: one step up
		upper = upperEdge(edges, binOf(edges, lower))
	}
	if upper > lower {
		res.Min, res.Max, res.Found = lower, upper, true
		res.Beyond = beyond(edges, hist, lower, upper, plan.Scale()) / math.Max(total, 1)
	}
	return res, nil
}

// beyond sums the noisy counts of the bins outside [lower, upper] and
// subtracts two standard deviations of that sum's noise (√2·b per bin).
func beyond(edges, hist []float64, lower, upper, b float64) float64 {
	sum, bins := 0.0, 0
	for i, c := range hist {
		if upperEdge(edges, i) <= lower || lowerEdge(edges, i) >= upper {
			sum += c
			bins++
		}
	}
	return math.Max(sum-2*b*math.Sqrt(2*float64(bins)), 0)
}

// crossing returns the first bin, scanning from the bottom (or the top),
// at which the sum of kept counts (those ≥ keep) reaches target; a bin
// must itself be kept to end the scan.
func crossing(hist []float64, keep, target float64, fromTop bool) (int, bool) {
	sum := 0.0
	for k := range hist {
		i := k
		if fromTop {
			i = len(hist) - 1 - k
		}
		if hist[i] < keep {
			continue
		}
		sum += hist[i]
		if sum >= target {
			return i, true
		}
	}
	return 0, false
}

// lowerEdge is the lower edge of bin i (the grid's lowest edge for the
// open bin below it); upperEdge the upper edge (the highest for the top).
func lowerEdge(edges []float64, i int) float64 { return edges[max(i-1, 0)] }

func upperEdge(edges []float64, i int) float64 { return edges[min(i, len(edges)-1)] }
