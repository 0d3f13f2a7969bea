package audit

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/method/rowsynth"
	proto "github.com/dppub/dppub/method/rowsynth/roles"
	"github.com/dppub/dppub/method/synthesize"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// Replay audits run a whole pipeline on D and on D' from the same seeded
// randomness and check that every noisy release moved by at most the
// sensitivity its accountant charge declares. Every noise draw of a run
// depends only on the sequence of releases asked for (their sizes and
// scales), never on the data, so with identical tapes the noise is the
// same on both sides and release(D) − release(D') is the true difference
// of the query, which must lie within the charge's sensitivity in the
// charge's norm (L1 or L2), plus the rounding to the release's grid (at
// most one grid step per value). A release whose query is defined by
// earlier noisy releases (the paper's IInDif score, computed against the
// published one-way marginals) may also move by as much as its query
// moved with them, which the replay computes from both runs. Where the
// runs stop asking the same queries (an adaptive choice made on noisy
// values that differ between D and D'), the comparison of that pair stops.
//
// This is the check no black-box audit can make: a release charged for a
// sensitivity below its true one (a record counted twice, a wrong
// constant in a calibration) shows on the first pair, however small the
// excess, where a count on the synthetic table would need its ε to grow
// far beyond the claim. It says nothing about what is not a charged
// release (that is the pipeline audits' part) and nothing about the noise
// (the grey-box features and the mechanism audits').
//
// The replay audits are registered as methods whose release, for the
// black-box and grey-box audits, is the pipeline's noisy one-way
// marginals on one side (the releases every run makes, on a fixed
// layout); `dppub audit replay-… --greybox` and the grey-box suite run
// the replay itself (GreyBox's replay check with the mechanism's
// ReplayPair).

// VariantDuplicated reads record 0 of each table over record 1 too (as a
// join or decoding bug would): D and D' then differ in two records while
// every release still declares the sensitivity of one, and moves by
// twice as much.
const VariantDuplicated = "duplicated"

// replayVariants are the variants of the replay audits, sound first.
var replayVariants = []string{VariantSound, VariantDuplicated}

func init() {
	register(Method{Name: "replay-" + synthesize.Name, Summary: fmt.Sprintf("same seed on D and D': every noisy release of the whole `%s` pipeline (one owner, ρ = %g, the canary tables; the default, auto, runs the adaptive method there, whose selections are compared by their outcome) within its charge's sensitivity (with --greybox; without, the black-box audit of its one-way marginals); --mechanism picks its option (%s)",
		synthesize.Name, pipelineRho, synthesizeOptionNames()),
		Calibrations: replayVariants, FastRuns: 1_000, LongRuns: 10_000,
		build: func(o MethodOptions) (Mechanism, error) { return ReplaySynthesize(o.Calibration, o.Mechanism) }})
	register(Method{Name: "replay-" + rowsynth.Name, Summary: fmt.Sprintf("same seed on D and D': every noisy release of a whole synthesize-rows session (%d owners of rows, ρ = %g each, the canary in owner 1's rows) within its charge's sensitivity (with --greybox; without, the black-box audit of its one-way marginals); --mechanism exact for the exact noise mode",
		pipelineOwners, pipelineRho),
		Calibrations: replayVariants, FastRuns: 1_000, LongRuns: 10_000,
		build: func(o MethodOptions) (Mechanism, error) { return ReplayRows(o.Calibration, o.Mechanism) }})
}

// ReleaseMove is one noisy release compared between the runs on D and D'.
type ReleaseMove struct {
	// Release is the charge's purpose.
	Release string `json:"release"`
	// Norm is the p of the charge's norm; Moved the ℓp distance between
	// the two runs' values; Bound the sensitivity plus the grid's rounding
	// (plus, for a query defined by earlier releases, its own move).
	Norm  float64 `json:"norm"`
	Moved float64 `json:"moved"`
	Bound float64 `json:"bound"`
}

func (r ReleaseMove) ratio() float64 {
	if !(r.Bound > 0) {
		return math.Inf(1)
	}
	return r.Moved / r.Bound
}

// Exceeded reports a move beyond the bound (beyond the rounding of the
// comparison itself).
func (r ReleaseMove) Exceeded() bool { return !(r.Moved <= r.Bound*(1+1e-9)) }

func (r ReleaseMove) String() string {
	return fmt.Sprintf("%s moved %.6g in ℓ%g, bound %.6g", r.Release, r.Moved, r.Norm, r.Bound)
}

