package marginal

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/infer"
	"github.com/dppub/dppub/engine/marginal/measurement"
)

// OneWayGridCells is the most public grid cells (PublicGrid) a numeric
// attribute may have for its bins to come from its one-way marginal
// (OneWayFirst). Its bins sum about a grid cell each or merge light
// values, so a bin's variance stays near a cell's where it matters.
const OneWayGridCells = 2 * domain.DefaultBins

// OneWayFirst reports whether numeric attribute a's one-way marginal is
// released once on its public grid, at the engine's one-way budget, to
// choose its bins and, summed into them, to serve the model as the
// attribute's one-way measurement (MST's order: McKenna, Miklau & Sheldon
// 2021 measure every one-way marginal first and merge the values whose
// noisy count is below 3σ). An integer attribute of at most
// OneWayGridCells values qualifies: its grid is a cell per value. At a
// small budget the bins' own release at DefaultBinShare carried 3.5 times
// the one-way noise (`digits` at ε = 0.3: σ = 440 per value against 1 150
// records), too much to tell its light values from its heavy ones
// (docs/results/synthesis/wide-vs-mst.md).
func OneWayFirst(a data.Attribute) bool {
	return a.Kind == data.Numeric && a.Integer && len(domain.PublicGrid(a, domain.DefaultGrid)) <= OneWayGridCells
}

// OneWayRelease is attribute Attr's histogram released on its public
// grid at the rounds' one-way budget (OneWayFirst), before the bins it
// chose made the engine's domain.
type OneWayRelease struct {
	Attr int
	Grid measurement.GridRelease
}

// BinnedOneWays is binnedOneWay of every release, in their order: the
// engine's AdaptiveOptions.Premeasured.
func BinnedOneWays(d *domain.Domain, rs []OneWayRelease) ([]Premeasured, error) {
	out := make([]Premeasured, len(rs))
	for i, r := range rs {
		var err error
		if out[i], err = binnedOneWay(d, r.Attr, r.Grid); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// binnedOneWay sums attribute j's released grid histogram into its bins
// in d: the engine's one-way measurement of j, whose bin of k grid cells
// carries k times a cell's variance (post-processing of the release).
func binnedOneWay(d *domain.Domain, j int, g measurement.GridRelease) (Premeasured, error) {
	mg, err := domain.NewMarginal(d.Sizes(), []int{j})
	if err != nil {
		return Premeasured{}, err
	}
	cells := make([]float64, len(mg.Counts))
	for i, lo := range g.Grid {
		b, _ := d.Bin(j, lo)
		mg.Counts[b] += g.Counts[i]
		cells[b]++
	}
	v := g.Release.Noise.Variance()
	n := &infer.Noisy{Marginal: mg, Variance: v}
	if slices.ContainsFunc(cells, func(k float64) bool { return k != 1 }) {
		n.CellVariance = make([]float64, len(cells))
		for b, k := range cells {
			n.CellVariance[b] = max(k, 1) * v
		}
	}
	return Premeasured{Noisy: n, Release: g.Release}, nil
}

// OneWayAssumption is the privacy report's sentence on the attributes
// whose bins came from their one-way marginals (OneWayFirst), each
// released at rho with L2 sensitivity l2.
func OneWayAssumption(names []string, l2, rho float64) string {
	return fmt.Sprintf("the bins of %d small integer attributes (%s) were chosen from their one-way marginals, each released once on its public grid (a cell per value; discrete Gaussian, L2 sensitivity %.4g, ρ = %.4g each, the adaptive rounds' one-way budget) and merged where light as post-processing; the same release, summed into the bins, is the rounds' one-way measurement of the attribute (MST's order: McKenna, Miklau & Sheldon 2021)",
		len(names), listNames(names, 8), l2, rho)
}

// listNames joins names, the first most of them and an ellipsis when
// there are more.
func listNames(names []string, most int) string {
	if len(names) > most {
		return strings.Join(names[:most], ", ") + ", …"
	}
	return strings.Join(names, ", ")
}
