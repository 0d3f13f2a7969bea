// The adaptive method's start when a label is named: the label's pairs
// whose measurement the noise leaves meaningful, measured without a
// selection.

package marginal

import (
	"context"
	"slices"

	"github.com/dppub/dppub/engine/marginal/measurement"
)

// labelStarNoise is the largest noise ratio (the noise's standard
// deviation over the pair's average count per cell, NoiseWarning's
// ratio) at which labelStar measures a label pair; the tree's selections
// join the attributes it leaves out. The bound is read off two tables,
// not derived: GBT accuracy on real held-out rows of a classifier trained
// on the synthetic rows, and 2-way TVD, three seeds, the bound 3 / 5 / 8
// (docs/results/synthesis/label.md): digits (64 pixels of 5 to 15 values
// after coarsening, 10 classes, 1 438 rows; ratios 2.4–7.1 at ε = 1,
// 5.7–20 at ε = 0.3) at ε = 1 GBT 0.162 / 0.487 / 0.506 and TVD 0.264 /
// 0.282 / 0.294 (the tree alone 0.204, 0.258), at ε = 0.3 GBT 0.123 /
// 0.109 / 0.112 (0.123 alone), where every pair measured above 5 made
// it worse (all of them: 0.099, TVD 0.438 → 0.503); WDBC (30 attributes,
// 2 classes, 455 rows; ratio 3.3 at ε = 1) GBT 0.874 → 0.909 at ε = 1,
// TVD 0.472 → 0.456.
const labelStarNoise = 5.0

// labelStar measures, after the one-way marginals, the pair of the label
// with each other attribute whose measurement at one round's whole budget
// would not be mostly noise (labelStarNoise, read off the public domain
// sizes, the public n and the round's ρ), then refits the model. Which
// pairs it measures is fixed by public facts and the named label, so no
// selection is made and each round's whole budget, its selection's share
// too, goes to the measurement: each pair costs one round of the schedule
// (the last taking what is left, so the budget is still spent exactly),
// charged as a Gaussian measurement. The rounds are recorded with no
// selection (Round.Selected). It returns the components the pairs leave
// (comp[j] is j's), for the tree's selections to join the rest. A
// classifier of the label needs these joints first: on a wide table the
// tree's private choices, made against the one-way model, need not touch
// the label at all. Only the rounds that start with a tree start with it:
// there it takes the place of tree pairs, so the model stays a forest of
// pairs. On a narrow table, where the rounds select among every pair from
// the start, the star first cost 2-way TVD, at ε = 1 with the label
// named, three seeds (two for Shuttle's one owner), without → with the
// star: Shuttle (Class, 7 values) 0.0081 → 0.0083 for one owner (GBT
// 0.949 → 0.947) and 0.0121 → 0.0224 for three owners of rows (GBT 0.941
// → 0.949); Adult (income) 0.0302 → 0.0289 (GBT 0.848 → 0.849).
func (a *adaptive) labelStar(ctx context.Context, s *schedule) ([]int, error) {
	d, sizes := a.o.Domain.Len(), a.o.Domain.Sizes()
	comp := make([]int, d)
	for j := range comp {
		comp[j] = j
	}
	var rounds []Round
	for j := range d {
		if j == a.label || a.rho-a.used <= 1e-12*a.rho {
			continue
		}
		meas, sel := s.next(a.rho - a.used)
		noise, err := measurement.CountNoise(measurement.Gaussian, a.o.Neighbours, meas+sel)
		if err != nil {
			return nil, err
		}
		perCell := float64(a.o.Records) / float64(sizes[j]*sizes[a.label])
		if noise.Scale > labelStarNoise*perCell {
			continue
		}
		pair := []int{min(j, a.label), max(j, a.label)}
		if err := a.measureSet(ctx, pair, meas+sel); err != nil {
			return nil, err
		}
		join(comp, a.label, j)
		rounds = append(rounds, Round{Attrs: slices.Clone(pair), Rho: meas + sel})
		a.progress("adaptive rounds", d+len(rounds), 2*d-1)
	}
	if len(rounds) == 0 {
		return comp, nil
	}
	if err := a.fit(ctx); err != nil {
		return nil, err
	}
	a.res.Rounds = append(a.res.Rounds, rounds...)
	return comp, nil
}

// Selected reports whether the round's set was chosen by a private
// selection (charged SelectRho) rather than fixed in advance by public
// facts (the label's pairs, AdaptiveOptions.Label).
func (r Round) Selected() bool { return r.SelectRho > 0 }