// PairReplay is the comparison of one same-seed pair of whole runs.
type PairReplay struct {
	// Compared is the number of releases compared; Diverged says that the
	// runs' queries differed from release Compared+1 on.
	Compared int
	Diverged bool
	// Worst is the compared release with the largest Moved/Bound.
	Worst ReleaseMove
}

// replayed is one noisy release of a run as the replay compares it.
type replayed struct {
	// query identifies what was asked (kind, attributes, size, noise):
	// releases of the two runs with equal queries are comparable.
	query  string
	charge privacy.Charge
	values []float64
	// choice marks a private selection (the adaptive method's rounds):
	// its query holds the outcome, so equal queries mean the same set was
	// chosen on both sides; it has no values to move.
	choice bool
}

// compareRuns compares two runs' releases in order up to the first whose
// queries differ. adaptive, if set, returns how far release i's query
// itself moved between the runs (0 for a fixed query).
func compareRuns(a, b []replayed, adaptive func(i int) (float64, error)) (PairReplay, error) {
	var pr PairReplay
	worst := -1.0
	for i := range min(len(a), len(b)) {
		if a[i].query != b[i].query {
			pr.Diverged = true
			return pr, nil
		}
		if a[i].choice {
			pr.Compared++
			continue
		}
		mv, err := replayMove(a[i].charge, a[i].values, b[i].values)
		if err != nil {
			return pr, err
		}
		if adaptive != nil {
			extra, err := adaptive(i)
			if err != nil {
				return pr, err
			}
			mv.Bound += extra
		}
		pr.Compared++
		if r := mv.ratio(); r > worst {
			worst, pr.Worst = r, mv
		}
	}
	pr.Diverged = len(a) != len(b)
	return pr, nil
}

// replayMove measures one release's move in its charge's norm and its
// bound: the charge's sensitivity plus one grid step per value (two
// roundings of at most half a step), in that norm. The grid is the one
// the charge's noise is released on (dp.PlanGaussian or dp.PlanLaplace
// of its sensitivity and scale over the release's values).
func replayMove(c privacy.Charge, a, b []float64) (ReleaseMove, error) {
	s := c.Spec
	mv := ReleaseMove{Release: c.Purpose}
	switch s.Norm {
	case "L1":
		mv.Norm = 1
	case "L2":
		mv.Norm = 2
	default:
		return mv, fmt.Errorf("audit: release %q states a sensitivity in norm %q (want L1 or L2)", c.Purpose, s.Norm)
	}
	if len(a) != len(b) || len(a) == 0 {
		return mv, fmt.Errorf("audit: release %q has %d values on D and %d on D'", c.Purpose, len(a), len(b))
	}
	var plan dp.GridNoise
	var err error
	switch s.Mechanism {
	case "gaussian":
		plan, err = dp.PlanGaussian(s.Sensitivity, s.Scale, len(a))
	case "laplace":
		plan, err = dp.PlanLaplace(s.Sensitivity, s.Guarantee.Epsilon, len(a))
	default:
		err = fmt.Errorf("mechanism %q is not a grid release", s.Mechanism)
	}
	if err != nil {
		return mv, fmt.Errorf("audit: release %q: %w", c.Purpose, err)
	}
	mv.Moved = distance(a, b, mv.Norm)
	mv.Bound = s.Sensitivity + plan.Grid*math.Pow(float64(len(a)), 1/mv.Norm)
	return mv, nil
}

// replayPairs is GreyBox's replay check with m.ReplayPair: runs pairs, in
// parallel, their seeds drawn from src first so that the result does not
// depend on the workers; the reported release is the one with the
// largest Moved/Bound over all pairs (the first such pair on ties).
func replayPairs(m Mechanism, runs, workers int, src *randx.Source, prog *progress) (*Replay, error) {
	seeds := make([]uint64, runs)
	for i := range seeds {
		seeds[i] = src.Uint64()
	}
	results := make([]PairReplay, runs)
	errs := make([]error, runs)
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i], errs[i] = m.ReplayPair(seeds[i])
				prog.add(2)
			}
		}()
	}
	for i := range seeds {
		next <- i
	}
	close(next)
	wg.Wait()
	r := &Replay{Runs: runs}
	worst := -1.0
	for i, pr := range results {
		if errs[i] != nil {
			return nil, fmt.Errorf("audit: %s: replay with seed %d: %w", m.Name, seeds[i], errs[i])
		}
		r.Releases += pr.Compared
		if pr.Diverged {
			r.Diverged++
		}
		if pr.Compared > 0 && pr.Worst.ratio() > worst {
			worst = pr.Worst.ratio()
			r.MaxDiff, r.Bound, r.Norm, r.Worst = pr.Worst.Moved, pr.Worst.Bound, pr.Worst.Norm, pr.Worst.Release
			r.Exceeded = pr.Worst.Exceeded()
		}
	}
	if r.Releases == 0 {
		return nil, fmt.Errorf("audit: %s: the replay compared no release", m.Name)
	}
	return r, nil
}

