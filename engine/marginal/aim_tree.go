// The adaptive method's opening tree on wide tables: MST-style selections
// of pairs joining components, scored against the one-way model.

package marginal

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/dppub/dppub/engine/marginal/internal/parallel"
	"github.com/dppub/dppub/engine/marginal/measurement"
)

// TreePenalty scales the penalty (AdaptiveOptions.Penalty) in the scores
// of the spanning tree's selections where the pairs are mostly noise
// (TreePenaltyNoise): half the error a pair's measurement is expected to
// leave. Every component must be joined whatever the noise, so the
// penalty only decides which pairs join them; in full it keeps the tree
// off pairs of many cells, such as the label's, and MST scores without it
// (L1 error of the one-way model alone). Three seeds each on the
// benchmark's training splits at ε = 1, mean 2-way TVD and GBT accuracy,
// full penalty → half → none (docs/results/synthesis/wide-vs-mst.md):
// `digits` under add/remove 0.2161 / 0.116 → 0.2173 / 0.226 → 0.2186 /
// 0.261 (MST 0.2146 / 0.169), replace-one 0.2524 / 0.122 → 0.2517 /
// 0.199 → 0.2554 / 0.134; Musk 0.2580 / 0.755 → 0.2549 / 0.824 → 0.2475 /
// 0.847; WDBC 0.4525 / 0.842 → 0.4644 / 0.886 → 0.5495 / 0.781;
// `zeroinfl` 0.0547 / 0.547 → 0.0536 / 0.544 → 0.0559 / 0.541; `wide`
// 0.0650 / 0.758 → 0.0662 / 0.759 → 0.0703 / 0.768. Half keeps the TVDs
// within 3 % of the full penalty's (WDBC 2.6 % and wide 1.8 % worse,
// zeroinfl 2 % better) and gives most of the classifiers' gain; read off
// these tables, not derived.
const TreePenalty = 0.5

// TreePenaltyNoise is the bound on the joining pairs' noise below which
// the spanning tree scores them without a penalty, as MST does: where
// the median pair's noise per cell, σ, is at most TreePenaltyNoise times
// its average count per cell, n/c (the engine's own test of a marginal
// that is mostly noise, reported as a warning), a pair's measurement is
// mostly signal, the penalty is not needed to keep the tree off noise,
// and it only tilts the joins the noise decides towards pairs of few
// cells, such as a binary label's, whose noisy measurements the model
// then fits (`wide`'s label collected up to seven of the tree's joins,
// and the classifier trained on the synthetic rows lost accuracy with
// each: wide-vs-mst.md, "The label's joins, seed by seed"). Measured
// (wide-vs-mst.md, "The tree's penalty where the pairs are mostly
// signal"; bench.py's seeds, 2-way TVD / GBT, half → no penalty; the
// median ratio σ·c/n in brackets): `wide` at ε = 1 (0.56) 0.0659 / 0.737
// → 0.0712 / 0.767 over ten seeds (MST at the same guarantee 0.0914 /
// 0.768), under add/remove (0.40) 0.0534 / 0.763 → 0.0563 / 0.771 (MST
// 0.0651 / 0.771); at ε = 4 (0.16, 0.12) 0.0387 / 0.771 → 0.0391 / 0.773
// and 0.0367 / 0.773 → 0.0370 / 0.772; `zeroinfl` at ε = 4 (0.72) 0.0324
// / 0.562 → 0.0303 / 0.564. Above the bound no penalty lost: `digits` at
// ε = 4 (2.1, 1.7) GBT 0.773 → 0.650 and 0.847 → 0.773 (MST 0.731,
// 0.811); `wide` at ε = 0.3 under add/remove (1.26) GBT 0.664 → 0.587;
// WDBC at ε = 1 (27) 2-way TVD +18 %.
const TreePenaltyNoise = 1.0

