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
	// Bins is the number of bins aimed at (default DefaultBins); heavy
	// single grid cells become bins of their own, so the result may have
	// a few more.
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
// of the noisy counts only, merges adjacent grid cells left to right into
// bins of about n/Bins records each, keeping any grid cell that alone
// holds at least half that as a bin of its own (a point mass such as
// capital-gain's zeros stays a single value). The returned edges suit
// DomainOptions.Cuts.
func ChooseCuts(a data.Attribute, values []float64, o CutsOptions) ([]float64, error) {
	if a.Kind != data.Numeric {
		return nil, fmt.Errorf("marginal: cuts for %q: attribute is %s, not numeric", a.Name, a.Kind)
	}
	if o.Bins == 0 {
		o.Bins = DefaultBins
	}
	if o.Grid == 0 {
		o.Grid = DefaultGrid
	}
	if o.Bins < 1 || o.Grid < 2 || o.Accountant == nil || len(values) == 0 {
		return nil, fmt.Errorf("marginal: cuts for %q: bins %d, grid %d, accountant set %v, %d values", a.Name, o.Bins, o.Grid, o.Accountant != nil, len(values))
	}
	if o.Source == nil {
		o.Source = randx.NewSecure()
	}
	noise, err := Calibrate(Gaussian, CountL1, CountL2, o.Rho)
	if err != nil {
		return nil, err
	}
	grid := PublicGrid(a, o.Grid)
	counts := GridCounts(a, grid, values)
	r := Release{Purpose: "bins of " + a.Name, Parties: []int{0}, Noise: noise}
	if err := o.Accountant.Spend(r.Charge()); err != nil {
		return nil, fmt.Errorf("marginal: %w", err)
	}
	noise.Release(dp.NewNoiser(o.Source), counts)
	return CutsFromHistogram(grid, counts, float64(len(values)), o.Bins), nil
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
// into about bins bin edges (post-processing only; see ChooseCuts).
func CutsFromHistogram(grid, noisy []float64, n float64, bins int) []float64 {
	return mergeCells(grid, noisy, n, bins)
}

// mergeCells turns a noisy histogram over grid cells into bin edges.
func mergeCells(grid, counts []float64, n float64, bins int) []float64 {
	target := n / float64(bins)
	edges := []float64{grid[0]}
	acc := 0.0
	for i, c := range counts {
		c = math.Max(c, 0)
		if c >= target/2 {
			// A heavy cell: close the bin before it, and make it one.
			edges = append(edges, grid[i])
			if i+1 < len(grid) {
				edges = append(edges, grid[i+1])
			}
			acc = 0
			continue
		}
		acc += c
		if acc >= target && i+1 < len(grid) {
			edges = append(edges, grid[i+1])
			acc = 0
		}
	}
	return slices.Compact(edges)
}
