// The paper method's stages (PDP-MVDS, Algorithm 3), in the order Synthesize
// runs them: one-way marginals, pair scores, selection, the combined
// marginals, post-processing, and GUM or a graphical model.

package marginal

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/infer"
	"github.com/dppub/dppub/engine/marginal/measurement"
)

// oneWays is Algorithm 3, step 3: each party publishes the one-way
// marginal of each of its attributes, splitting ρ_1^k evenly among them.
func (e *engine) oneWays(ctx context.Context) error {
	d := e.o.Domain.Len()
	e.res.OneWays = make([]*infer.Noisy, d)
	e.refs = make([][]float64, d)
	var sets [][]int
	var rs []measurement.Release
	for k, p := range e.o.Parties {
		rho := e.o.Split.OneWay * p.Rho / float64(len(p.Attrs))
		noise, err := measurement.CountNoise(e.o.OneWayNoise, e.o.Neighbours, rho)
		if err != nil {
			return err
		}
		for _, j := range p.Attrs {
			sets = append(sets, []int{j})
			rs = append(rs, measurement.Release{Purpose: "one-way marginal " + e.o.Domain.Name(j), Parties: []int{k}, Noise: noise})
		}
	}
	ms, err := e.measureAll(ctx, sets, rs)
	if err != nil {
		return err
	}
	for i, nm := range ms {
		j := sets[i][0]
		e.res.OneWays[j] = nm
		ref := append([]float64(nil), nm.Counts...)
		infer.NormSub(ref, float64(e.o.Records))
		e.refs[j] = ref
		e.progress("one-way marginals", i+1, d)
	}
	return nil
}

// scores measures every pair's dependency score with ρ_2, each pair
// charged to the parties of its two attributes.
func (e *engine) scores(ctx context.Context) error {
	d := e.o.Domain.Len()
	var cands []Candidate
	var parties [][]int
	for a := range d {
		for b := a + 1; b < d; b++ {
			c, _ := e.o.Domain.Cells([]int{a, b})
			cands = append(cands, Candidate{A: a, B: b, Cells: c})
			parties = append(parties, partiesOf(e.owner, []int{a, b}))
		}
	}
	if len(cands) == 0 {
		return nil
	}
	weights := make([]float64, len(cands))
	for i := range weights {
		weights[i] = 1
	}
	rhos, err := allocate(e.o.stageBudgets(e.o.Split.Scores), parties, weights)
	if err != nil {
		return err
	}
	sens := measurement.ScoreSensitivity(e.o.Score, e.o.Neighbours)
	budgets3 := e.selectBudgets()
	qs := make([]measurement.ScoreQuery, len(cands))
	rs := make([]measurement.Release, len(cands))
	for i := range cands {
		c := &cands[i]
		noise, err := measurement.Calibrate(e.o.ScoreNoise, sens, sens, rhos[i])
		if err != nil {
			return err
		}
		rs[i] = measurement.Release{Purpose: fmt.Sprintf("%s score %s", e.o.Score, e.names([]int{c.A, c.B})), Parties: parties[i], Noise: noise}
		qs[i] = measurement.ScoreQuery{Kind: e.o.Score, A: c.A, B: c.B, RefA: e.refs[c.A], RefB: e.refs[c.B], N: e.o.Records}
	}
	scores, err := e.scoreAll(ctx, qs, rs)
	if err != nil {
		return err
	}
	for i := range cands {
		c := &cands[i]
		e.res.Plan = append(e.res.Plan, Planned{Attrs: []int{c.A, c.B}, Release: rs[i]})
		c.Score = scores[i]
		c.Owner = ownerOf(c.A, c.B, e.owner, budgets3)
		e.progress("pair scores", i+1, len(cands))
	}
	e.res.Candidates = cands
	return nil
}

// scoreAll measures independent scores, in one batch when the measurer
// is a Batcher.
func (e *engine) scoreAll(ctx context.Context, qs []measurement.ScoreQuery, rs []measurement.Release) ([]float64, error) {
	if b, ok := e.m.(measurement.Batcher); ok && len(qs) > 1 {
		out, err := b.Scores(ctx, qs, rs)
		if err != nil {
			return nil, fmt.Errorf("marginal: measuring %s and %d more: %w", rs[0].Purpose, len(rs)-1, err)
		}
		if len(out) != len(qs) {
			return nil, fmt.Errorf("marginal: measurer returned %d scores, want %d", len(out), len(qs))
		}
		return out, nil
	}
	out := make([]float64, len(qs))
	for i, q := range qs {
		s, err := e.m.Score(ctx, q, rs[i])
		if err != nil {
			return nil, fmt.Errorf("marginal: measuring %s: %w", rs[i].Purpose, err)
		}
		out[i] = s
	}
	return out, nil
}

func (e *engine) selectBudgets() []float64 {
	return e.o.stageBudgets(e.o.Split.Marginals * (1 - e.o.Mu))
}

func (e *engine) selectPairs(context.Context) error {
	if len(e.res.Candidates) == 0 {
		return nil
	}
	_, l2 := measurement.CountSensitivity(e.o.Neighbours)
	sel, err := selectPairs(selectOptions{Candidates: e.res.Candidates, Budgets: e.selectBudgets(), L2: l2})
	if err != nil {
		return err
	}
	e.res.Selection = sel
	return nil
}

