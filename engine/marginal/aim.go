package marginal

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/dppub/dppub/engine/marginal/infer"
	"github.com/dppub/dppub/engine/marginal/internal/attrset"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/randx"
)

// Method chooses how Synthesize decides what to measure.
type Method string

const (
	// MethodPaper is Algorithm 3 of PDP-MVDS: noisy one-way marginals,
	// noisy pair scores (IInDif or InDif), Algorithm 2's selection and
	// the combined marginals, every party at its own budget. The default,
	// and the only method the multi-party protocol can run.
	MethodPaper Method = "paper"
	// MethodAdaptive is workload-adaptive selection in rounds after AIM
	// (McKenna, Mullins, Sheldon & Miklau, "AIM: an adaptive and iterative
	// mechanism for differentially private synthetic data", VLDB 2022):
	// each round privately picks the workload marginal the current
	// graphical model estimates worst, measures it, and refits the model.
	// It needs a Selector (one owner).
	MethodAdaptive Method = "adaptive"
	// MethodAuto chooses one of the two from the public shape of the run
	// (Resolve): the adaptive method for one owner of a narrow table of
	// small attributes, the paper's otherwise.
	MethodAuto Method = "auto"
)

// AutoMaxAttributes and AutoMaxValues bound the tables MethodAuto gives
// the adaptive method: at most 16 attributes, none with more than 64
// values on the public domain (numeric attributes have the --bins
// equal-width bins, 16 by default). Measured against private-pgm's AIM at
// the same guarantee (docs/results/synthesis/README.md, eleventh run),
// 2-way / 3-way TVD ratio to the mean of AIM's runs, adaptive against
// paper: Shuttle (10 attributes of at most 16 values) 0.97 / 0.97
// against 1.69 / 1.59 at ε = 1; NLTCS (16 binary) 0.49 / 0.49 against
// 0.61 / 0.53 at ε = 1; Adult (15 attributes, native-country with 41
// values) 0.97 / 0.98 against 0.94 / 0.96 at ε = 0.3, 0.97 / 0.99
// against 0.98 / 1.02 at ε = 1, 0.93 / 0.97 against 0.95 / 0.98 at ε = 4,
// 57–113× less CPU than AIM (until the eleventh run's faster inference
// and sampling the paper's method was better on Adult, and the bound was
// 16). The paper's method was better on WDBC (31 attributes), Big5 (57)
// and Musk (167), and 5–100× faster there, before the adaptive method
// started wide tables with a tree of pairs and selected in batches
// (WideBatch); since, synthesize's auto gives a wide table the adaptive
// method when its pairs would be mostly noise (synthesize.AutoWideNoise:
// WDBC and Musk), which Resolve, seeing only the sizes, cannot tell. The
// bounds are read off these six tables, not derived; 64 is above the
// largest attribute measured (41 values).
const (
	AutoMaxAttributes = 16
	AutoMaxValues     = 64
)

// Resolve is the method a run over a public domain of sizes, with
// parties parties, uses: MethodAuto's choice, or m itself. The sizes must
// be the public domain's (the schema's categories and equal-width bins),
// not bins chosen from the data, and the number of parties is public, so
// the choice costs no budget.
func (m Method) Resolve(sizes []int, parties int) Method {
	if m != MethodAuto {
		return m
	}
	large := slices.ContainsFunc(sizes, func(n int) bool { return n > AutoMaxValues })
	if parties == 1 && len(sizes) <= AutoMaxAttributes && !large {
		return MethodAdaptive
	}
	return MethodPaper
}

// Inference chooses how the synthetic records are made from the noisy
// marginals.
type Inference string

const (
	// InferenceGUM post-processes the marginals for consistency and runs
	// PrivSyn's gradually update method (the paper path's default).
	InferenceGUM Inference = "gum"
	// InferencePGM fits a graphical model to the raw noisy marginals
	// (Estimate) and samples from it (Model.Sample); the adaptive
	// method always uses it.
	InferencePGM Inference = "pgm"
)

// Optimizer chooses how the adaptive method fits its graphical model to
// the noisy marginals. Every choice uses only the noisy measurements:
// post-processing.
type Optimizer string

const (
	// OptimizerAuto chooses from the noise of the first rounds' measurements
	// (Resolve), which depends only on public quantities.
	OptimizerAuto Optimizer = "auto"
	// OptimizerMirrorDescent is Private-PGM's mirror descent with a
	// backtracking step size (EstimateOptions.Momentum off).
	OptimizerMirrorDescent Optimizer = "mirror-descent"
	// OptimizerMomentum adds heavy-ball momentum with adaptive restart
	// (EstimateOptions.Momentum) and fits the final model in 250 steps
	// instead of 500.
	OptimizerMomentum Optimizer = "momentum"
)

