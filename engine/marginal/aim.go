package marginal

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/dppub/dppub/engine/marginal/infer"
	"github.com/dppub/dppub/engine/marginal/internal/attrset"
	"github.com/dppub/dppub/engine/marginal/internal/parallel"
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

func (m Method) String() string { return string(m) }

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

func (o Optimizer) String() string { return string(o) }

// ParseOptimizer checks an optimizer's name.
func ParseOptimizer(v string) (Optimizer, error) {
	return optimizers.Parse(v)
}

// momentumNoise is the largest noise standard deviation of a first-round
// measurement, as a share of the records n, at which OptimizerAuto uses
// momentum. Reaching the least-squares fit sooner pays when the
// measurements are precise and costs when they are noisy: plain mirror
// descent, stopped after its steps, stays closer to the smooth model it
// started from. Adaptive method, 2-way / 3-way TVD of the synthetic rows,
// mirror descent → momentum (docs/results/synthesis/engine-notes.md):
// Shuttle's training split at ε = 4 (σ = 0.047 % of n, three seeds)
// 0.0054 / 0.0153 → 0.0048 / 0.0134, but at ε = 1 (0.16 %) 0.0088 /
// 0.0207 → 0.0097 / 0.0209; the whole of Shuttle at ε = 0.3 (0.4 %, four
// seeds) 0.0221 / 0.0511 → 0.0233 / 0.0522, Adult at ε = 1 (0.2 %)
// 0.0222 / 0.0505 → 0.0227 / 0.0524, Adult at ε = 4 (0.06 %) level. The
// bound is read off these tables, not derived.
const momentumNoise = 0.001

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
	// empty).
	Label string
	// Rounds is T: the first rounds each get ρ/T (default DefaultRounds:
	// AIM's 16·d unless the table is too small for it).
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
	// MaxCandidates, if positive, caps the candidates a batch offers:
	// beyond it, a random subset of them (query). Default wideCandidates
	// on a table of more than AutoMaxAttributes attributes, no cap
	// otherwise. The tree's selections (Tree) offer every pair that joins
	// two components.
	MaxCandidates int
	// Tree starts the rounds with a spanning tree of pairs, selected
	// privately one pair at a time against the one-way model, as MST
	// does (always on a table of more than AutoMaxAttributes
	// attributes).
	Tree bool
}

// DefaultPenalty is PenaltyClipped. Shuttle's, Adult's and NLTCS's
// training splits (the benchmark's, data-chosen bins), 10 seeds (30 on
// Shuttle at ε = 0.3), 500 final steps, mean 2-way / 3-way TVD of the
// synthetic rows, AIM's penalty → the clipped one
// (docs/results/synthesis/engine-notes.md, "The clipped penalty"):
// Shuttle at ε = 0.3 / 1 / 4: 0.0262 / 0.0537 → 0.0214 / 0.0424, 0.0084
// / 0.0201 → 0.0078 / 0.0187, 0.0038 / 0.0107 → 0.0039 / 0.0108; Adult
// 0.0473 / 0.0916 → 0.0468 / 0.0911, 0.0263 / 0.0590 → 0.0251 / 0.0564,
// 0.0152 / 0.0405 → 0.0148 / 0.0389; NLTCS at ε = 0.3 0.0108 / 0.0211 →
// 0.0103 / 0.0197, level at 1 and 4. Against it: the whole of Shuttle on
// its 16 public bins at ε = 4, seeds 100–102, 0.0030 → 0.0034–0.0036.
const DefaultPenalty = PenaltyClipped

// defaultFinalIters is the final fit's default number of mirror-descent
// steps (without momentum): the fit is warm-started from the last round's
// model, which has had 50 steps after every round. With the clipped
// penalty, 2-way / 3-way TVD and CPU-s per run, 500 → 100 steps: Shuttle
// at ε = 0.3 (10 seeds) 0.0214 / 0.0421 → 0.0202 / 0.0409, 1.27 → 0.86
// CPU-s; at ε = 1 (8 seeds) 0.0079 / 0.0188 → 0.0081 / 0.0193, 3.7 → 2.2
// CPU-s; Adult and NLTCS at ε = 0.3 and 1 within 0.0001 / 0.0003.
// Private-PGM's AIM fits 1 000 (the benchmark caps it at 100:
// docs/results/synthesis/README.md).
const defaultFinalIters = 100