// replayTables are the canary tables of a replay audit's variant.
func replayTables(variant string) ([2]*data.Table, error) {
	dTab, dPrime, _ := canaryTables(pipelineAttrs, canaryRecords)
	switch variant {
	case "", VariantSound:
	case VariantDuplicated:
		for _, t := range []*data.Table{dTab, dPrime} {
			copy(t.Rows[1], t.Rows[0])
		}
	default:
		return [2]*data.Table{}, fmt.Errorf("audit: the replay audits have no variant %q (want one of %v)", variant, replayVariants)
	}
	return [2]*data.Table{D: dTab, DPrime: dPrime}, nil
}

// oneWayTruth are the exact one-way counts of every attribute of t,
// concatenated in attribute order: the values the replay audits' release
// (the noisy one-way marginals) is the noisy version of.
func oneWayTruth(t *data.Table) []float64 {
	var out []float64
	for j, a := range t.Schema.Attributes {
		c := make([]float64, len(a.Categories))
		for _, row := range t.Rows {
			c[int(row[j])]++
		}
		out = append(out, c...)
	}
	return out
}

// oneWays concatenates a run's published noisy one-way marginals.
func oneWays(res *marginal.Result, dim int) ([]float64, error) {
	var out []float64
	for _, n := range res.OneWays {
		out = append(out, n.Counts...)
	}
	if len(res.OneWays) == 0 {
		// The adaptive method measures every one-way marginal first.
		for _, n := range res.Measured {
			if len(n.Attrs) != 1 || len(out) >= dim {
				break
			}
			out = append(out, n.Counts...)
		}
	}
	if len(out) != dim {
		return nil, fmt.Errorf("audit: %d one-way values, want %d", len(out), dim)
	}
	return out, nil
}

// replayMechanism assembles a replay audit: release writes one side's
// noisy one-way marginals (the black-box statistic is their Gaussian
// LLR at the one-way noise scale: linear in the values, so the scale only
// scales it), pair replays a seed on both sides.
func replayMechanism(name string, tables [2]*data.Table, report *privacy.Report, scale float64,
	release func(Side, *randx.Source, []float64) error, pair func(uint64) (PairReplay, error)) (Mechanism, error) {
	claim, delta, err := pipelineClaim(pipelineSpec{name: name}, report)
	if err != nil {
		return Mechanism{}, err
	}
	truth := [2][]float64{oneWayTruth(tables[D]), oneWayTruth(tables[DPrime])}
	sigma := make([]float64, len(truth[D]))
	for i := range sigma {
		sigma[i] = scale
	}
	return Mechanism{
		Name:       "replay " + name,
		Claim:      claim,
		Delta:      delta,
		Pair:       fmt.Sprintf("%d records over %d categorical attributes of 3 categories; D' replaces record 0 by the canary holding the rare category of every attribute; released: the noisy one-way marginals (replayed: every noisy release)", canaryRecords, pipelineAttrs),
		Dim:        len(truth[D]),
		Release:    release,
		Statistic:  GaussianLLR(truth[D], truth[DPrime], sigma),
		Truth:      func(s Side) []float64 { return slices.Clone(truth[s]) },
		ReplayPair: pair,
	}, nil
}

