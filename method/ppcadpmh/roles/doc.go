// Package roles runs PPCA-DP-MH between m data owners holding
// horizontally split records and a semi-trusted curator (Algorithm 1 of
// ../shared/papers/ppca-dp-mh.txt).
//
// Rounds:
//
//  1. (secure-aggregate only) each owner sends every later owner a fresh
//     32-byte mask seed.
//  2. each owner charges its accountant, then sends its noisy moment sums
//     (Σx, upper triangle of Σxxᵀ) and its record count to the curator.
//  3. the curator aggregates, fits the PPCA model (Theorem 3) and sends it
//     to every owner.
//  4. each owner generates as many synthetic rows as it holds and sends them
//     to the curator, who publishes their union.
//
// Noise modes. In "local" mode (the paper's) each owner releases its own
// sums with the full noise of its calibration, so the aggregate carries m
// independent noises and accuracy falls as owners are added. In
// "secure-aggregate" mode each owner adds only a 1/m share of one
// centralised noise draw and masks its fixed-point sums with pairwise
// zero-sum masks expanded from the seeds of round 1, so the curator learns
// only the sum, which carries exactly the noise of one centralised
// release. Assumption: the curator does not collude with owners; the
// curator together with all other owners can remove the masks and the
// others' noise shares, leaving one owner's statistics with only its 1/m
// share of the noise.
//
// Fixed point. Every value the curator receives is a function of rounded
// statistics plus integer noise on public grids (no floating-point noise
// is ever added to a statistic): each block (Σx; the upper triangle of
// Σxxᵀ) has a power-of-two grid g and a discrete law (ppca.Plan.SumNoise,
// OuterNoise: dp.PlanLaplace on the block's L1 sensitivity and ε, or
// dp.PlanGaussian on its L2 sensitivity and σ, both paying for the
// rounding by a slightly larger noise scale), derived by every role from
// the public plan. Local: each owner sends g·(round(x/g) + K). Secure
// aggregate: each owner sends the word round(x/g) + K_i mod 2^64 plus its
// masks, K_i its integer share (dp.Noiser.Shares: differences of Pólya
// draws whose m-fold sum is exactly discrete Laplace, or distributed
// discrete Gaussian shares), and the curator reads g·(Σ round(x/g) + K)
// from the sum of the words. Each word stays within ±2^62/m grid steps,
// so the sum is exact in int64; owners whose record count could exceed
// that are refused at construction.
package roles
