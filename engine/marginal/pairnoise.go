package marginal

import "math"

// PairNoise is the expected total-variation distance from noise alone of
// a 2-way marginal over a public domain of sizes, for n records, if the
// zCDP budget rho were split evenly over every pair's marginal, each cell
// carrying Gaussian noise of variance P/ρ (P pairs, L2 sensitivity √2,
// replace-one): a marginal of c cells is off by c·σ·√(2/π)/(2n) in
// expectation, so τ = C/(n·√(2π·P·ρ)) with C the cells of all pairs.
// Callers whose releases carry other noise pass the replace-one ρ that
// carries it (under add/remove 2ρ; owners of rows in insider-safe mode
// ρ·K/(K+1)). It reads only public quantities. A table of fewer than two
// attributes has no pairs: +Inf.
func PairNoise(sizes []int, n int, rho float64) float64 {
	pairs, cells := 0, 0.0
	for i, a := range sizes {
		for _, b := range sizes[i+1:] {
			pairs++
			cells += float64(a) * float64(b)
		}
	}
	if pairs == 0 || n <= 0 || !(rho > 0) {
		return math.Inf(1)
	}
	return cells / (float64(n) * math.Sqrt(2*math.Pi*float64(pairs)*rho))
}

// AutoPreciseValues and AutoCoarsePairNoise are the bounds of --method
// auto's budget rule that one owner (synthesize) and owners of rows
// (rowsynth) share, each reading τ (PairNoise) at the noise its releases
// carry: on a table the shape rule gives the adaptive method, an
// attribute of more than AutoPreciseValues values and τ at least
// AutoCoarsePairNoise send it to the paper method (the large-budget
// bound differs between the two: synthesize.AutoPrecisePairNoise,
// rowsynth.AutoPrecisePairNoise). Their evidence is with the rules and
// in docs/results/synthesis/engine-choice.md.
const (
	AutoPreciseValues   = 32
	AutoCoarsePairNoise = 0.15
)

// AutoWideNoise is the wide-table bound of --method auto that one owner
// (synthesize.AutoWideNoise) and owners of rows (rowsynth.AutoWideNoise)
// share: on a table of more than AutoMaxAttributes attributes, none of
// more than AutoMaxValues values, the adaptive method (a spanning tree of
// pairs, as MST) when τ (PairNoise, at the noise the releases carry) is
// at least it. Its evidence is with the two rules and in
// docs/results/synthesis/engine-choice.md and owners-gap.md.
const AutoWideNoise = 0.25