// defaultModelCells is the default cap on the model's junction tree: 2^18
// cells (2 MB per table). On Adult at ε = 1 a cap of 2^21 gave the same
// 2-way and 3-way TVD at four times the run time, and 2^16 a worse one
// (docs/results/synthesis/engine-notes.md).
const defaultModelCells = 1 << 18

// preciseModelCells is the default cap when the measurements are precise
// (see precise): 2^20 cells. A larger model then pays for its time. Shuttle's
// training split at ε = 4, three seeds, 2-way / 3-way TVD: 0.0049 /
// 0.0137 at 2^18 (2.1–2.5 CPU-s), 0.0038 / 0.0108 at 2^20 (4.7–6.5
// CPU-s, with the benchmark's AIM runs on the other core); the whole of
// Adult at ε = 4 (adaptive method), two seeds: 0.0146 / 0.0402 at 2^18,
// 0.0132 / 0.0350 at 2^20, 4.5 times the time
// (docs/results/synthesis/engine-notes.md). At ε = 1 neither table is
// precise, and there 2^20 was no better: 0.0088 / 0.0209 against 0.0086 /
// 0.0204 at 2^18 over six seeds.
const preciseModelCells = 1 << 20

// preciseBatch is the default AdaptiveOptions.Batch when the
// measurements are precise (see precise): eight selections per refit and
// rescoring instead of one. Each selection is still charged and measured
// as a round of its own; what changes is that the model is refitted, and
// the candidates rescored, an eighth as often. On the whole of Adult at
// ρ = 0.5 (docs/results/synthesis/engine-choice.md, "Speed at a large
// budget"), three seeds, mean 2-way / 3-way TVD and CPU-s: one selection
// per refit 0.0126 / 0.0313 in 7.4 s, eight 0.0122 / 0.0317 in 2.5 s
// (the paper engine 0.0124 / 0.0325 in 0.34 s); with the cap at 2^19
// instead of 2^20, eight per refit 0.0125 / 0.0321 in 1.35 s and four
// 0.0129 / 0.0331, sixteen 0.0134 / 0.0338. When the measurements are
// not precise batches were mixed: better on Adult at ρ = 0.01 and 0.02
// and on NLTCS, worse on Adult at ρ = 0.1 (eight per refit 0.0189 /
// 0.0433 against 0.0179 / 0.0400) and on Shuttle at ε = 0.3 and 1 (0.0117
// / 0.0278 against 0.0078 / 0.0192 at ε = 1), so the default there stays
// AIM's one. Nor does it pay with few candidates: on Shuttle (10
// attributes, 55 candidates) at ε = 4, three seeds, eight per refit
// measured 0.0050 / 0.0140 against 0.0037 / 0.0105 (two per refit 0.0046
// / 0.0130, four 0.0041 / 0.0117), at ρ = 1 0.0060 / 0.0161 against
// 0.0040 / 0.0117, so a table of at most AutoMaxAttributes attributes
// batches only when its workload offers at least PreciseBatchCandidates
// candidates (Adult 120, NLTCS 696: at ρ = 1 eight per refit 0.0008 /
// 0.0018 against 0.0009 / 0.0021). The bound is read off these three
// tables, not derived.
const (
	preciseBatch           = 8
	PreciseBatchCandidates = 100
)

