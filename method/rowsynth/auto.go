package rowsynth

import (
	"fmt"
	"slices"

	"github.com/dppub/dppub/engine/marginal"
)

// The shape on which --method auto gives owners of rows the adaptive
// method (AutoMethod). Measured at ε = 1, 2-way / 3-way TVD over 16 bins,
// paper → adaptive (docs/results/rows/adaptive-owners.md): Shuttle (10
// attributes of at most 16 values, 58 000 rows) better everywhere, 3
// owners 0.0169 / 0.0359 → 0.0090 / 0.0208 (5 seeds), 10 owners 0.0168 /
// 0.0363 → 0.0090 / 0.0208, exact noise 0.0159 / 0.0349 → 0.0090 /
// 0.0210 (3 seeds); NLTCS (16 binary attributes, 21 574 rows) mixed, 3
// owners 0.0070 / 0.0124 → 0.0057 / 0.0122 but 10 owners 0.0059 /
// 0.0105 → 0.0063 / 0.0132 and exact noise 3-way 0.0108 → 0.0123. The
// bounds are one owner's (marginal.AutoMaxAttributes, AutoMaxValues: at
// most 16 attributes of at most 64 values on the public domain) and at
// least 1 000 records per owner on average. The bound was 4 000 (NLTCS
// with 10 owners, 2 157 each, measured worse above) until the owners'
// rounds batched their selections (OwnersBatch); since then, 3 seeds,
// 2-way TVD, paper → adaptive: NLTCS with 20 owners (1 078 each) 0.0055
// → 0.0044 at ε = 1 and 0.0021 → 0.0016 at ε = 4, Shuttle with 20 owners
// (2 900 each) 0.0161 → 0.0088 and with 50 (1 160 each) 0.0163 → 0.0096
// at ε = 1. Below 1 000 records per owner nothing was measured on such a
// table. The bound on values was 16 until Adult (15 attributes, one of
// 41 values; 36 178 training rows) was measured with the owners' batched
// rounds (docs/results/synthesis/owners-gap.md, 3 seeds, 2-way TVD,
// paper → adaptive): ε = 1 (τ = 0.124 with 3 owners, 0.113 with 10; see
// AutoPrecisePairNoise) 3 owners 0.0284 → 0.0274, 10 owners 0.0277 →
// 0.0255 (one owner 0.0253); ε = 0.3 level, 0.0481 → 0.0490 ± 0.0015
// and 0.0450 → 0.0455 ± 0.0008; ε = 4 (τ = 0.036, 0.032) worse, 0.0161
// → 0.0166 and 0.0151 → 0.0162, which AutoPrecisePairNoise leaves to
// the paper method.
const (
	AutoMaxAttributes      = marginal.AutoMaxAttributes
	AutoMaxValues          = marginal.AutoMaxValues
	AutoMinRecordsPerOwner = 1000
)

// AutoPreciseValues and AutoPrecisePairNoise are the owners' precise-budget
// rule, as one owner's (synthesize.AutoPreciseValues, AutoPrecisePairNoise)
// at the owners' own threshold: on a table the shape rule gives the
// adaptive method, auto still runs the paper's when an attribute has more
// than AutoPreciseValues values and the expected TVD from noise of a
// pair's marginal with ρ split over every pair, at the noise the owners'
// releases carry (marginal.PairNoise at ρ·K/(K+1) in insider-safe mode),
// is at most AutoPrecisePairNoise. Read off Adult alone (measurements
// above): adaptive better at τ = 0.113–0.124 (ε = 1), worse at τ =
// 0.032–0.036 (ε = 4); 0.06 is about their geometric mean, not derived.
// One owner's threshold (0.013) is lower: its selections are the
// exponential mechanism's over every candidate, the owners' a noisy
// score of each of 16 (roles.Measurer.Select), which at a large budget
// leaves the paper method's many measured pairs ahead sooner.
const (
	AutoPreciseValues    = marginal.AutoPreciseValues
	AutoPrecisePairNoise = 0.06
)