// ReplaySynthesize is the replay audit of `synthesize` (synthesize.Publish,
// one owner, ρ = 0.04, the canary tables) with the selection or inference
// option named by option ("" for the default) and the variant named
// (VariantSound or VariantDuplicated). Its releases, in the order of the
// owner's accountant charges, are the engine's plan: the one-way
// marginals, the pair scores (scalars) and the measured marginals.
func ReplaySynthesize(variant, option string) (Mechanism, error) {
	set, err := synthesizeOption("replay-"+synthesize.Name, option)
	if err != nil {
		return Mechanism{}, err
	}
	tables, err := replayTables(variant)
	if err != nil {
		return Mechanism{}, err
	}
	run := func(side Side, src *randx.Source) (*synthesize.Result, error) {
		o := synthesize.Options{Table: tables[side], Rho: pipelineRho, Source: src}
		set(&o)
		return synthesize.Publish(context.Background(), o)
	}
	sound, err := run(D, randx.NewSeeded(0))
	if err != nil {
		return Mechanism{}, fmt.Errorf("audit: replay-%s: %w", synthesize.Name, err)
	}
	var probe synthesize.Options
	set(&probe)
	iindif := probe.Score == "" || probe.Score == marginal.IInDif
	charges, err := synthesizeReleases(sound)
	if err != nil {
		return Mechanism{}, err
	}
	name := synthesize.Name
	if option != "" {
		name += " " + option
	}
	if variant != "" && variant != VariantSound {
		name += " (" + variant + ")"
	}
	dim := len(oneWayTruth(tables[D]))
	return replayMechanism(name, tables, sound.Report, charges[0].charge.Spec.Scale,
		func(side Side, src *randx.Source, out []float64) error {
			res, err := run(side, src)
			if err != nil {
				return err
			}
			v, err := oneWays(res.Engine, dim)
			copy(out, v)
			return err
		},
		func(seed uint64) (PairReplay, error) {
			var runs [2]*synthesize.Result
			var rel [2][]replayed
			for _, side := range []Side{D, DPrime} {
				if runs[side], err = run(side, randx.NewSeeded(seed)); err != nil {
					return PairReplay{}, err
				}
				if rel[side], err = synthesizeReleases(runs[side]); err != nil {
					return PairReplay{}, err
				}
			}
			var adaptive func(int) (float64, error)
			if iindif {
				adaptive = func(i int) (float64, error) { return iindifMove(runs[D], runs[DPrime], i, tables[D].Len()) }
			}
			return compareRuns(rel[D], rel[DPrime], adaptive)
		})
}