// PreciseBatchRounds, PreciseBatchModelCells and PreciseBatchFinalIters
// are the defaults of AdaptiveOptions.Rounds (per attribute), MaxCells and
// FinalIters where a narrow table's selections are batched because its
// measurements are precise (preciseBatch) and its whole domain is larger
// than the cap: 6·d rounds instead of AIM's 16·d, a cap of 2^19 cells
// instead of 2^20, 60 final momentum steps instead of 250. At such a
// budget the model cap binds and the run's time is the fits of the
// largest model (cells × steps), while AIM's 16·d rounds, each more
// precise than the model can use, mostly re-measure what it holds. On
// the whole of Adult at ρ = 0.5, seeds 1–5, mean 2-way / 3-way TVD and
// CPU-s of the run (docs/results/synthesis/engine-choice.md, "Fewer
// rounds, a smaller cap"): AIM's rounds, 2^20, 250 steps 0.0122 / 0.0317
// in 2.05 s; 6·d, 2^19, 60 steps 0.0122 / 0.0316 in 0.80 s (the paper
// engine 0.0125 / 0.0326 in 0.32 s); with 100 final steps 0.0120 / 0.0310
// in 0.89 s, 40 steps 0.0124 / 0.0318; with 40 steps per refit instead of
// 50 (and 100 final steps) 0.0123 / 0.0318; with a cap of 450 000 cells
// 0.0126 / 0.0326. Fewer rounds alone measured better and no faster
// (6.4·d, 2^20, 250 steps, seeds 1–3: 0.0118 / 0.0300 in 2.5 s); fewer
// than 6·d spend too much of ρ on the d one-way rounds (5·d: 0.0128 /
// 0.0326). At ε = 4 (ρ = 0.373), three seeds, 0.0128 / 0.0326
// in 1.93 s → 0.0128 / 0.0324 in 0.82 s; but at ρ = 1, where the cap
// binds harder, 0.0112 / 0.0305 in 2.10 s → 0.0117 / 0.0310 in 0.76 s
// (the paper engine 0.0110 / 0.0318). The constants are read off Adult,
// the only measured table in this regime: NLTCS's whole domain fits the
// cap (preciseBatchDefaults), and Shuttle's 55 candidates keep one
// selection per refit and the precise defaults.
const (
	PreciseBatchRounds     = 6
	PreciseBatchModelCells = 1 << 19
	PreciseBatchFinalIters = 60
)

// preciseBatchDefaults sets the rounds, the cap and the final steps of a
// run batched for its precise measurements on a narrow table over a
// public domain of sizes, each only where asked (the caller's own options)
// left it unset, and only when the whole domain has more cells than
// PreciseBatchModelCells, so that the cap can bind. Where it cannot (NLTCS:
// 16 binary attributes, 65 536 cells) the rounds are what fills the
// model: at ρ = 1 and 2, three seeds, 6·d rounds and 100 final steps
// measured a 3-way TVD of 0.0024 and 0.0022 against AIM's 16·d's 0.0018
// and 0.0016. Fewer rounds give every round more of ρ, so the
// measurements stay precise and the optimizer, chosen from the first
// round's noise, stays.
func (o *AdaptiveOptions) preciseBatchDefaults(asked AdaptiveOptions, sizes []int) {
	cells := 1.0
	for _, s := range sizes {
		cells *= float64(s)
	}
	if cells <= PreciseBatchModelCells {
		return
	}
	d := len(sizes)
	if asked.Rounds == 0 {
		o.Rounds = min(o.Rounds, PreciseBatchRounds*d)
	}
	if asked.MaxCells == 0 {
		o.MaxCells = PreciseBatchModelCells
	}
	if asked.FinalIters == 0 && o.Optimizer == OptimizerMomentum {
		o.FinalIters = PreciseBatchFinalIters
	}
}

// WideBatch and wideCandidates are the defaults of AdaptiveOptions.Batch
// and MaxCandidates on a table of more than AutoMaxAttributes attributes,
// where the rounds also start with a spanning tree of pairs
// (AdaptiveOptions.Tree): AIM's one selection per refit, each over every
// candidate, took 54 CPU-s on Big5 (57 attributes) and 133 on Musk (167)
// at ε = 1, scoring 1 653 and 14 028 candidates' model marginals after
// every refit. With the tree and 500 candidates a batch, three seeds at
// (ε, δ) = (1, 1e-5), mean 2-way / 3-way TVD and CPU-s
// (docs/results/synthesis/engine-choice.md, "Wide tables"): Musk, 32
// selections per refit, 0.2578 / 0.4268 in 8.5 s, 16 per refit 0.2662 /
// 0.4359 in 4.5 s (the paper engine 0.2677 / 0.4465 in 0.66 s); Big5, 32
// per refit, 0.0611 / 0.1022 in 1.7 s, 16 per refit 0.0616 / 0.1026 in
// 2.0 s, eight per refit over every candidate 0.0633 / 0.1040 in 2.9 s
// (the paper engine 0.0494 / 0.0870 in 0.73 s).
const (
	WideBatch      = 32
	wideCandidates = 500
)

// precise reports whether measurements with Gaussian noise of standard
// deviation sigma over n records are precise enough for momentum and the
// larger model cap: sigma at most momentumNoise·n. Both depend only on ρ,
// the number of rounds and the public n.
func precise(sigma float64, n int) bool { return sigma <= momentumNoise*float64(n) }

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

// roundNoise is the largest noise standard deviation, as a share of the
// records n, that DefaultRounds lets a round's measurement carry.
const roundNoise = 0.03

