package audit

import (
	"context"
	"fmt"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// The audits of this file run `synthesize --neighbours add-remove`'s
// releases on neighbours that differ by one added record: the record
// count (measurement.ReleaseCount) and a count vector at the add/remove
// sensitivity (measurement.CountNoise).

// addRemoveAudits adds the add/remove releases to the core family (the
// record count and a marginal are the shared engine's, no method's).
func addRemoveAudits(fam *Family) {
	fam.AddFixed("record-count-add-remove", "synthesize --neighbours add-remove: the record count, discrete Gaussian on the integer grid (Δ₂ = 1, σ = 1), stated as its exact (ε = 1, δ) profile; D' has one record more",
		20_000, 500_000, RecordCountAddRemove)
	fam.Add(Method{Name: "marginal-add-remove", Summary: "synthesize --neighbours add-remove: a noisy 2-way marginal at Δ₂ = 1 (σ = 1), stated as its exact (ε = 1, δ) profile: sound on an added record, or (replaced) the same noise on a replaced record, which it does not cover",
		Calibrations: []string{"sound", "replaced"}, FastRuns: 20_000, LongRuns: 500_000,
		Build: func(o MethodOptions) (Mechanism, error) { return MarginalAddRemove(o.Calibration == "replaced") }},
		Case{Method: "marginal-add-remove", Options: MethodOptions{Calibration: "sound"}, Expect: Pass},
		Case{Method: "marginal-add-remove", Options: MethodOptions{Calibration: "replaced"}, Expect: Violation})
}

// RecordCountAddRemove audits measurement.ReleaseCount at ρ = 1/2 (σ = 1)
// on n = 20 against n = 21, claimed as the exact (ε = 1, δ) profile of the
// Gaussian of σ = 1 on a sensitivity of 1. The statistic is the Gaussian
// log-likelihood ratio (the release itself, up to an affine map).
func RecordCountAddRemove() (Mechanism, error) {
	const rho = 0.5
	noise, err := measurement.Calibrate(measurement.Gaussian, measurement.CountL1AddRemove, measurement.CountL2AddRemove, rho)
	if err != nil {
		return Mechanism{}, fmt.Errorf("audit: %w", err)
	}
	fD, fD2 := []float64{20}, []float64{21}
	return Mechanism{
		Name:        fmt.Sprintf("record count, add/remove (Δ₂=1, σ=%g)", noise.Scale),
		Claim:       GaussianProfile(noise.Scale, measurement.CountL2AddRemove),
		Pair:        "20 records; D' has one record more",
		Dim:         1,
		Statistic:   GaussianLLR(fD, fD2, []float64{noise.Scale}),
		Truth:       SideTruth(fD, fD2), // an integer on the integer grid
		ReplayBound: measurement.CountL2AddRemove,
		Release: func(side Side, src *randx.Source, out []float64) error {
			a, err := privacy.NewAccountant(privacy.AccountantOptions{Party: "owner", Budget: dp.Concentrated(1)})
			if err != nil {
				return err
			}
			c, err := measurement.ReleaseCount(int(sideValue2(fD, fD2, side)), measurement.CountOptions{Rho: rho, Accountant: a, Source: src})
			out[0] = float64(c.Value)
			return err
		},
	}, nil
}

// sideValue2 is the one value of the side's truth.
func sideValue2(fD, fD2 []float64, side Side) float64 {
	if side == D {
		return fD[0]
	}
	return fD2[0]
}

// MarginalAddRemove audits a 2-way marginal released through
// LocalMeasurer.Marginal with the add/remove calibration (Δ₂ = 1, σ = 1,
// ρ = 1/2), claimed as the exact (ε = 1, δ) profile of that Gaussian. D
// has 16 records over two binary attributes; D' has one more, at (1, 1):
// one cell moves by one, the sensitivity in full. With replaced, D'
// instead moves D's record 0 from (0, 0) to (1, 1), a replace-one
// neighbour whose L2 distance √2 the add/remove noise does not cover: the
// audit must find ε above the claim there (exact δ at ε = 1 is 0.127 for
// Δ = 1 and 0.286 for √2).
func MarginalAddRemove(replaced bool) (Mechanism, error) {
	noise, err := measurement.CountNoise(measurement.Gaussian, dp.NeighboursAddRemove, 0.5)
	if err != nil {
		return Mechanism{}, fmt.Errorf("audit: %w", err)
	}
	recs := make([][]int, 16)
	for i := range recs {
		recs[i] = []int{i % 2, (i / 2) % 2}
	}
	var pair [2]*domain.Dataset
	desc := "16 records over two binary attributes; D' adds one at (1,1)"
	if replaced {
		pair = pairOfDatasets([]int{2, 2}, recs, []int{1, 1})
		desc = "16 records over two binary attributes; D' moves record 0 from (0,0) to (1,1) (replace-one, not covered)"
	} else {
		pair[D] = datasetOf([]int{2, 2}, recs)
		pair[DPrime] = datasetOf([]int{2, 2}, append(recs, []int{1, 1}))
	}
	fD, fD2 := counts(pair[D], []int{0, 1}), counts(pair[DPrime], []int{0, 1})
	sigma := []float64{noise.Scale, noise.Scale, noise.Scale, noise.Scale}
	name := "marginal 2-way, add/remove (Δ₂=1, σ=1)"
	if replaced {
		name += " on a replaced record"
	}
	return Mechanism{
		Name:      name,
		Claim:     GaussianProfile(noise.Scale, measurement.CountL2AddRemove),
		Pair:      desc,
		Dim:       4,
		Statistic: GaussianLLR(fD, fD2, sigma),
		Truth:     SideTruth(fD, fD2),
		Release: func(side Side, src *randx.Source, out []float64) error {
			a, err := privacy.NewAccountant(privacy.AccountantOptions{Party: "owner", Budget: dp.Concentrated(1e12)})
			if err != nil {
				return err
			}
			m, err := measurement.NewLocalMeasurer(measurement.LocalOptions{Data: pair[side], Accountants: []*privacy.Accountant{a}, Source: src, Neighbours: dp.NeighboursAddRemove})
			if err != nil {
				return err
			}
			v, err := m.Marginal(context.Background(), []int{0, 1}, measurement.Release{Purpose: "audit", Parties: []int{0}, Noise: noise})
			copy(out, v)
			return err
		},
	}, nil
}

// datasetOf is the dataset of the given records over sizes.
func datasetOf(sizes []int, recs [][]int) *domain.Dataset {
	ds := domain.NewDataset(sizes, len(recs))
	for r, rec := range recs {
		for j, v := range rec {
			ds.Cols[j][r] = uint16(v)
		}
	}
	return ds
}