// measureSets returns the attribute sets measured with ρ_3: the selected
// pairs combined under the cap, plus the one-way marginal of every
// attribute no set covers (so ρ_3 is never left idle).
func (e *engine) measureSets() ([][]int, error) {
	var pairs [][2]int
	for _, i := range e.res.Selection.Chosen {
		c := e.res.Candidates[i]
		pairs = append(pairs, [2]int{c.A, c.B})
	}
	sets, err := combine(pairs, e.o.Domain.Sizes(), e.o.Combine)
	if err != nil {
		return nil, err
	}
	covered := make([]bool, e.o.Domain.Len())
	for _, s := range sets {
		for _, a := range s {
			covered[a] = true
		}
	}
	for j, c := range covered {
		if !c {
			sets = append(sets, []int{j})
		}
	}
	return sets, nil
}

// marginals is Algorithm 3, steps 5-6.
func (e *engine) marginals(ctx context.Context) error {
	sets, err := e.measureSets()
	if err != nil {
		return err
	}
	parties := make([][]int, len(sets))
	weights := make([]float64, len(sets))
	for i, s := range sets {
		c, ok := e.o.Domain.Cells(s)
		if !ok {
			return fmt.Errorf("marginal: set %v is too large", s)
		}
		parties[i] = partiesOf(e.owner, s)
		weights[i] = math.Pow(float64(c), 2.0/3)
	}
	rhos, err := allocate(e.o.stageBudgets(e.o.Split.Marginals), parties, weights)
	if err != nil {
		return err
	}
	rs := make([]measurement.Release, len(sets))
	for i, s := range sets {
		noise, err := measurement.CountNoise(e.o.MarginalNoise, e.o.Neighbours, rhos[i])
		if err != nil {
			return err
		}
		rs[i] = measurement.Release{Purpose: "marginal " + e.names(s), Parties: parties[i], Noise: noise}
	}
	ms, err := e.measureAll(ctx, sets, rs)
	if err != nil {
		return err
	}
	for i, nm := range ms {
		e.res.Measured = append(e.res.Measured, nm)
		e.progress("marginals", i+1, len(sets))
	}
	return nil
}

// postProcess merges each published one-way marginal with a re-measured
// one of the same attribute, then makes everything consistent and
// non-negative.
func (e *engine) postProcess(context.Context) error {
	var targets []*infer.Noisy
	measuredOne := map[int]*infer.Noisy{}
	for _, m := range e.res.Measured {
		if len(m.Attrs) == 1 {
			measuredOne[m.Attrs[0]] = m
		}
	}
	for j, ow := range e.res.OneWays {
		t := &infer.Noisy{Marginal: ow.Marginal.Clone(), Variance: ow.Variance}
		if m, ok := measuredOne[j]; ok {
			var err error
			if t, err = infer.Merge(ow, m); err != nil {
				return err
			}
		}
		targets = append(targets, t)
	}
	for _, m := range e.res.Measured {
		if len(m.Attrs) > 1 {
			targets = append(targets, &infer.Noisy{Marginal: m.Marginal.Clone(), Variance: m.Variance})
		}
	}
	if err := infer.Consistent(targets, infer.ConsistencyOptions{Total: float64(e.o.Records), Rounds: e.o.ConsistencyRounds}); err != nil {
		return err
	}
	e.res.Targets = targets
	return nil
}

func (e *engine) gum(ctx context.Context) error {
	if e.o.Inference == InferencePGM {
		return e.pgm(ctx)
	}
	targets := make([]*domain.Marginal, len(e.res.Targets))
	for i, t := range e.res.Targets {
		targets[i] = t.Marginal
	}
	g := e.o.GUM
	user := g.Progress
	g.Progress = func(done, total int) {
		e.progress("GUM rounds", done, total)
		if user != nil {
			user(done, total)
		}
	}
	ds, err := infer.GUM(ctx, e.o.Domain.Sizes(), targets, g)
	if err != nil {
		return err
	}
	e.res.Data = ds
	return nil
}

// pgm fits a graphical model to the raw noisy one-way and selected
// marginals (Estimate weighs each by its noise variance) and samples the
// records from it.
func (e *engine) pgm(ctx context.Context) error {
	ms := append(slices.Clone(e.res.OneWays), e.res.Measured...)
	model, err := infer.Estimate(ctx, e.o.Domain.Sizes(), ms, infer.EstimateOptions{Total: float64(e.o.Records), Iters: e.o.PGMIters})
	if err != nil {
		return err
	}
	e.res.Model = model
	e.res.Data, err = model.Sample(e.o.GUM.Fitted(), e.o.Source)
	return err
}

// partiesOf returns the sorted distinct parties owning attrs.
func partiesOf(owner []int, attrs []int) []int {
	var ps []int
	for _, a := range attrs {
		if !slices.Contains(ps, owner[a]) {
			ps = append(ps, owner[a])
		}
	}
	slices.Sort(ps)
	return ps
}