// DefaultRounds is the default T of the adaptive method for d attributes,
// n records (public) and a budget ρ of which a share selectShare of
// every round goes to selection: AIM's 16·d, but no more than keep a
// round's Gaussian noise (σ = √(T / ((1 − selectShare)·ρ)) for Δ₂ = √2)
// at most roundNoise·n per cell, and at least 2·d (the first d rounds
// measure the one-way marginals). AIM's T ignores n: on WDBC (455
// training rows, d = 31, ε = 1) its 496 rounds each carry σ ≈ 134
// records, 29 % of the table, and the adaptive engine's 2-way TVD was
// 0.64 against 0.50 at 62 rounds (docs/results/synthesis, "Sixth run").
// The cap binds only on small tables: Adult, NLTCS and Shuttle keep 16·d
// at every ε the benchmark runs.
func DefaultRounds(d, n int, rho, selectShare float64) int {
	fit := (1 - selectShare) * rho * math.Pow(roundNoise*float64(n), 2)
	t := 16 * d
	if fit < float64(t) {
		t = int(fit)
	}
	return max(t, 2*d)
}

func (o *AdaptiveOptions) defaults(d, n int, rho float64) error {
	o.SelectShare = cmp.Or(o.SelectShare, 0.1)
	o.Rounds = cmp.Or(o.Rounds, DefaultRounds(d, n, rho, o.SelectShare))
	o.Selection = cmp.Or(o.Selection, measurement.SelectExponential)
	o.Iters = cmp.Or(o.Iters, 50)
	o.Penalty = cmp.Or(o.Penalty, DefaultPenalty)
	if _, err := ParsePenalty(string(o.Penalty)); err != nil {
		return fmt.Errorf("marginal: adaptive: %w", err)
	}
	if _, err := ParseOptimizer(string(cmp.Or(o.Optimizer, OptimizerAuto))); err != nil {
		return fmt.Errorf("marginal: adaptive: %w", err)
	}
	first, err := measurement.Calibrate(measurement.Gaussian, measurement.CountL1, measurement.CountL2, (1-o.SelectShare)*rho/float64(o.Rounds))
	if err != nil {
		return fmt.Errorf("marginal: adaptive: %w", err)
	}
	precise := precise(first.Scale, n)
	o.Optimizer = cmp.Or(o.Optimizer, OptimizerAuto).Resolve(precise)
	if d > AutoMaxAttributes {
		o.Tree = true
		o.Batch = cmp.Or(o.Batch, WideBatch)
		o.MaxCandidates = cmp.Or(o.MaxCandidates, wideCandidates)
	}
	if precise {
		o.MaxCells = cmp.Or(o.MaxCells, preciseModelCells)
		o.Batch = cmp.Or(o.Batch, preciseBatch)
	}
	o.MaxCells = cmp.Or(o.MaxCells, defaultModelCells)
	o.Batch = cmp.Or(o.Batch, 1)
	if o.Optimizer == OptimizerMomentum {
		o.FinalIters = cmp.Or(o.FinalIters, 250)
	}
	o.FinalIters = cmp.Or(o.FinalIters, defaultFinalIters)
	switch {
	case o.Rounds <= d:
		return fmt.Errorf("marginal: adaptive: %d rounds for %d attributes, need more rounds than attributes", o.Rounds, d)
	case !(o.MaxCells >= 1) || math.IsInf(o.MaxCells, 0):
		return fmt.Errorf("marginal: adaptive: model cap %v cells", o.MaxCells)
	case !(o.SelectShare > 0 && o.SelectShare < 1):
		return fmt.Errorf("marginal: adaptive: selection share %v, need (0, 1)", o.SelectShare)
	case o.Selection != measurement.SelectExponential && o.Selection != measurement.SelectPermuteAndFlip:
		return fmt.Errorf("marginal: adaptive: unknown selection mechanism %q", o.Selection)
	case o.Iters < 0 || o.FinalIters < 0:
		return fmt.Errorf("marginal: adaptive: iterations %d / %d", o.Iters, o.FinalIters)
	}
	return nil
}