// treeRounds starts the rounds as MST does (McKenna, Miklau & Sheldon,
// "Winning the NIST contest", 2021), from the components start (nil: every
// attribute its own; labelStar's otherwise): up to one selection fewer
// than the components, each of a
// pair that joins two components of the pairs picked so far, scored
// against the model of the one-way marginals alone (every pair's estimate
// the product of its attributes' model marginals) with TreePenalty of the
// penalty, then one refit. Each
// selection and measurement is a round of the schedule, charged as one:
// the selection mechanism (AdaptiveOptions.Selection; the exponential
// mechanism, ε²/8, by default) at the round's selection budget over
// public candidates (which pairs join components depends only on the
// earlier picks), and a Gaussian measurement at its measurement budget.
// No candidate is dropped for the model cap: a forest of pairs is a
// junction tree of its pairs, of at most d − 1 pairs' cells.
func (a *adaptive) treeRounds(ctx context.Context, s *schedule, start []int) error {
	d := a.o.Domain.Len()
	one := make([][]float64, d)
	for j := range d {
		m, err := a.model.Marginal([]int{j})
		if err != nil {
			return err
		}
		one[j] = m.Counts
	}
	comp := slices.Clone(start)
	if comp == nil {
		comp = make([]int, d)
		for j := range comp {
			comp[j] = j
		}
	}
	joins := len(slices.Compact(slices.Sorted(slices.Values(comp)))) - 1
	// The one-way model does not change during the tree's selections, so
	// every pair's estimate is computed once, and its penalty once per
	// noise scale (the last round may take what is left).
	tp := a.treePairs(one)
	if pooled, err := a.poolTree(ctx, s, comp, joins, tp); pooled || err != nil {
		return err
	}
	pen := make([]float64, len(tp.cands))
	sigma, share := math.NaN(), math.NaN()
	var picks []pick
	for len(picks) < joins && a.rho-a.used > 1e-12*a.rho {
		rhoMeas, rhoSel := s.next(a.rho - a.used)
		noise, err := measurement.CountNoise(measurement.Gaussian, a.o.Neighbours, rhoMeas)
		if err != nil {
			return err
		}
		if noise.Scale != sigma {
			sigma = noise.Scale
			if math.IsNaN(share) { // decided once, at the first round's noise
				share = a.treePenaltyShare(tp.est, sigma)
			}
			a.treePenalties(pen, tp.est, sigma, share)
		}
		q := a.joining(tp, pen, comp)
		if len(q.Candidates) == 0 {
			break
		}
		i, p, err := a.choose(ctx, q, rhoSel)
		if err != nil {
			return err
		}
		if err := a.measureSet(ctx, q.Candidates[i], rhoMeas); err != nil {
			return err
		}
		p.rhoMeas = rhoMeas
		picks = append(picks, p)
		join(comp, q.Candidates[i][0], q.Candidates[i][1])
	}
	return a.settle(ctx, picks)
}