// AutoCoarsePairNoise is the small-budget side of that rule, one owner's
// (synthesize.AutoCoarsePairNoise) at the noise the owners carry: with an
// attribute of more than AutoPreciseValues values, auto runs the paper
// method when that TVD is at least AutoCoarsePairNoise. On Adult at
// ε = 0.3 (τ = 0.30 with 3 owners, 0.27 with 10) the owners' adaptive
// method measured no better than their paper method (owners-gap.md, 3
// seeds, 2-way TVD, paper against adaptive: 3 owners 0.0481 ± 0.0018
// against 0.0490 ± 0.0015, 10 owners 0.0450 ± 0.0004 against 0.0455 ±
// 0.0008; bench.py at e77dae2, adaptive: 0.0504 ± 0.0007 and 0.0461 ±
// 0.0006), and one owner's paper method measured better; at ε = 1
// (τ = 0.124, 0.113) the adaptive method is ahead (0.0274 against
// 0.0284, 0.0255 against 0.0277).
const AutoCoarsePairNoise = marginal.AutoCoarsePairNoise

// AutoWideNoise and AutoMinWideRecords are the owners' wide-table rule:
// on a table of more than AutoMaxAttributes attributes, none of more
// than AutoMaxValues values, auto runs the adaptive method (which there
// measures the one-way marginals and a spanning tree of pairs, as MST
// does, in about 2·d rounds: marginal.DefaultRounds) when the owners
// hold at least AutoMinWideRecords records in all and the expected TVD
// from noise of a pair's marginal (as in AutoPrecisePairNoise) is at
// least AutoWideNoise, whatever the number of attributes. Measured at
// a53da2a's engine (docs/results/synthesis/owners-gap.md, "At main's
// wide engine"; 3 seeds, 2-way TVD, default insider-safe noise, paper →
// adaptive, 3 owners and 10): `wide` (73 attributes, 6 400 rows) better
// at every budget, ε = 0.3 (τ = 5.1, 4.6) 0.2127 → 0.1690 and 0.1965 →
// 0.1596, ε = 1 (1.67, 1.52) 0.0972 → 0.0781 and 0.0899 → 0.0757, ε = 4
// (0.48, 0.43) 0.0526 → 0.0504 and 0.0523 → 0.0504 (one owner 0.1518,
// 0.0656, 0.0503); digits (65 attributes, 1 438 rows) at ε = 1 0.3068 →
// 0.2731 and 0.2892 → 0.2583; Musk2 (167 attributes, 5 278 rows) at ε =
// 1 (5 seeds) 0.2954 → 0.2897 and 0.2857 → 0.2794; `zeroinfl` (27
// attributes, 8 000 rows) at ε = 4 (0.33, 0.30) 0.0359 → 0.0338 and
// 0.0354 → 0.0328, but worse at ε = 1 (1.15, 1.05; 5 seeds) 0.0653 →
// 0.0681 and 0.0633 → 0.0672 and at ε = 0.3 (3.5, 3.1) 0.1147 → 0.1334
// and 0.1160 → 0.1239 (since the owners pool the tree, 8311610, ε = 1
// measures 0.0631 ± 0.0022 and 0.0609 ± 0.0014: level with the paper
// method or below it). τ does not separate zeroinfl's losses from the
// wins (they lie inside the range where `wide` wins), nor does any other
// public quantity measured, so the rule takes every τ measured:
// AutoWideNoise is below the least (0.30), read off, not derived; below
// it, budgets at which every pair is measured well, nothing was measured
// on a wide table and the paper method stays. Until a53da2a's engine the
// rule was τ ≥ 2 and at most 100 attributes: with AIM's rounds the
// owners' adaptive method measured worse on `wide` at ε = 1 (0.0955 →
// 0.1151) and on Musk2 (0.2968 → 0.3021). Below AutoMinWideRecords
// records in all the paper method stays: on WDBC (31 attributes, 455
// training rows) the owners' adaptive method still measures worse at ε =
// 1, 3 owners 0.5072 → 0.5678 and 10 owners 0.4735 → 0.5036 (level at ε
// = 4 before: 0.2948 → 0.2926, 0.2774 → 0.2862), while one owner's
// adaptive method wins there: with 152 or 46 records per owner the
// owners' noisy candidate scores are mostly noise. That bound sits
// between WDBC's 455 and digits' 1 438, read off these two tables, not
// derived.
const (
	AutoWideNoise      = marginal.AutoWideNoise
	AutoMinWideRecords = 1000
)