// DefaultWorkload is every pair of the attributes of a domain of sizes,
// every triple of binary attributes (maxTripleCells), and every triple
// holding label when label ≥ 0.
func DefaultWorkload(sizes []int, label int) [][]int {
	d := len(sizes)
	w := allPairs(d)
	for a := range d {
		for b := a + 1; b < d; b++ {
			for c := b + 1; c < d; c++ {
				if a != label && b != label && c != label && sizes[a]*sizes[b]*sizes[c] <= maxTripleCells {
					w = append(w, []int{a, b, c})
				}
			}
		}
	}
	if label < 0 {
		return w
	}
	for a := range d {
		for b := a + 1; b < d; b++ {
			if a != label && b != label {
				t := []int{a, b, label}
				slices.Sort(t)
				w = append(w, t)
			}
		}
	}
	return w
}

// maxTripleCells is the largest triple the default workload holds
// without a label: three binary attributes. A triple of 8 cells costs a
// measurement no noisier per cell than a pair of categorical attributes,
// and on binary data (NLTCS, 16 attributes, three seeds, model marginals
// against the real ones) adding every such triple lowered 2-way TVD by
// 14 / 15 / 27 % and 3-way by 16 / 26 / 54 % at ε = 0.3 / 1 / 4. Larger
// triples did not pay on Adult (every triple of at most 64 cells: 2-way
// 0.0219 → 0.0228 at ε = 1) and multiply the candidates whose model
// marginal each round computes across cliques.
const maxTripleCells = 8

// allPairs is every pair of d attributes.
func allPairs(d int) [][]int {
	var w [][]int
	for a := range d {
		for b := a + 1; b < d; b++ {
			w = append(w, []int{a, b})
		}
	}
	return w
}

// candidates returns the downward closure of the workload (every
// non-empty subset of a workload set), each with AIM's weight
// Σ_W |S ∩ W|: how much of the workload its marginal informs.
func candidates(workload [][]int) ([][]int, []float64) {
	seen := map[string]bool{}
	var out [][]int
	for _, w := range workload {
		for mask := 1; mask < 1<<len(w); mask++ {
			var s []int
			for k, a := range w {
				if mask&(1<<k) != 0 {
					s = append(s, a)
				}
			}
			if !seen[attrset.Key(s)] {
				seen[attrset.Key(s)] = true
				out = append(out, s)
			}
		}
	}
	// Σ_W |S ∩ W| = Σ_{a ∈ S} #{W ∋ a}: one count per attribute instead
	// of an intersection per candidate and workload set (on a table of
	// 167 attributes, 14 000 of each).
	holding := map[int]float64{}
	for _, w := range workload {
		for _, a := range w {
			holding[a]++
		}
	}
	weights := make([]float64, len(out))
	for i, s := range out {
		for _, a := range s {
			weights[i] += holding[a]
		}
	}
	return out, weights
}