// pooledTree builds the tree from one release of every joining pair's
// noisy utility (UtilityReleaser: owners of rows, where it Pools), at the sum of the
// selection budgets the schedule gives the tree's rounds, then picks, as
// Kruskal's algorithm does, the pair of largest noisy utility that joins
// two components until one is left (or the planned rounds are done),
// measuring each at its planned round's measurement budget. The picks are
// post-processing of the one release; the release costs what the rounds'
// selections would have cost together, so every later round's budget is
// the same as with one selection per pair. With C pairs released at J
// rounds' selection budget Jρₛ, each utility's noise is w·√(2C/(Jρₛ))
// under replace-one (a score's sensitivity 2), about w·√(d/ρₛ) for the
// tree of d attributes, against w·√(2·16/ρₛ) for the 16 candidates a
// round of owners' selections scores (roles.DefaultSelectCandidates):
// less noise below 32 attributes, and every pair seen. Measured
// (owners-gap.md, 3 seeds, 2-way TVD, a round per pair → one release):
// `zeroinfl` (27 attributes) at ε = 1, one owner through the protocol
// with exact noise 0.0617 → 0.0577 (the curator's exponential mechanism
// 0.0540), 10 owners 0.0671 → 0.0609, 3 owners 0.0694 → 0.0631; on
// wider tables a win at large budgets (`wide`, 73 attributes, at ε = 4:
// 3 owners 0.0505 → 0.0412) and level or worse at small ones (`wide` at
// ε = 1, Musk2 at ε = 1, digits): the owners pool where the noise per
// candidate is no larger than a round's or small against the records
// (roles.Measurer.Pools).
func (a *adaptive) pooledTree(ctx context.Context, ur measurement.UtilityReleaser, s *schedule, plan schedule, meas []float64, selTotal float64, comp []int, tp treePairs) error {
	noise, err := measurement.CountNoise(measurement.Gaussian, a.o.Neighbours, meas[0])
	if err != nil {
		return err
	}
	pen := make([]float64, len(tp.cands))
	a.treePenalties(pen, tp.est, noise.Scale, a.treePenaltyShare(tp.est, noise.Scale))
	q := a.joining(tp, pen, comp)
	if len(q.Candidates) == 0 {
		return nil
	}
	u, err := ur.Utilities(ctx, q, "adaptive tree selection", selTotal)
	if err != nil {
		return fmt.Errorf("marginal: adaptive tree selection: %w", err)
	}
	a.used += selTotal
	*s = plan
	order := make([]int, len(u))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(u[y], u[x]) })
	var picks []pick
	for _, i := range order {
		if len(picks) == len(meas) {
			break
		}
		c := q.Candidates[i]
		if comp[c[0]] == comp[c[1]] {
			continue
		}
		rho := meas[len(picks)]
		if err := a.measureSet(ctx, c, rho); err != nil {
			return err
		}
		picks = append(picks, pick{attrs: c, estimate: q.Estimates[i], penalty: q.Penalties[i], rhoMeas: rho,
			selection: Round{Attrs: c, Candidates: len(q.Candidates)}})
		join(comp, c[0], c[1])
	}
	for i := range picks { // the release's cost, stated over the rounds it served
		picks[i].selection.SelectRho = selTotal / float64(len(picks))
	}
	return a.settle(ctx, picks)
}

// poolTree builds the tree with pooledTree when the selector releases
// utilities and Pools the joining pairs at the tree's planned budget,
// and reports whether it did.
func (a *adaptive) poolTree(ctx context.Context, s *schedule, comp []int, joins int, tp treePairs) (bool, error) {
	ur, ok := a.sel.(measurement.UtilityReleaser)
	if !ok {
		return false, nil
	}
	open := 0
	for _, i := range tp.cands {
		if c := a.cands[i]; comp[c[0]] != comp[c[1]] {
			open++
		}
	}
	plan, meas, selTotal := a.treePlan(s, joins)
	if len(meas) == 0 || !ur.Pools(open, len(meas), selTotal) {
		return false, nil
	}
	return true, a.pooledTree(ctx, ur, s, plan, meas, selTotal, comp, tp)
}

// treePlan is what the schedule s would give the tree's joins rounds
// run one at a time: the schedule after them, each round's measurement
// budget and their selection budgets' sum (fewer rounds when the budget
// runs out first).
func (a *adaptive) treePlan(s *schedule, joins int) (plan schedule, meas []float64, selTotal float64) {
	plan = *s
	left := a.rho - a.used
	for len(meas) < joins && left > 1e-12*a.rho {
		m, sel := plan.next(left)
		meas = append(meas, m)
		selTotal += sel
		left -= m + sel
	}
	return plan, meas, selTotal
}

// treePenaltyShare is the share of the penalty the tree's pairs, whose
// one-way estimates are est, are scored with at measurement noise sigma:
// TreePenalty where the median pair's noise per cell is above
// TreePenaltyNoise times its average count per cell, 0 otherwise. It reads
// public quantities only (the domain's sizes, the public n, the noise).
func (a *adaptive) treePenaltyShare(est [][]float64, sigma float64) float64 {
	if len(est) == 0 {
		return TreePenalty
	}
	ratios := make([]float64, len(est))
	for k, e := range est {
		ratios[k] = sigma * float64(len(e)) / float64(a.o.Records)
	}
	slices.Sort(ratios)
	if ratios[len(ratios)/2] <= TreePenaltyNoise {
		return 0
	}
	return TreePenalty
}