// ParseOptimizer checks an optimizer's name.
func ParseOptimizer(v string) (Optimizer, error) {
	return optimizers.Parse(v)
}

// Resolve is the optimizer a run uses whose measurements are precise or
// not (precise): OptimizerAuto's choice, or o itself.
func (o Optimizer) Resolve(precise bool) Optimizer {
	if o != OptimizerAuto {
		return o
	}
	if precise {
		return OptimizerMomentum
	}
	return OptimizerMirrorDescent
}

// OptimizerReason says, for a report, how the adaptive method fitted its
// model (ran) when asked for asked, and by which rule.
func OptimizerReason(asked, ran Optimizer) string {
	how := "by mirror descent"
	if ran == OptimizerMomentum {
		how = "by mirror descent with momentum"
	}
	if cmp.Or(asked, OptimizerAuto) != OptimizerAuto {
		return how
	}
	than := "above"
	if ran == OptimizerMomentum {
		than = "at most"
	}
	return fmt.Sprintf("%s, chosen by optimizer auto: a first-round measurement's noise σ was %s %g%% of the public record count", how, than, 100*momentumNoise)
}

// AdaptiveOptions configure MethodAdaptive.
type AdaptiveOptions struct {
	// Workload lists the attribute sets whose marginals should be
	// accurate. Default (DefaultWorkload): every pair, every triple of
	// binary attributes, and every triple holding Label when one is named.
	Workload [][]int
	// Label names the attribute the data will be used to predict (may be
	// empty). With one, rounds that start with a tree (Tree) first
	// measure the label's pair with each other attribute whose
	// measurement would not be mostly noise, chosen without a selection
	// (labelStar), and the tree's selections join the rest.
	Label string
	// Rounds is T: the first rounds each get ρ/T (default DefaultRounds:
	// AIM's 16·d unless the table is too small for it, about 2·d on a
	// table of more than AutoMaxAttributes attributes).
	Rounds int
	// MaxCells caps the junction tree of the model, in cells (8 bytes
	// each): a candidate that would grow it beyond MaxCells·(ρ spent/ρ) is
	// not offered (AIM's size cap, growing with the budget). Default
	// defaultModelCells, or preciseModelCells when the measurements are
	// precise (see precise).
	MaxCells float64
	// SelectShare is the share of each round's budget spent on the
	// selection (default 0.1, AIM's).
	SelectShare float64
	// Selection is the selection mechanism (default SelectExponential,
	// AIM's: at the same ρ its ε is twice permute-and-flip's).
	Selection measurement.SelectMechanism
	// Iters is the number of mirror-descent steps after each round (warm
	// started; default 50) and FinalIters before sampling (default
	// defaultFinalIters, 250 with momentum).
	Iters, FinalIters int
	// Optimizer fits the model (default OptimizerAuto).
	Optimizer Optimizer
	// Penalty is the error the score expects a measurement to leave
	// (default DefaultPenalty).
	Penalty Penalty
	// Batch is how many selections (each charged and measured as a round
	// of its own) follow one another before the model is refitted and the
	// candidates rescored (default WideBatch on a table of more than
	// AutoMaxAttributes attributes, preciseBatch when the measurements
	// are precise and the workload offers at least
	// PreciseBatchCandidates candidates, 1, AIM's, otherwise).
	Batch int
	// MaxCandidates, if positive, caps the candidates a batch offers
	// that do not hold the label: beyond it, a random subset of them
	// (query); those holding it are capped apart, at labelCandidates.
	// Default wideCandidates on a table of more than AutoMaxAttributes
	// attributes, no cap otherwise. The tree's selections (Tree) offer
	// every pair that joins two components.
	MaxCandidates int
	// Premeasured are one-way marginals released before the engine ran,
	// each at the rounds' one-way budget (OneWayRho): the rounds take
	// them in place of measuring those attributes again (MST's order:
	// synthesize releases a small integer attribute's values once,
	// chooses its bins from that release and hands the same release,
	// summed into the bins, to the model).
	Premeasured []Premeasured
	// Tree starts the rounds with a spanning tree of pairs, selected
	// privately one pair at a time against the one-way model, as MST
	// does (always on a table of more than AutoMaxAttributes
	// attributes).
	Tree bool
}

// Premeasured is a one-way marginal released by the caller
// (AdaptiveOptions.Premeasured): its counts and noise over one attribute
// of the engine's domain (with a variance per cell where a bin sums
// several released cells), and the release, charged by the caller, whose
// noise must be the rounds' one-way measurement's.
type Premeasured struct {
	Noisy   *infer.Noisy
	Release measurement.Release
}

