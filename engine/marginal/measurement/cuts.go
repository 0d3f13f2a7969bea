package measurement

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

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
	// Refine says what the finer bins are for (ChooseBinsFromFine;
	// default DefaultRefine; ChooseCuts returns the measured bins of
	// RefineMeasured whatever this says).
	Refine domain.Refinement
	// Neighbours is the relation the histogram's noise follows (default
	// replace-one: Δ₂ = √2; add/remove: Δ₂ = 1).
	Neighbours dp.Neighbours
	// Records is the public record count the bins aim at (about
	// Records/Bins records each) under add/remove, where the values'
	// count is private: the released noisy count (ReleaseCount). Required
	// then; unused under replace-one, where the count of values is public.
	Records float64
	// Floor, when positive, is the count below which a measured bin is
	// merged with its light neighbours (domain.Coarsen): the noise per
	// cell of the engine's later measurements times a public factor
	// (domain.CoarsenFloor). Zero keeps the bins BinsFromHistogram chooses.
	Floor float64
	// Purpose names the release in the accountant (default "bins of
	// <attribute>").
	Purpose string
	// PointMassFloor is the same noise times the same factor without
	// CoarsenFloor's gate: the floor of a count attribute whose heavy
	// public value leaves its other bins light (domain.PointMassFloor).
	PointMassFloor float64
}

// ChooseCuts picks data-adaptive bins for numeric attribute a from its
// values (one per record): it releases the values' histogram on the
// public grid (PublicGrid) with discrete Gaussian noise on dp's grid
// (Δ₂ = √2 under replace-one: one record leaves one cell for another;
// Δ₂ = 1 under add/remove: one cell gains or loses one; ρ-zCDP), charged to the accountant first, and then, as post-processing
// of the noisy counts only, cuts the Bins equal-width bins over a's
// declared bounds further: any grid cell that alone holds at least half
// of n/Bins records becomes a bin of its own (a point mass such as
// capital-gain's zeros stays a single value), and the cells between are
// merged into bins of about n/Bins records (see mergeCells) — where the
// noise lets it tell: a cell or bin is cut only when its noisy count
// stands clear of the noise (CutZ standard deviations), so on a small
// table or a thin budget the result falls back towards the equal-width
// bins instead of cutting bins the noise made. No bin crosses an
// equal-width edge, so a value drawn uniformly inside its bin stays in
// its equal-width bin. The returned edges suit domain.Options.Cuts.
func ChooseCuts(a data.Attribute, values []float64, o CutsOptions) ([]float64, error) {
	if a.Kind != data.Numeric {
		return nil, fmt.Errorf("measurement: cuts for %q: attribute is %s, not numeric", a.Name, a.Kind)
	}
	if len(values) == 0 {
		return nil, fmt.Errorf("measurement: cuts for %q: no values", a.Name)
	}
	if o.Grid == 0 {
		o.Grid = domain.DefaultGrid
	}
	if o.Grid < 2 {
		return nil, fmt.Errorf("measurement: cuts for %q: grid %d, need at least 2 cells", a.Name, o.Grid)
	}
	grid := domain.PublicGrid(a, o.Grid)
	o.Refine = domain.RefineMeasured
	b, _, err := releaseCuts(a, grid, domain.GridCounts(a, grid, values), float64(len(values)), o)
	return b.Cuts, err
}

// ChooseBinsFromFine is ChooseCuts from the counts of a's values in the
// cells of FineEdges(a, o.Bins, o.Grid) instead of the values: the same
// release, the same edges with RefineMeasured; with RefineDecoded the
// measured bins are the equal-width ones plus dominant point masses and
// the rest of the edges are pieces (BinsFromHistogram).
func ChooseBinsFromFine(a data.Attribute, counts []float64, o CutsOptions) (domain.ChosenBins, error) {
	b, _, err := ReleaseBinsFromFine(a, counts, o)
	return b, err
}

