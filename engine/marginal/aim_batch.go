// The adaptive method's batches: several private selections from one
// model, each narrowed to the candidates the picks leave under the model
// cap, then one refit and AIM's annealing test.

package marginal

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/dppub/dppub/engine/marginal/infer"
	"github.com/dppub/dppub/engine/marginal/measurement"
)

// pick is one selection of a batch and what the annealing test needs.
type pick struct {
	attrs     []int
	estimate  []float64 // the model's estimate when it was chosen
	penalty   float64
	rhoMeas   float64
	selection Round
}

// batch makes up to size selections from one model, each charged and
// measured as a round of its own (the exponential mechanism at the round's
// selection budget over the candidates not yet picked, then a Gaussian
// measurement at its measurement budget), and then refits the model once.
// Which candidates are offered after the first pick depends only on the
// earlier picks and the public model, so every selection is an exponential
// mechanism over public candidates with public estimates, charged ε²/8 as
// one round's is. It reports whether the model's estimates of the picked
// sets moved, in all, by less than the noise their measurements were
// expected to leave (AIM's signal to anneal).
func (a *adaptive) batch(ctx context.Context, s *schedule, size int) (bool, error) {
	var picks []pick
	var base measurement.SelectQuery
	var growth []float64
	for k := 0; k < max(size, 1) && a.rho-a.used > 1e-12*a.rho; k++ {
		rhoMeas, rhoSel := s.next(a.rho - a.used)
		noise, err := measurement.CountNoise(measurement.Gaussian, a.o.Neighbours, rhoMeas)
		if err != nil {
			return false, err
		}
		// The size limit counts this round's spending, as AIM does.
		limit := a.ao.MaxCells * (a.used + rhoMeas + rhoSel) / a.rho
		var q measurement.SelectQuery
		if k == 0 {
			base, growth = a.query(limit, noise.Scale)
			q = base
		} else {
			q = a.narrow(base, growth, picks, limit, noise.Scale)
		}
		if len(q.Candidates) == 0 {
			break
		}
		i, p, err := a.choose(ctx, q, rhoSel)
		if err != nil {
			return false, err
		}
		if err := a.measureSet(ctx, q.Candidates[i], rhoMeas); err != nil {
			return false, err
		}
		p.rhoMeas = rhoMeas
		picks = append(picks, p)
	}
	if len(picks) == 0 {
		return false, fmt.Errorf("marginal: adaptive: no candidate fits the model cap")
	}
	if err := a.fit(ctx); err != nil {
		return false, err
	}
	moved, expected := 0.0, 0.0
	for _, p := range picks {
		after, err := a.model.Marginal(p.attrs)
		if err != nil {
			return false, err
		}
		for x, v := range after.Counts {
			moved += math.Abs(v - p.estimate[x])
		}
		expected += p.penalty
	}
	annealed := moved <= expected
	for _, p := range picks {
		r := p.selection
		r.Rho, r.Annealed = p.rhoMeas, annealed
		a.res.Rounds = append(a.res.Rounds, r)
	}
	a.pending = 0
	return annealed, nil
}

// choose makes one private selection over q at selection budget rhoSel.
func (a *adaptive) choose(ctx context.Context, q measurement.SelectQuery, rhoSel float64) (int, pick, error) {
	eps := a.ao.Selection.Epsilon(rhoSel)
	c := measurement.Choice{Purpose: fmt.Sprintf("adaptive selection %d", len(a.res.Rounds)+a.pending+1), Parties: []int{0},
		Mechanism: a.ao.Selection, Epsilon: eps, Sensitivity: q.Sensitivity(a.o.Neighbours)}
	i, err := a.sel.Select(ctx, q, c)
	if err != nil {
		return 0, pick{}, fmt.Errorf("marginal: %s: %w", c.Purpose, err)
	}
	a.used += c.Rho()
	a.pending++
	p := pick{attrs: q.Candidates[i], estimate: q.Estimates[i], penalty: q.Penalties[i],
		selection: Round{Attrs: q.Candidates[i], SelectRho: c.Rho(), Epsilon: eps, Candidates: len(q.Candidates)}}
	return i, p, nil
}

// narrow is the query of a batch's next selection: base without the sets
// already picked and without those that would grow the model, with the
// picks, beyond limit; penalties at noise sigma. growth[i] is how much
// base's candidate i alone grew the model (query). On a table of more
// than AutoMaxAttributes attributes, a candidate that shares no attribute
// with a pick is taken to grow the model with the picks by as much, so
// only the others cost a triangulation each: there the exact test of
// every candidate after every pick was half the run (167 attributes).
// The estimate is not a bound: two pairs of disjoint attributes can close
// a long cycle of the model's graph together, whose triangulation is far
// larger than either alone (Adult at ρ = 0.5, seed 2, cap 2^19: a final
// model of 954 096 cells). On a narrow table every candidate is
// triangulated, which costs little there, so the cap holds.
func (a *adaptive) narrow(base measurement.SelectQuery, growth []float64, picks []pick, limit, sigma float64) measurement.SelectQuery {
	sizes := a.o.Domain.Sizes()
	sets := slices.Clip(a.model.Sets())
	touched := map[int]bool{}
	for _, p := range picks {
		sets = append(sets, p.attrs)
		for _, x := range p.attrs {
			touched[x] = true
		}
	}
	sets = slices.Clip(sets)
	now := infer.ModelCells(sizes, sets)
	var q measurement.SelectQuery
	for i, s := range base.Candidates {
		if slices.ContainsFunc(picks, func(p pick) bool { return slices.Equal(p.attrs, s) }) {
			continue
		}
		if !a.model.Holds(s) {
			fits := now+growth[i] <= limit
			if len(sizes) <= AutoMaxAttributes || slices.ContainsFunc(s, func(x int) bool { return touched[x] }) {
				fits = infer.ModelCells(sizes, append(sets, s)) <= limit
			}
			if !fits {
				continue
			}
		}
		q.Candidates = append(q.Candidates, s)
		q.Weights = append(q.Weights, base.Weights[i])
		q.Estimates = append(q.Estimates, base.Estimates[i])
		q.Penalties = append(q.Penalties, a.ao.Penalty.of(base.Estimates[i], sigma))
	}
	return q
}
