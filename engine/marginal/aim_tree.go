// The adaptive method's opening tree on wide tables: MST-style selections
// of pairs joining components, scored against the one-way model.

package marginal

import (
	"context"
	"math"
	"slices"

	"github.com/dppub/dppub/engine/marginal/internal/parallel"
	"github.com/dppub/dppub/engine/marginal/measurement"
)

// TreePenalty scales the penalty (AdaptiveOptions.Penalty) in the scores
// of the spanning tree's selections: half the error a pair's measurement
// is expected to leave. Every component must be joined whatever the
// noise, so the penalty only decides which pairs join them; in full it
// keeps the tree off pairs of many cells, such as the label's, and MST
// scores without it (L1 error of the one-way model alone). Three seeds
// each on the benchmark's training splits at ε = 1, mean 2-way TVD and
// GBT accuracy, full penalty → half → none (docs/results/synthesis/
// wide-vs-mst.md): `digits` under add/remove 0.2161 / 0.116 → 0.2173 /
// 0.226 → 0.2186 / 0.261 (MST 0.2146 / 0.169), replace-one 0.2524 /
// 0.122 → 0.2517 / 0.199 → 0.2554 / 0.134; Musk 0.2580 / 0.755 →
// 0.2549 / 0.824 → 0.2475 / 0.847; WDBC 0.4525 / 0.842 → 0.4644 / 0.886
// → 0.5495 / 0.781; `zeroinfl` 0.0547 / 0.547 → 0.0536 / 0.544 → 0.0559 / 0.541;
// `wide` 0.0650 / 0.758 → 0.0662 / 0.759 → 0.0703 / 0.768. Half keeps the
// TVDs within 3 % of the full penalty's (WDBC 2.6 % and wide 1.8 % worse,
// zeroinfl 2 % better) and gives most of the classifiers' gain; read off these tables,
// not derived.
const TreePenalty = 0.5

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
	var pairs []int
	var est [][]float64
	for i, c := range a.cands {
		if len(c) == 2 {
			pairs = append(pairs, i)
			est = append(est, outer(one[c[0]], one[c[1]], float64(a.o.Records)))
		}
	}
	pen := make([]float64, len(pairs))
	sigma := math.NaN()
	var picks []pick
	for len(picks) < joins && a.rho-a.used > 1e-12*a.rho {
		rhoMeas, rhoSel := s.next(a.rho - a.used)
		noise, err := measurement.CountNoise(measurement.Gaussian, a.o.Neighbours, rhoMeas)
		if err != nil {
			return err
		}
		if noise.Scale != sigma {
			sigma = noise.Scale
			parallel.For(len(pairs), func(k int) { pen[k] = TreePenalty * a.ao.Penalty.of(est[k], sigma) }, func(k int) int { return len(est[k]) })
		}
		var q measurement.SelectQuery
		for k, i := range pairs {
			c := a.cands[i]
			if comp[c[0]] == comp[c[1]] {
				continue
			}
			q.Candidates = append(q.Candidates, c)
			q.Weights = append(q.Weights, a.weights[i])
			q.Estimates = append(q.Estimates, est[k])
			q.Penalties = append(q.Penalties, pen[k])
		}
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