// GridRelease is the noisy histogram a choice of bins was made from: the
// public grid's lower edges, the noisy count of each grid cell and the
// release (its purpose and noise), charged before it was made.
type GridRelease struct {
	Grid, Counts []float64
	Release      Release
}

// ReleaseBinsFromFine is ChooseBinsFromFine that also returns the noisy
// histogram it released, for a caller that uses the same release as the
// attribute's one-way marginal (post-processing: it costs nothing more).
func ReleaseBinsFromFine(a data.Attribute, counts []float64, o CutsOptions) (domain.ChosenBins, GridRelease, error) {
	if o.Grid == 0 {
		o.Grid = domain.DefaultGrid
	}
	if o.Grid < 2 {
		return domain.ChosenBins{}, GridRelease{}, fmt.Errorf("measurement: cuts for %q: grid %d, need at least 2 cells", a.Name, o.Grid)
	}
	fine := domain.FineEdges(a, o.Bins, o.Grid)
	if len(counts) != len(fine) {
		return domain.ChosenBins{}, GridRelease{}, fmt.Errorf("measurement: cuts for %q: %d counts for %d fine cells", a.Name, len(counts), len(fine))
	}
	grid := domain.PublicGrid(a, o.Grid)
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
		return domain.ChosenBins{}, GridRelease{}, fmt.Errorf("measurement: cuts for %q: no values", a.Name)
	}
	b, r, err := releaseCuts(a, grid, gc, n, o)
	return b, GridRelease{Grid: grid, Counts: gc, Release: r}, err
}

// releaseCuts releases the grid histogram counts of n values and turns it
// into bins (ChooseCuts, ChooseBinsFromFine).
func releaseCuts(a data.Attribute, grid, counts []float64, n float64, o CutsOptions) (domain.ChosenBins, Release, error) {
	if a.Kind != data.Numeric {
		return domain.ChosenBins{}, Release{}, fmt.Errorf("measurement: cuts for %q: attribute is %s, not numeric", a.Name, a.Kind)
	}
	if o.Bins == 0 {
		o.Bins = domain.DefaultBins
	}
	if o.Bins < 1 || o.Accountant == nil {
		return domain.ChosenBins{}, Release{}, fmt.Errorf("measurement: cuts for %q: bins %d, accountant set %v", a.Name, o.Bins, o.Accountant != nil)
	}
	if err := o.Refine.Validate(); err != nil {
		return domain.ChosenBins{}, Release{}, fmt.Errorf("measurement: cuts for %q: %w", a.Name, err)
	}
	if o.Source == nil {
		o.Source = randx.NewSecure()
	}
	if err := o.Neighbours.Check(); err != nil {
		return domain.ChosenBins{}, Release{}, fmt.Errorf("measurement: cuts for %q: %w", a.Name, err)
	}
	if !o.Neighbours.PublicCount() {
		if !(o.Records >= 1) || math.IsInf(o.Records, 0) {
			return domain.ChosenBins{}, Release{}, fmt.Errorf("measurement: cuts for %q under add/remove neighbours need the released record count, got %v", a.Name, o.Records)
		}
		n = o.Records
	}
	noise, err := CountNoise(Gaussian, o.Neighbours, o.Rho)
	if err != nil {
		return domain.ChosenBins{}, Release{}, err
	}
	r := Release{Purpose: cmp.Or(o.Purpose, "bins of "+a.Name), Parties: []int{0}, Noise: noise}
	if err := o.Accountant.Spend(r.Charge()); err != nil {
		return domain.ChosenBins{}, Release{}, fmt.Errorf("measurement: %w", err)
	}
	noise.Release(dp.NewNoiser(o.Source), counts)
	sigma := math.Sqrt(noise.Variance())
	return domain.CoarseBinsFromHistogram(a, grid, counts, n, o.Bins, sigma, o.Refine, o.Floor, o.PointMassFloor), r, nil
}