// adaptive runs MethodAdaptive for the single party.
type adaptive struct {
	*engine
	sel      measurement.Selector
	ao       AdaptiveOptions
	rho      float64 // the party's budget
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
	if ao.Workload == nil {
		label := -1
		if ao.Label != "" {
			j, err := e.o.Domain.Index(ao.Label)
			if err != nil {
				return err
			}
			label = j
		}
		ao.Workload = DefaultWorkload(e.o.Domain.Sizes(), label)
	}
	e.o.Adaptive.Workload = ao.Workload
	for _, w := range ao.Workload {
		if _, err := attrset.Normalise(w, d); err != nil {
			return fmt.Errorf("marginal: workload: %w", err)
		}
	}
	a := &adaptive{engine: e, sel: sel, ao: ao, rho: e.o.Parties[0].Rho}
	a.cands, a.weights = candidates(normaliseAll(ao.Workload))
	if e.o.Adaptive.Batch == 0 && d <= AutoMaxAttributes && len(a.cands) < PreciseBatchCandidates {
		a.ao.Batch = 1 // too few candidates for preciseBatch to pay
	}
	if e.o.Adaptive.Batch == 0 && d <= AutoMaxAttributes && a.ao.Batch == preciseBatch {
		a.ao.preciseBatchDefaults(e.o.Adaptive, e.o.Domain.Sizes())
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
// pairs (treeRounds); with AdaptiveOptions.Batch above 1 each refit of
// the model follows that many selections (batch).
func (a *adaptive) rounds(ctx context.Context) error {
	d := a.o.Domain.Len()
	share := a.ao.SelectShare
	perRound := a.rho / float64(a.ao.Rounds)
	s := &schedule{share: share, meas: (1 - share) * perRound, sel: share * perRound}
	for j := range d {
		if err := a.measureSet(ctx, []int{j}, s.meas); err != nil {
			return err
		}
		a.progress("adaptive rounds", j+1, d)
	}
	if err := a.fit(ctx); err != nil {
		return err
	}
	if a.ao.Tree {
		if err := a.treeRounds(ctx, s); err != nil {
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

// schedule is the budget of the next round: meas for its measurement,
// sel for its selection.
type schedule struct{ share, meas, sel float64 }

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

// treeRounds starts the rounds as MST does (McKenna, Miklau & Sheldon,
// "Winning the NIST contest", 2021): up to d − 1 selections, each of a
// pair that joins two components of the pairs picked so far, scored
// against the model of the one-way marginals alone (every pair's estimate
// the product of its attributes' model marginals), then one refit. Each
// selection and measurement is a round of the schedule, charged as one:
// the selection mechanism (AdaptiveOptions.Selection; the exponential
// mechanism, ε²/8, by default) at the round's selection budget over
// public candidates (which pairs join components depends only on the
// earlier picks), and a Gaussian measurement at its measurement budget.
// No candidate is dropped for the model cap: a forest of pairs is a
// junction tree of its pairs, of at most d − 1 pairs' cells.
func (a *adaptive) treeRounds(ctx context.Context, s *schedule) error {
	d := a.o.Domain.Len()
	one := make([][]float64, d)
	for j := range d {
		m, err := a.model.Marginal([]int{j})
		if err != nil {
			return err
		}
		one[j] = m.Counts
	}
	comp := make([]int, d)
	for j := range comp {
		comp[j] = j
	}
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
	for len(picks) < d-1 && a.rho-a.used > 1e-12*a.rho {
		rhoMeas, rhoSel := s.next(a.rho - a.used)
		noise, err := measurement.CountNoise(measurement.Gaussian, a.o.Neighbours, rhoMeas)
		if err != nil {
			return err
		}
		if noise.Scale != sigma {
			sigma = noise.Scale
			parallel.For(len(pairs), func(k int) { pen[k] = a.ao.Penalty.of(est[k], sigma) }, func(k int) int { return len(est[k]) })
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

// query offers every candidate the model-size cap allows (or that the
// model already holds), with the model's estimates and their penalties
// (AdaptiveOptions.Penalty) at noise sigma. With
// AdaptiveOptions.MaxCandidates it offers at most that many: the first
// that fit of the candidates in an order drawn afresh each time from the
// run's randomness, which is independent of the records, so the offer is
// public and the selection over it is charged as any other.
func (a *adaptive) query(limit, sigma float64) (measurement.SelectQuery, []float64) {
	sizes := a.o.Domain.Sizes()
	order := a.candidateOrder()
	now := a.model.Cells()
	var q measurement.SelectQuery
	var offered []int
	var growth []float64
	for _, i := range order {
		s := a.cands[i]
		grows := 0.0
		if !a.model.Holds(s) {
			with := infer.ModelCells(sizes, append(slices.Clip(a.model.Sets()), s))
			if with > limit {
				continue
			}
			grows = with - now
		}
		offered = append(offered, i)
		growth = append(growth, grows)
		q.Candidates = append(q.Candidates, s)
		q.Weights = append(q.Weights, a.weights[i])
		if a.ao.MaxCandidates > 0 && len(offered) == a.ao.MaxCandidates {
			break
		}
	}
	q.Estimates = make([][]float64, len(offered))
	q.Penalties = make([]float64, len(offered))
	parallel.For(len(offered), func(k int) {
		est, err := a.model.Marginal(q.Candidates[k])
		if err != nil {
			panic(err) // candidates are valid attribute sets of the domain
		}
		q.Estimates[k] = est.Counts
		q.Penalties[k] = a.ao.Penalty.of(est.Counts, sigma)
	}, func(int) int { return 1 << 10 })
	return q, growth
}

// candidateOrder is the order query tries the candidates in: their own
// without a cap on their number (or with fewer candidates than the cap),
// a random permutation otherwise, from a stream of the run's randomness
// made the first time one is needed.
func (a *adaptive) candidateOrder() []int {
	order := make([]int, len(a.cands))
	for i := range order {
		order[i] = i
	}
	if a.ao.MaxCandidates <= 0 || len(a.cands) <= a.ao.MaxCandidates {
		return order
	}
	if a.shuffle == nil {
		a.shuffle = a.o.Source.Child()
	}
	a.shuffle.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	return order
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
