// Package roles runs LDA-DP and Mul-LDA-DP (Gu, Zhang, Zhang 2022,
// Algorithms 1 and 2; ../shared/papers/lda-dp-mul-lda-dp.txt,
// docs/errata.md#lda-dp-and-mul-lda-dp) as role step objects: Owner (a data
// owner), NoiseDealer (the paper's random-number generator) and Publisher
// (the paper's blockchain-based data publisher). The mathematics is in
// method/mullda/lda.
//
// Rounds:
//
//  1. The dealer sends every owner, and the publisher, its zero-sum noise
//     shares (correlated mode with M ≥ 2 owners only).
//  2. Each owner pays its budget, then sends its class sums and counts
//     carrying its own noise N(0, σ²/M) plus its share (so N(0, σ²)).
//  3. The publisher adds its share ḡ_0 to the sum of the owners' messages,
//     which cancels the shares and leaves exactly N(0, σ²): the centralised
//     noise. It publishes the DP class means and sends them to the owners.
//  4. Each owner sends Σxxᵀ noised the same way.
//  5. The publisher forms S_w = Σxxᵀ − Σ_k N_k μ_k μ_kᵀ, projects it onto
//     the PSD cone, adds a ridge at the noise scale (public), solves for the
//     discriminant direction(s) by Cholesky and sends them to the owners.
//  6. By default the publisher then draws synthetic labelled projections
//     from the DP class-conditional Gaussians (DP). With RealProjections
//     each owner sends X_m W of its real rows instead, as the paper does:
//     those are NOT differentially private.
//
// LDA-DP is the same protocol with one owner and no dealer.
//
// Fixed point. No floating-point noise is ever added to a statistic: each
// block (class sums, class counts, Σxxᵀ) has a public power-of-two grid g
// and a discrete Gaussian law (lda.Plan.SumsNoise, CountsNoise,
// SecondNoise, derived from the public plan by every role). The dealer's
// shares are integers in grid steps that sum to exactly zero
// (lda.ZeroSumShares); an owner sends g·(round(x/g) + K + G), K its own
// integer discrete Gaussian and G its share, so every value the publisher
// receives is an integer multiple of g and a function of the rounded
// statistic plus integer noise. The publisher sums the messages and its
// share exactly in integer grid steps (refusing off-grid values). The
// variances are the paper's (σ²/M own, (M−1)σ²/M per share) times κ² =
// ((Δ₂ + g√dim)/Δ₂)² (and dp's profile margin), which pays for the
// rounding.
//
// Ledger. With a Ledger attached, every party appends signed entries to the
// shared publishing ledger (package ledger): owners the budget they spend
// and a digest of each message of statistics; the publisher the DP means,
// the direction(s) and a digest of the published artifact. Every receiver
// checks the entry behind each message it relies on: it must be signed by
// the sender, carry the message's SHA-256, and be included in a checkpoint
// signed by the publisher that is consistent with the last one the receiver
// saw.
//
// Threat model: honest-but-curious parties. Each owner's message carries
// N(0, σ²), but the publisher sees all messages and its own share, which
// together protect one owner with only ViewFactor(M)·σ (≥ σ/√2); the sound
// calibration pays for that. If the publisher colludes with the dealer, or
// with the other M−1 owners, an owner is left with its own N(0, σ²/M).
package roles