// Round is one round of the adaptive method.
type Round struct {
	// Attrs is the measured set.
	Attrs []int
	// Rho is the measurement's zCDP cost, SelectRho the selection's (ε²/8
	// for the exponential mechanism, ε²/2 for permute-and-flip), Epsilon
	// the selection's ε.
	Rho, SelectRho, Epsilon float64
	// Candidates is how many sets were offered.
	Candidates int
	// Annealed says the model barely moved, so later rounds got 4× the
	// budget (σ halved, ε doubled).
	Annealed bool
}

// adaptive runs MethodAdaptive for the single party.
type adaptive struct {
	*engine
	sel      measurement.Selector
	ao       AdaptiveOptions
	rho      float64 // the party's budget
	label    int     // AdaptiveOptions.Label's attribute, −1 for none
	used     float64
	cands    [][]int
	weights  []float64
	measured []*infer.Noisy
	model    *infer.Model
	// shuffle orders the candidates when they are capped (candidateOrder).
	shuffle *randx.Source
	// pending counts the selections of the batch under way, which
	// a.res.Rounds lists only once the batch is refitted.
	pending int
}

func (e *engine) runAdaptive(ctx context.Context) error {
	sel, ok := e.m.(measurement.Selector)
	if !ok {
		return fmt.Errorf("marginal: the adaptive method needs a measurer that can select (one owner); this one cannot")
	}
	if len(e.o.Parties) != 1 {
		return fmt.Errorf("marginal: the adaptive method runs for one party, got %d", len(e.o.Parties))
	}
	ao := e.o.Adaptive
	d := e.o.Domain.Len()
	if err := ao.defaults(d, e.o.Records, e.o.noiseRho(e.o.Parties[0].Rho)); err != nil {
		return err
	}
	label := -1
	if ao.Label != "" {
		j, err := e.o.Domain.Index(ao.Label)
		if err != nil {
			return err
		}
		label = j
	}
	if ao.Workload == nil {
		ao.Workload = DefaultWorkload(e.o.Domain.Sizes(), label)
	}
	e.o.Adaptive.Workload = ao.Workload
	for _, w := range ao.Workload {
		if _, err := attrset.Normalise(w, d); err != nil {
			return fmt.Errorf("marginal: workload: %w", err)
		}
	}
	a := &adaptive{engine: e, sel: sel, ao: ao, rho: e.o.Parties[0].Rho, label: label}
	a.cands, a.weights = candidates(normaliseAll(ao.Workload))
	if e.o.Adaptive.Batch == 0 && d <= AutoMaxAttributes && len(a.cands) < PreciseBatchCandidates {
		a.ao.Batch = 1 // too few candidates for preciseBatch to pay
	}
	if e.o.Adaptive.Batch == 0 && d <= AutoMaxAttributes && a.ao.Batch == preciseBatch {
		a.ao.preciseBatchDefaults(e.o.Adaptive, e.o.Domain.Sizes(), e.o.Records, e.o.noiseRho(a.rho))
	}
	start := time.Now()
	if err := a.rounds(ctx); err != nil {
		return err
	}
	e.res.Timings.Select = time.Since(start)
	start = time.Now()
	model, err := infer.Estimate(ctx, e.o.Domain.Sizes(), a.measured, a.estimateOptions(a.ao.FinalIters))
	if err != nil {
		return err
	}
	e.res.Model, e.res.Optimizer = model, ao.Optimizer
	e.res.Measured = a.measured
	e.res.Timings.PostProcess = time.Since(start)
	start = time.Now()
	if e.res.Data, err = model.Sample(e.o.GUM.Fitted(), e.o.Source); err != nil {
		return err
	}
	e.res.Timings.GUM = time.Since(start)
	return nil
}

func normaliseAll(sets [][]int) [][]int {
	out := make([][]int, len(sets))
	for i, s := range sets {
		out[i] = slices.Clone(s)
		slices.Sort(out[i])
	}
	return out
}

// rounds measures every one-way marginal, then selects and measures in
// rounds until the budget is spent exactly (AIM, Alg. 1): the last round
// takes whatever is left when less than two rounds' worth remains. With
// AdaptiveOptions.Tree the first selections build a spanning tree of
// pairs (treeRounds), after, with AdaptiveOptions.Label, the label's
// pairs that the noise leaves meaningful (labelStar), which the tree then
// joins (only there: on a narrow table, where the rounds select from every
// pair, the star cost 2-way TVD, labelStar); with AdaptiveOptions.Batch above 1 each refit of
// the model follows that many selections (batch).
func (a *adaptive) rounds(ctx context.Context) error {
	d := a.o.Domain.Len()
	s := firstSchedule(a.ao, a.rho)
	done, err := a.premeasured(s.meas)
	if err != nil {
		return err
	}
	for j := range d {
		if !done[j] {
			if err := a.measureSet(ctx, []int{j}, s.meas); err != nil {
				return err
			}
		}
		a.progress("adaptive rounds", j+1, d)
	}
	if err := a.fit(ctx); err != nil {
		return err
	}
	var comp []int // the components the label's pairs leave
	if a.label >= 0 && a.ao.Tree {
		var err error
		if comp, err = a.labelStar(ctx, s); err != nil {
			return err
		}
	}
	if a.ao.Tree {
		if err := a.treeRounds(ctx, s, comp); err != nil {
			return err
		}
	}
	for a.rho-a.used > 1e-12*a.rho {
		annealed, err := a.batch(ctx, s, a.ao.Batch)
		if err != nil {
			return err
		}
		if annealed {
			s.meas, s.sel = 4*s.meas, 4*s.sel
		}
		a.progress("adaptive rounds", d+len(a.res.Rounds), d+len(a.res.Rounds)+1)
	}
	return nil
}