// synthesizeReleases pairs the owner's charges with the engine's plan and
// the released values: one-way marginals, scores, measured marginals.
func synthesizeReleases(res *synthesize.Result) ([]replayed, error) {
	if len(res.Report.Parties) != 1 {
		return nil, fmt.Errorf("audit: synthesize reported %d parties, want one owner", len(res.Report.Parties))
	}
	charges := res.Report.Parties[0].Charges
	if res.Method == marginal.MethodAdaptive {
		return adaptiveReleases(res.Engine, charges)
	}
	eng := res.Engine
	plan := eng.Plan
	d, c := len(eng.OneWays), len(eng.Candidates)
	if len(charges) != len(plan) || len(plan) != d+c+len(eng.Measured) {
		return nil, fmt.Errorf("audit: %d charges for %d planned releases (%d one-way, %d scores, %d marginals)", len(charges), len(plan), d, c, len(eng.Measured))
	}
	out := make([]replayed, len(plan))
	for i, p := range plan {
		if charges[i].Purpose != p.Release.Purpose {
			return nil, fmt.Errorf("audit: charge %d is for %q, the plan's release %d for %q", i+1, charges[i].Purpose, i+1, p.Release.Purpose)
		}
		var err error
		switch {
		case i < d:
			out[i], err = measuredRelease(i, p, eng.OneWays[p.Attrs[0]], charges[i])
		case i < d+c:
			out[i] = release(p.Release.Purpose, p.Attrs, charges[i], []float64{eng.Candidates[i-d].Score})
		default:
			out[i], err = measuredRelease(i, p, eng.Measured[i-d-c], charges[i])
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// measuredRelease is the replay of release i of the plan, p, whose noisy
// marginal is n, charged c.
func measuredRelease(i int, p marginal.Planned, n *marginal.Noisy, c privacy.Charge) (replayed, error) {
	if !slices.Equal(n.Attrs, p.Attrs) {
		return replayed{}, fmt.Errorf("audit: release %d is over %v, its marginal over %v", i+1, p.Attrs, n.Attrs)
	}
	return release(p.Release.Purpose, p.Attrs, c, n.Counts), nil
}

// release is the replay of a release of kind over attrs, released as v
// and charged c: comparable with the other run's when the kind, the
// attributes, the size and the charge all match.
func release(kind string, attrs []int, c privacy.Charge, v []float64) replayed {
	return replayed{query: fmt.Sprintf("%s %v %d %v", kind, attrs, len(v), c.Spec), charge: c, values: v}
}

// adaptiveReleases pairs the adaptive method's charges with its releases:
// the measured marginals in plan order (the one-ways first), and between
// them each round's selection, whose outcome is the set the round then
// measured.
func adaptiveReleases(eng *marginal.Result, charges []privacy.Charge) ([]replayed, error) {
	plan, rounds := eng.Plan, eng.Rounds
	if len(charges) != len(plan)+len(rounds) || len(plan) != len(eng.Measured) {
		return nil, fmt.Errorf("audit: %d charges for %d measured releases and %d selections", len(charges), len(plan), len(rounds))
	}
	out := make([]replayed, 0, len(charges))
	k, r := 0, 0
	for i, c := range charges {
		if k < len(plan) && c.Purpose == plan[k].Release.Purpose {
			rel, err := measuredRelease(i, plan[k], eng.Measured[k], c)
			if err != nil {
				return nil, err
			}
			out = append(out, rel)
			k++
			continue
		}
		if r == len(rounds) {
			return nil, fmt.Errorf("audit: charge %d (%q) is neither the next measurement (%q) nor a selection", i+1, c.Purpose, plan[min(k, len(plan)-1)].Release.Purpose)
		}
		out = append(out, replayed{query: fmt.Sprintf("%s %v chose %v", c.Purpose, c.Spec, rounds[r].Attrs), charge: c, choice: true})
		r++
	}
	return out, nil
}

// iindifMove is how far the IInDif score of release i, Σ_ij |a_i b_j/n −
// N_ij| with a and b the reference one-way counts (the published one-way
// marginals, normalised to n by marginal.NormSub as the engine does),
// may move because its references did: Σ_ij |a_i b_j − a'_i b'_j|/n, by
// the triangle inequality. Its sensitivity, 2, holds for fixed
// references. Releases other than scores move with their data alone.
func iindifMove(a, b *synthesize.Result, i, n int) (float64, error) {
	d, c := len(a.Engine.OneWays), len(a.Engine.Candidates)
	if i < d || i >= d+c {
		return 0, nil
	}
	ca, cb := a.Engine.Candidates[i-d], b.Engine.Candidates[i-d]
	if ca.A != cb.A || ca.B != cb.B {
		return 0, fmt.Errorf("audit: score %d is over (%d, %d) on D and (%d, %d) on D'", i-d+1, ca.A, ca.B, cb.A, cb.B)
	}
	ref := func(r *synthesize.Result, j int) []float64 {
		v := slices.Clone(r.Engine.OneWays[j].Counts)
		marginal.NormSub(v, float64(n))
		return v
	}
	aA, aB, bA, bB := ref(a, ca.A), ref(a, ca.B), ref(b, ca.A), ref(b, ca.B)
	s := 0.0
	for x := range aA {
		for y := range aB {
			s += math.Abs(aA[x]*aB[y] - bA[x]*bB[y])
		}
	}
	return s / float64(n), nil
}

// ReplayRows is the replay audit of synthesize-rows (3 owners of rows,
// ρ = 0.04 each, the canary tables split in row order) in the noise mode
// named by mode ("" for insider-safe, or "exact") and the variant named.
// Its releases are the requests in order, each paired with owner 1's
// charge for it (the other owners' must be the same) and valued by the
// sum of the owners' words the coordinator received (protocol.Recorder),
// the pooled counts plus the owners' noise shares on the release's grid:
// the published value minus the coordinator's share in insider-safe mode,
// which the same tape makes the same on both sides.
func ReplayRows(variant, mode string) (Mechanism, error) {
	if mode != "" && mode != string(rowsynth.NoiseExact) && mode != string(rowsynth.NoiseInsiderSafe) {
		return Mechanism{}, fmt.Errorf("audit: replay-%s has no noise mode %q (want %s or %s)", rowsynth.Name, mode, rowsynth.NoiseInsiderSafe, rowsynth.NoiseExact)
	}
	tables, err := replayTables(variant)
	if err != nil {
		return Mechanism{}, err
	}
	h, err := newRowsHarness(proto.NoiseMode(mode), pipelineRho, tables, pipelineOwners)
	if err != nil {
		return Mechanism{}, err
	}
	sound, err := h.run(D, randx.NewSeeded(0), nil)
	if err != nil {
		return Mechanism{}, fmt.Errorf("audit: replay-%s: %w", rowsynth.Name, err)
	}
	rel, err := sound.releases()
	if err != nil {
		return Mechanism{}, err
	}
	name := fmt.Sprintf("%s (%s noise", rowsynth.Name, h.mode)
	if variant != "" && variant != VariantSound {
		name += ", " + variant
	}
	name += ")"
	dim := len(oneWayTruth(tables[D]))
	return replayMechanism(name, tables, sound.report, rel[0].charge.Spec.Scale,
		func(side Side, src *randx.Source, out []float64) error {
			tr, err := h.run(side, src, nil)
			if err != nil {
				return err
			}
			v, err := oneWays(tr.result.Engine, dim)
			copy(out, v)
			return err
		},
		func(seed uint64) (PairReplay, error) {
			var rel [2][]replayed
			var trs [2]*rowsTrace
			for _, side := range []Side{D, DPrime} {
				tr, err := h.run(side, randx.NewSeeded(seed), nil)
				if err != nil {
					return PairReplay{}, err
				}
				if rel[side], err = tr.releases(); err != nil {
					return PairReplay{}, err
				}
				trs[side] = tr
			}
			return compareRuns(rel[D], rel[DPrime], func(i int) (float64, error) { return rowsScoreMove(trs[D], trs[DPrime], i) })
		})
}

// rowsScoreMove is how far pair score i may move because its public
// reference did (the pooled noisy one-ways it is computed against differ
// between the runs): each owner's summand Σ_ij |N_ij − r_ij| moves by at
// most Σ_ij |r_ij − r'_ij| by the triangle inequality, with r the
// reference on the release's grid (proto.Request.ScoreReference), summed
// over the owners. Releases other than scores move with their data alone.
func rowsScoreMove(a, b *rowsTrace, i int) (float64, error) {
	qa, qb := a.requests[i], b.requests[i]
	if qa.Kind != proto.KindScore {
		return 0, nil
	}
	plan, err := qa.Release.Noise.Plan(1)
	if err != nil {
		return 0, fmt.Errorf("audit: %w", err)
	}
	g := plan.Grid
	s := 0.0
	for k := range a.h.names {
		n := float64(a.h.data[D][k].Len())
		if m := float64(a.h.data[DPrime][k].Len()); m != n {
			return 0, fmt.Errorf("audit: %s holds %v records on D and %v on D'", a.h.names[k], n, m)
		}
		ra, err := qa.ScoreReference(int(n), g)
		if err != nil {
			return 0, fmt.Errorf("audit: %w", err)
		}
		rb, err := qb.ScoreReference(int(n), g)
		if err != nil || len(rb) != len(ra) {
			return 0, fmt.Errorf("audit: score %d's references on D and D' differ in shape (%v)", i, err)
		}
		for c := range ra {
			s += math.Abs(ra[c] - rb[c])
		}
	}
	return s, nil
}

// releases pairs the run's requests with owner 1's charges (every owner
// charges the same releases) and values them by the sum of the words.
func (tr *rowsTrace) releases() ([]replayed, error) {
	charges := tr.accts[0].Charges()
	for k, a := range tr.accts {
		if n := len(a.Charges()); n != len(charges) {
			return nil, fmt.Errorf("audit: %s was charged %d releases, %s %d", tr.h.names[k], n, tr.h.names[0], len(charges))
		}
	}
	if len(charges) != len(tr.requests) {
		return nil, fmt.Errorf("audit: %d charges for %d requests", len(charges), len(tr.requests))
	}
	out := make([]replayed, len(charges))
	for i, q := range tr.requests {
		c := charges[i]
		want := q.Release.Noise.Spec()
		if c.Spec.Norm != want.Norm || c.Spec.Sensitivity != want.Sensitivity || c.Purpose != q.Release.Purpose {
			return nil, fmt.Errorf("audit: charge %d (%s: %v) is not request %d's release (%s: %v)", i+1, c.Purpose, c.Spec, q.ID, q.Release.Purpose, want)
		}
		plan, err := q.Release.Noise.Plan(len(tr.words[i][0]))
		if err != nil {
			return nil, fmt.Errorf("audit: %w", err)
		}
		s := sumWords(tr.words[i])
		v := make([]float64, len(s))
		for j, x := range s {
			v[j] = float64(x) * plan.Grid
		}
		out[i] = release(string(q.Kind), q.Attrs, c, v)
	}
	return out, nil
}