// AutoMethod is the method --method auto runs for owners owners of rows
// of n records in all over a public domain of sizes, with combined marginals
// capped at maxCells cells, each owner's budget carrying the noise of a
// replace-one release at rho (each owner's ρ, times 2 under add/remove,
// over (K+1)/K in insider-safe mode: noiseRho), and the sentence the
// report gives for it. Every input is public (the owners' record counts
// are public in synthesize-rows, the noisy total under add/remove), so
// the choice costs nothing. A cap of one cell per marginal (max_cells 1,
// which owners bringing 1- and 2-way statistics need) keeps the paper
// method: the adaptive workload has triples.
func AutoMethod(sizes []int, n, owners, maxCells int, rho float64) (marginal.Method, string) {
	largest := slices.Max(append([]int{0}, sizes...))
	tau := marginal.PairNoise(sizes, n, rho)
	m := marginal.MethodPaper
	wide := len(sizes) > AutoMaxAttributes && largest <= AutoMaxValues
	narrow := len(sizes) <= AutoMaxAttributes && largest <= AutoMaxValues
	switch {
	case maxCells == 1:
	case wide:
		if tau >= AutoWideNoise && n >= AutoMinWideRecords {
			m = marginal.MethodAdaptive
		}
	case narrow && n >= AutoMinRecordsPerOwner*max(owners, 1):
		if !(largest > AutoPreciseValues && (tau <= AutoPrecisePairNoise || tau >= AutoCoarsePairNoise)) {
			m = marginal.MethodAdaptive
		}
	}
	return m, fmt.Sprintf("the method (%s) was chosen by method auto from public facts only: %d attributes of at most %d values on the public domain, %d records among %d owners, an expected TVD from noise of %.4f on a pair's marginal with the owners' ρ split over every pair, at the noise their releases carry (adaptive for owners of rows of at most %d attributes of at most %d values and at least %d records per owner, but paper there when an attribute has more than %d values and that TVD is at most %g or at least %g; adaptive on a wider table of attributes of at most %d values and at least %d records in all when that TVD is at least %g; paper otherwise, and with max_cells 1: docs/results/synthesis/owners-gap.md)",
		m, len(sizes), largest, n, owners, tau, AutoMaxAttributes, AutoMaxValues, AutoMinRecordsPerOwner, AutoPreciseValues, AutoPrecisePairNoise, AutoCoarsePairNoise, AutoMaxValues, AutoMinWideRecords, AutoWideNoise)
}

// OwnersBatch is how many adaptive selections follow one another before
// the model is refitted and the candidates rescored
// (marginal.AdaptiveOptions.Batch) for owners of rows on a table of at
// most marginal.AutoMaxAttributes attributes whose workload offers at
// least marginal.PreciseBatchCandidates sets (AdaptiveBatch). Each
// selection is still its own select request, charged and calibrated by
// every owner as a round of its own; only the coordinator's refits
// (post-processing) are fewer, so the privacy argument is unchanged.
// Measured, not derived: NLTCS (696 candidates), 5 seeds, 2-way TVD, one
// per refit → four → eight: ε = 1, 3 owners 0.0057 → 0.0047 → 0.0043,
// 10 owners 0.0061 → 0.0045 → 0.0039 (one curator 0.0047); ε = 4, 3
// owners 0.0022 → 0.0016 → 0.0015, 10 owners 0.0024 → 0.0017 → 0.0016
// (one curator 0.0018); sixteen level with eight
// (docs/results/rows/adaptive-owners.md). One curator gains on NLTCS
// too (eight per refit, a hook: 0.0037 at ε = 1, 0.0014 at ε = 4), but
// its engine batches only precise measurements; the owners gain more,
// plausibly because their summed scores rank only the large misfits
// (roles.Measurer.Select), which several picks from one model keep. On
// Shuttle (45 workload pairs) four per refit measured worse (ε = 1, 3
// owners 0.0090 → 0.0114; ε = 4 0.0051 → 0.0057), as for one curator
// (PreciseBatchCandidates), so a small workload keeps the engine's one.
const OwnersBatch = 8

// AdaptiveBatch is the adaptive engine's batch for owners of rows over a
// public domain of sizes with the workload's label (−1 for none):
// OwnersBatch on a table of at most marginal.AutoMaxAttributes attributes
// whose default workload has at least marginal.PreciseBatchCandidates
// sets, 0 (the engine's default) otherwise. It reads public facts only.
func AdaptiveBatch(sizes []int, label int) int {
	if len(sizes) > marginal.AutoMaxAttributes || len(marginal.DefaultWorkload(sizes, label)) < marginal.PreciseBatchCandidates {
		return 0
	}
	return OwnersBatch
}
