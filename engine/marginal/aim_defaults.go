// The adaptive method's defaults and the measurements behind them: the
// penalty, the model caps, the batch sizes, the rounds, and the noise
// below which measurements count as precise.

package marginal

import (
	"cmp"
	"fmt"
	"math"

	"github.com/dppub/dppub/engine/marginal/measurement"
)

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
// in 1.93 s → 0.0128 / 0.0324 in 0.82 s; at larger budgets the 2^19 cap
// binds harder, and PreciseBatchLargeNoise lifts it there. The constants
// are read off Adult, the only measured table in this regime: NLTCS's
// whole domain fits the
// cap (preciseBatchDefaults), and Shuttle's 55 candidates keep one
// selection per refit and the precise defaults.
const (
	PreciseBatchRounds     = 6
	PreciseBatchModelCells = 1 << 19
	PreciseBatchFinalIters = 60
)

// PreciseBatchLargeNoise is the largest noise standard deviation of a
// first-round measurement (at the rounds defaults chose, AIM's 16·d on
// Adult), as a share of the records n, at which a run under
// preciseBatchDefaults keeps the precise cap of 2^20 cells and fits its
// final model with PreciseBatchLargeFinalIters momentum steps: the budget
// is then large enough for the larger model to pay, and the 6·d rounds
// stay. On the whole of Adult (n = 45 222; the first round's σ is 0.059 %
// of n at ε = 4, 0.051 % at ρ = 0.5, 0.043 % at 0.7, 0.036 % at 1, 0.031 %
// at 1.4), seeds 1–3 (1–5 at ρ = 1), mean 2-way / 3-way TVD and CPU-s of
// the run, PreciseBatchModelCells and 60 final steps everywhere (2057dd4)
// → this rule (docs/results/synthesis/engine-choice.md, "A cap that grows
// with the budget"): ρ = 0.7 0.0120 / 0.0314 in 0.83 s → 0.0114 / 0.0296
// in 1.9 s; ρ = 1 0.0117 / 0.0310 in 0.83 s → 0.0111 / 0.0290 in 1.9 s;
// ρ = 1.4 0.0114 / 0.0308 → 0.0103 / 0.0277 in 1.95 s; ε = 4 and ρ = 0.5
// unchanged, byte for byte. AIM's 16·d rounds at 2^20 and 250 steps (the
// defaults before PreciseBatchRounds) measured 0.0116 / 0.0311, 0.0113 /
// 0.0307 and 0.0107 / 0.0296 at ρ = 0.7, 1 and 1.4 in 1.8–2.2 s, and
// 2^20 with 60 final steps 0.0116 / 0.0300, 0.0113 / 0.0294 and 0.0105 /
// 0.0281. The bound sits between ρ = 0.5, where the smaller cap is what
// keeps the adaptive engine within twice the paper engine's time at
// equal quality, and 0.7, the first budget measured above it; it is read
// off Adult alone, not derived.
const (
	PreciseBatchLargeNoise      = 0.00047
	PreciseBatchLargeFinalIters = 100
)

