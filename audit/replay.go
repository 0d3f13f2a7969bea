package audit

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/engine/marginal/infer"
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

// ReplayVariants are the variants of the replay audits, sound first.
var ReplayVariants = []string{VariantSound, VariantDuplicated}

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

// Replayed is one noisy release of a run as the replay compares it.
type Replayed struct {
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

// Charge is what the release was charged.
func (r Replayed) Charge() privacy.Charge { return r.charge }

// CompareRuns compares two runs' releases in order up to the first whose
// queries differ. adaptive, if set, returns how far release i's query
// itself moved between the runs (0 for a fixed query).
func CompareRuns(a, b []Replayed, adaptive func(i int) (float64, error)) (PairReplay, error) {
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

// ReplayTables are the canary tables of a replay audit's variant.
func ReplayTables(variant string) ([2]*data.Table, error) {
	dTab, dPrime, _ := CanaryTables(PipelineAttrs, CanaryRecords)
	switch variant {
	case "", VariantSound:
	case VariantDuplicated:
		for _, t := range []*data.Table{dTab, dPrime} {
			copy(t.Rows[1], t.Rows[0])
		}
	default:
		return [2]*data.Table{}, fmt.Errorf("audit: the replay audits have no variant %q (want one of %v)", variant, ReplayVariants)
	}
	return [2]*data.Table{D: dTab, DPrime: dPrime}, nil
}

// OneWayTruth are the exact one-way counts of every attribute of t,
// concatenated in attribute order: the values the replay audits' release
// (the noisy one-way marginals) is the noisy version of.
func OneWayTruth(t *data.Table) []float64 {
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

// OneWays concatenates a run's published noisy one-way marginals.
func OneWays(res *marginal.Result, dim int) ([]float64, error) {
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

// ReplayMechanism assembles a replay audit: release writes one side's
// noisy one-way marginals (the black-box statistic is their Gaussian
// LLR at the one-way noise scale: linear in the values, so the scale only
// scales it), pair replays a seed on both sides.
func ReplayMechanism(name string, tables [2]*data.Table, report *privacy.Report, scale float64,
	release func(Side, *randx.Source, []float64) error, pair func(uint64) (PairReplay, error)) (Mechanism, error) {
	claim, delta, err := pipelineClaim(PipelineSpec{Name: name}, report)
	if err != nil {
		return Mechanism{}, err
	}
	truth := [2][]float64{OneWayTruth(tables[D]), OneWayTruth(tables[DPrime])}
	sigma := make([]float64, len(truth[D]))
	for i := range sigma {
		sigma[i] = scale
	}
	return Mechanism{
		Name:       "replay " + name,
		Claim:      claim,
		Delta:      delta,
		Pair:       fmt.Sprintf("%d records over %d categorical attributes of 3 categories; D' replaces record 0 by the canary holding the rare category of every attribute; released: the noisy one-way marginals (replayed: every noisy release)", CanaryRecords, PipelineAttrs),
		Dim:        len(truth[D]),
		Release:    release,
		Statistic:  GaussianLLR(truth[D], truth[DPrime], sigma),
		Truth:      func(s Side) []float64 { return slices.Clone(truth[s]) },
		ReplayPair: pair,
	}, nil
}

// MeasuredRelease is the replay of release i of the plan, p, whose noisy
// marginal is n, charged c.
func MeasuredRelease(i int, p marginal.Planned, n *infer.Noisy, c privacy.Charge) (Replayed, error) {
	if !slices.Equal(n.Attrs, p.Attrs) {
		return Replayed{}, fmt.Errorf("audit: release %d is over %v, its marginal over %v", i+1, p.Attrs, n.Attrs)
	}
	return ReplayedRelease(p.Release.Purpose, p.Attrs, c, n.Counts), nil
}

// ReplayedRelease is the replay of a release of kind over attrs, released as v
// and charged c: comparable with the other run's when the kind, the
// attributes, the size and the charge all match.
func ReplayedRelease(kind string, attrs []int, c privacy.Charge, v []float64) Replayed {
	return Replayed{query: fmt.Sprintf("%s %v %d %v", kind, attrs, len(v), c.Spec), charge: c, values: v}
}

// AdaptiveReleases pairs the adaptive method's charges with its releases:
// the measured marginals in plan order (the one-ways first), and between
// them each round's selection, whose outcome is the set the round then
// measured (a round without one, the label's star, is a measurement only).
func AdaptiveReleases(eng *marginal.Result, charges []privacy.Charge) ([]Replayed, error) {
	plan := eng.Plan
	var rounds []marginal.Round // the rounds with a selection, charged each
	for _, r := range eng.Rounds {
		if r.Selected() {
			rounds = append(rounds, r)
		}
	}
	if len(charges) != len(plan)+len(rounds) || len(plan) != len(eng.Measured) {
		return nil, fmt.Errorf("audit: %d charges for %d measured releases and %d selections", len(charges), len(plan), len(rounds))
	}
	out := make([]Replayed, 0, len(charges))
	k, r := 0, 0
	for i, c := range charges {
		if k < len(plan) && c.Purpose == plan[k].Release.Purpose {
			rel, err := MeasuredRelease(i, plan[k], eng.Measured[k], c)
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
		out = append(out, Replayed{query: fmt.Sprintf("%s %v chose %v", c.Purpose, c.Spec, rounds[r].Attrs), charge: c, choice: true})
		r++
	}
	return out, nil
}

// ReplayPairs is the replay check of m (which must state ReplayPair) on
// runs pairs of same-seed runs, with the worst release over all pairs.
func ReplayPairs(m Mechanism, runs, workers int, src *randx.Source) (*Replay, error) {
	return replayPairs(m, runs, workers, src, &progress{})
}
