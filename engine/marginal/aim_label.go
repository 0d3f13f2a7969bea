// The adaptive method's start when a label is named: the star of the
// label's pairs, measured without a selection.

package marginal

import (
	"context"
	"slices"
)

// labelStar measures, after the one-way marginals, the pair of the label
// with every other attribute (the star on the label: a spanning tree of
// pairs, as the tree rounds would build), then refits the model. Which
// pairs it measures is fixed by the public domain and the named label, so
// no selection is made and each round's whole budget, its selection's
// share too, goes to the measurement: each pair costs one round of the
// schedule (the last taking what is left, so the budget is still spent
// exactly), charged as a Gaussian measurement. The rounds are recorded
// with no selection (Round.Selected). A classifier of the label needs
// these joints first: on a wide table the tree's private choices, made
// against the one-way model, need not touch the label at all.
func (a *adaptive) labelStar(ctx context.Context, s *schedule) error {
	d := a.o.Domain.Len()
	var rounds []Round
	for j := range d {
		if j == a.label || a.rho-a.used <= 1e-12*a.rho {
			continue
		}
		meas, sel := s.next(a.rho - a.used)
		pair := []int{min(j, a.label), max(j, a.label)}
		if err := a.measureSet(ctx, pair, meas+sel); err != nil {
			return err
		}
		rounds = append(rounds, Round{Attrs: slices.Clone(pair), Rho: meas + sel})
		a.progress("adaptive rounds", d+len(rounds), 2*d-1)
	}
	if len(rounds) == 0 {
		return nil
	}
	if err := a.fit(ctx); err != nil {
		return err
	}
	a.res.Rounds = append(a.res.Rounds, rounds...)
	return nil
}

// Selected reports whether the round's set was chosen by a private
// selection (charged SelectRho) rather than fixed in advance by public
// facts (the label's star, AdaptiveOptions.Label).
func (r Round) Selected() bool { return r.SelectRho > 0 }