// preciseBatchDefaults sets the rounds, the cap and the final steps of a
// run batched for its precise measurements on a narrow table over a
// public domain of sizes, n records and a budget rho (read as defaults
// reads it), each only where asked (the caller's own options) left it
// unset, and only when the whole domain has more cells than
// PreciseBatchModelCells, so that the cap can bind. Where it cannot (NLTCS:
// 16 binary attributes, 65 536 cells) the rounds are what fills the
// model: at ρ = 1 and 2, three seeds, 6·d rounds and 100 final steps
// measured a 3-way TVD of 0.0024 and 0.0022 against AIM's 16·d's 0.0018
// and 0.0016. Fewer rounds give every round more of ρ, so the
// measurements stay precise and the optimizer, chosen from the first
// round's noise, stays. Where that noise, at the rounds defaults chose,
// is at most PreciseBatchLargeNoise·n, the cap and the final steps are
// preciseModelCells and PreciseBatchLargeFinalIters instead.
func (o *AdaptiveOptions) preciseBatchDefaults(asked AdaptiveOptions, sizes []int, n int, rho float64) {
	cells := 1.0
	for _, s := range sizes {
		cells *= float64(s)
	}
	if cells <= PreciseBatchModelCells {
		return
	}
	// defaults has calibrated the same first round without error.
	first, _ := o.firstRound(rho)
	large := first.Scale <= PreciseBatchLargeNoise*float64(n)
	d := len(sizes)
	if asked.Rounds == 0 {
		o.Rounds = min(o.Rounds, PreciseBatchRounds*d)
	}
	if asked.MaxCells == 0 {
		o.MaxCells = PreciseBatchModelCells
		if large {
			o.MaxCells = preciseModelCells
		}
	}
	if asked.FinalIters == 0 && o.Optimizer == OptimizerMomentum {
		o.FinalIters = PreciseBatchFinalIters
		if large {
			o.FinalIters = PreciseBatchLargeFinalIters
		}
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

// roundNoise is the largest noise standard deviation, as a share of the
// records n, that DefaultRounds lets a round's measurement carry.
const roundNoise = 0.03

// wideRoundNoise is roundNoise on a table of more than AutoMaxAttributes
// attributes: there DefaultRounds keeps a round's noise at most 0.25 % of
// n (against 3 %), which leaves the floor of 2·d rounds wherever the
// benchmark's wide tables were measured at ε ≤ 1: the d one-way rounds,
// the d − 1 of the spanning tree (AdaptiveOptions.Tree) and a batch,
// about MST's shape (McKenna, Miklau & Sheldon 2021: the one-way marginals
// and a tree of pairs, nothing more). At 3 %, `wide` (73 columns, 6 400
// rows, ε = 1, replace-one) got about 1 000 rounds of σ ≈ 190 records
// each, mostly noise. Three seeds each, mean 2-way / 3-way TVD, the
// tree's full penalty (before TreePenalty; docs/results/synthesis/
// wide-vs-mst.md): `wide` at ε = 1, 14·d rounds
// (the 3 % cap) 0.0989 / 0.1598, 3·d 0.0710 / 0.1312, 2·d 0.0650 /
// 0.1244, 1.5·d 0.0650 / 0.1243 (the paper engine 0.0884 / 0.1589); at
// ε = 4 8·d 0.0423, 4·d 0.0407, 2·d 0.0388 (paper 0.0505); Musk (167
// attributes) at ε = 1, 4.1·d (the 3 % cap) 0.2630 / 0.4561, 3·d 0.2619,
// 2·d 0.2580, 1.5·d 0.2532 (paper 0.2837); `zeroinfl` (27 attributes,
// 8 000 rows) at ε = 1 3·d 0.0568, 2·d 0.0547, 1.5·d 0.0558, but at ε = 4
// 2·d 0.0381 against 4·d 0.0327 (paper 0.0335): a large budget on a
// large table pays for more rounds, which the 0.25 % gives it (5·d there).
// Fewer than 2·d rounds leave the tree unfinished. Read off these tables,
// not derived.
const wideRoundNoise = 0.0025

// DefaultRounds is the default T of the adaptive method for d attributes,
// n records (public) and a budget ρ of which a share selectShare of
// every round goes to selection: AIM's 16·d, but no more than keep a
// round's Gaussian noise (σ = √(T / ((1 − selectShare)·ρ)) for Δ₂ = √2)
// at most roundNoise·n per cell (wideRoundNoise·n on a table of more than
// AutoMaxAttributes attributes), and at least 2·d (the first d rounds
// measure the one-way marginals). AIM's T ignores n: on WDBC (455
// training rows, d = 31, ε = 1) its 496 rounds each carry σ ≈ 134
// records, 29 % of the table, and the adaptive engine's 2-way TVD was
// 0.64 against 0.50 at 62 rounds (docs/results/synthesis, "Sixth run").
// The 3 % cap binds only on small tables: Adult, NLTCS and Shuttle keep
// 16·d at every ε the benchmark runs.
func DefaultRounds(d, n int, rho, selectShare float64) int {
	share := roundNoise
	if d > AutoMaxAttributes {
		share = wideRoundNoise
	}
	fit := (1 - selectShare) * rho * math.Pow(share*float64(n), 2)
	t := 16 * d
	if fit < float64(t) {
		t = int(fit)
	}
	return max(t, 2*d)
}

// firstRound is the noise of a first-round measurement at o.Rounds and
// o.SelectShare of a budget rho (replace-one, see Options.noiseRho).
func (o *AdaptiveOptions) firstRound(rho float64) (measurement.Noise, error) {
	return measurement.Calibrate(measurement.Gaussian, measurement.CountL1, measurement.CountL2, (1-o.SelectShare)*rho/float64(o.Rounds))
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
	first, err := o.firstRound(rho)
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

// OneWayRho is the ρ of each one-way measurement of the adaptive
// method's rounds for one party over d attributes (the rounds'
// (1 − share)·ρ/T), and whether the engine takes one-way marginals
// released before it ran (AdaptiveOptions.Premeasured): only on a table
// of more than AutoMaxAttributes attributes, where the rounds' defaults
// do not depend on the bins' sizes (preciseBatchDefaults reads them on
// narrower tables), so that the ρ is known before the bins are chosen.
func (o *Options) OneWayRho(d int) (float64, bool, error) {
	if o.Method != MethodAdaptive || d <= AutoMaxAttributes || len(o.Parties) != 1 {
		return 0, false, nil
	}
	ao := o.Adaptive
	rho := o.Parties[0].Rho
	if err := ao.defaults(d, o.Records, o.noiseRho(rho)); err != nil {
		return 0, false, err
	}
	return firstSchedule(ao, rho).meas, true, nil
}