// premeasured takes AdaptiveOptions.Premeasured as the rounds' first
// measurements, in the order their releases were charged, after checking
// that each is a one-way marginal of the domain released with the noise
// a round's one-way measurement at rho carries, and reports which
// attributes they cover. Its budget counts as spent.
func (a *adaptive) premeasured(rho float64) (map[int]bool, error) {
	done := map[int]bool{}
	if len(a.ao.Premeasured) == 0 {
		return done, nil
	}
	want, err := measurement.CountNoise(measurement.Gaussian, a.o.Neighbours, rho)
	if err != nil {
		return nil, err
	}
	for _, p := range a.ao.Premeasured {
		n := p.Noisy
		if n == nil || n.Marginal == nil || len(n.Attrs) != 1 || done[n.Attrs[0]] {
			return nil, fmt.Errorf("marginal: premeasured marginals must be one-way, one per attribute")
		}
		if size := a.o.Domain.Sizes()[n.Attrs[0]]; len(n.Counts) != size {
			return nil, fmt.Errorf("marginal: premeasured one-way of %s has %d cells, the domain %d", a.names(n.Attrs), len(n.Counts), size)
		}
		if p.Release.Noise != want || n.Variance != want.Variance() {
			return nil, fmt.Errorf("marginal: premeasured one-way of %s released with %+v (variance %v), the rounds measure with %+v", a.names(n.Attrs), p.Release.Noise, n.Variance, want)
		}
		done[n.Attrs[0]] = true
		a.used += rho
		a.measured = append(a.measured, n)
		a.res.Plan = append(a.res.Plan, Planned{Attrs: n.Attrs, Release: p.Release})
	}
	return done, nil
}

// schedule is the budget of the next round: meas for its measurement,
// sel for its selection.
type schedule struct{ share, meas, sel float64 }

// firstSchedule is the schedule of the first rounds of ao (defaults
// resolved) at budget rho: ρ/T each, SelectShare of it on the selection.
// The rounds and OneWayRho both read it, so a one-way released before the
// engine ran carries exactly the noise the rounds' own would.
func firstSchedule(ao AdaptiveOptions, rho float64) *schedule {
	perRound := rho / float64(ao.Rounds)
	return &schedule{share: ao.SelectShare, meas: (1 - ao.SelectShare) * perRound, sel: ao.SelectShare * perRound}
}

// next returns the next round's budgets: the scheduled ones, or
// everything left when less than two rounds' worth remains (and then
// remembers them, so the loop ends with the budget spent exactly).
func (s *schedule) next(left float64) (meas, sel float64) {
	if left < 2*(s.meas+s.sel) {
		s.meas = (1 - s.share) * left
		s.sel = left - s.meas
	}
	return s.meas, s.sel
}

// measureSet measures the marginal over s with Gaussian noise costing rho.
func (a *adaptive) measureSet(ctx context.Context, s []int, rho float64) error {
	noise, err := measurement.CountNoise(measurement.Gaussian, a.o.Neighbours, rho)
	if err != nil {
		return err
	}
	r := measurement.Release{Purpose: "adaptive marginal " + a.names(s), Parties: []int{0}, Noise: noise}
	nm, err := a.measure(ctx, s, r)
	if err != nil {
		return err
	}
	a.used += rho
	a.measured = append(a.measured, nm)
	return nil
}

// estimateOptions fit the model in iters steps from the last one.
func (a *adaptive) estimateOptions(iters int) infer.EstimateOptions {
	return infer.EstimateOptions{Total: float64(a.o.Records), Iters: iters, Warm: a.model, Momentum: a.ao.Optimizer == OptimizerMomentum}
}

func (a *adaptive) fit(ctx context.Context) error {
	m, err := infer.Estimate(ctx, a.o.Domain.Sizes(), a.measured, a.estimateOptions(a.ao.Iters))
	if err != nil {
		return err
	}
	a.model = m
	return nil
}

// String returns the word as flags and JSON spell it.
func (m Method) String() string { return string(m) }

// String returns the word as flags and JSON spell it.
func (o Optimizer) String() string { return string(o) }