// treePenalties sets pen[k] to share of the penalty of the pair whose
// one-way estimate is est[k], at measurement noise sigma.
func (a *adaptive) treePenalties(pen []float64, est [][]float64, sigma, share float64) {
	parallel.For(len(est), func(k int) { pen[k] = share * a.ao.Penalty.of(est[k], sigma) }, func(k int) int { return len(est[k]) })
}

// treePairs are the candidate pairs of the tree (a.cands' indices) with
// their estimates under the one-way model and the largest scores they
// could have (maxPairScore).
type treePairs struct {
	cands    []int
	est      [][]float64
	maxScore []float64
}

// treePairs computes the tree's pairs from the model's one-way marginals
// one (counts).
func (a *adaptive) treePairs(one [][]float64) treePairs {
	var tp treePairs
	n := float64(a.o.Records)
	modes := make([]float64, len(one))
	for j, m := range one {
		modes[j] = modeShare(m)
	}
	for i, c := range a.cands {
		if len(c) == 2 {
			tp.cands = append(tp.cands, i)
			tp.est = append(tp.est, outer(one[c[0]], one[c[1]], n))
			tp.maxScore = append(tp.maxScore, maxPairScore(modes[c[0]], modes[c[1]], n))
		}
	}
	return tp
}

// maxPairScore bounds the L1 distance, in records, between a pair's
// counts and any estimate with the same one-way marginals, whose modes
// hold shares sx and sy of the n records: 4·n·(1 − the mode's share) of
// either attribute, and 2n. Where X's mode holds all but a share s, the rows of X's other
// values hold s of the records in either table (at most 2s·n apart) and
// the mode's row is the column marginal less those rows (at most 2s·n
// apart again). A pair with a nearly constant attribute cannot be far
// from its estimate whatever the data: a selector that scores only some
// candidates (roles.SelectFilter) offers it late. The model's one-way
// marginals are noisy, so the bound is the data's only approximately;
// it orders candidates and is never used as a score.
func maxPairScore(sx, sy, n float64) float64 {
	return n * min(2, 4*(1-sx), 4*(1-sy))
}

// modeShare is the largest count's share of the total (1 for an empty
// marginal, which has no room to differ).
func modeShare(counts []float64) float64 {
	total, top := 0.0, 0.0
	for _, v := range counts {
		v = max(v, 0)
		total += v
		top = max(top, v)
	}
	if !(total > 0) {
		return 1
	}
	return top / total
}

// joining is the selection query of the tree's pairs tp (with penalties
// pen) that join two components of comp.
func (a *adaptive) joining(tp treePairs, pen []float64, comp []int) measurement.SelectQuery {
	var q measurement.SelectQuery
	for k, i := range tp.cands {
		c := a.cands[i]
		if comp[c[0]] == comp[c[1]] {
			continue
		}
		q.Candidates = append(q.Candidates, c)
		q.Weights = append(q.Weights, a.weights[i])
		q.Estimates = append(q.Estimates, tp.est[k])
		q.Penalties = append(q.Penalties, pen[k])
		q.MaxScores = append(q.MaxScores, tp.maxScore[k])
	}
	return q
}

// join merges the components of attributes x and y (comp[j] is j's).
func join(comp []int, x, y int) {
	from, to := comp[y], comp[x]
	for j := range comp {
		if comp[j] == from {
			comp[j] = to
		}
	}
}

// settle refits the model after picks (if any) and records them as
// rounds, each with its measurement's ρ.
func (a *adaptive) settle(ctx context.Context, picks []pick) error {
	if len(picks) == 0 {
		return nil
	}
	if err := a.fit(ctx); err != nil {
		return err
	}
	for _, p := range picks {
		r := p.selection
		r.Rho = p.rhoMeas
		a.res.Rounds = append(a.res.Rounds, r)
	}
	a.pending = 0
	return nil
}

// outer is the table of two independent attributes with marginals x and
// y (as counts), summing to total, the first attribute varying slowest.
func outer(x, y []float64, total float64) []float64 {
	out := make([]float64, 0, len(x)*len(y))
	for _, u := range x {
		for _, v := range y {
			out = append(out, u*v/total)
		}
	}
	return out
}
