// Package roles runs the marginal synthesis engine (engine/marginal)
// across owners of rows: owners that hold the same attributes of
// different people measure their pooled records as one curator would,
// and the coordinator, which runs the engine, learns only the noisy
// totals.
//
// Rounds:
//
//  1. Every owner draws an X25519 key pair and sends the coordinator its
//     public key, signed with its identity, and its record count n_k
//     (public under replace-one neighbours, the default; under add/remove
//     the owner sends 0 and the coordinator refuses anything else).
//  2. The coordinator sends every owner all public keys with the owners'
//     signatures of them; each owner checks them. Owners k and j derive a
//     common seed from their Diffie–Hellman secret and the session ID
//     (pairwise masks after Bonawitz et al., CCS 2017).
//  3. The engine runs at the coordinator. Each of its measurements (a
//     numeric column's histogram on a public grid, the marginal over an
//     attribute set, a pair score) is one Request to every owner. Owner k
//     charges its accountant, counts its own records, adds its integer
//     share of the release's noise (dp.Noiser.Shares on the release's
//     public grid) and its pairwise masks (+ for j > k, − for j < k,
//     mod 2^64), and sends the masked words. The masks cancel in the sum:
//     the coordinator learns Σ_k (counts_k + noise_k) on the grid, that is
//     the pooled counts plus noise of the calibrated law, and nothing of
//     any single owner's counts.
//  4. After the numeric bins are chosen from the noisy histograms, a
//     Domain message tells the owners the bins; after the engine's last
//     measurement, Close ends the run.
//
// Add/remove neighbours (Params.Neighbours): the owners' counts n_k are
// private. The engine's first release is their total, one KindCount
// request answered like a count (n_k, masked, plus a noise share;
// sensitivity 1), and its noisy value stands for n after. Every count
// vector has sensitivity 1; a score's sensitivity is 1 + ‖f̃‖₁ of its
// reference (AddRemoveScoreSensitivity: each owner scales the public
// frequencies by its own n_k, so an added record moves its reference
// too). Every request names its relation; an owner refuses one that
// names another than its session's, and computes the sensitivity from
// its own.
//
// Noise: with NoiseExact the owners' shares sum to exactly the central
// release's noise (discrete Laplace by Pólya divisibility; discrete
// Gaussian within Kairouz, Liu & Steinke's τ), so the output has the law
// of the single-curator run. With NoiseInsiderSafe (the default) the
// coordinator adds a share too and any K of the K+1 contributors already
// make up the calibrated noise: a coordinator or an owner that knows its
// own share still faces the full noise; the variance is (K+1)/K times the
// central one.
//
// Pair scores are computed inside the protocol: a Score request carries
// the public reference (the pooled noisy one-way counts over n), every
// owner computes the paper's IInDif score of its own records against it
// scaled to its record count (OwnerScore) and shares that one value like
// a count, with the score's noise (sensitivity 2: a record changes one
// owner's summand by at most 2). The coordinator learns the noisy sum,
// which is the single curator's score for one owner and at least the
// pooled score for several.
//
// Threat model: the coordinator may depart from the protocol. An owner
// trusts nothing it declares for privacy: it calibrates every release
// itself from the request's kind and ρ (OwnNoise: the declared noise must
// be exactly that calibration, else the request is refused before any
// charge), answers each request ID once and only for its own session,
// draws each request's masks from the digest of the whole request (two
// different requests never share a mask), refuses score references that
// overflow or leave exact arithmetic, and checks every other owner's key
// by that owner's signature with an identity it holds itself (KeyAuth:
// the consortium's certificates across machines), so the coordinator can
// relay the keys but not substitute them. What it can still do is deny
// service, choose what to measure within each owner's budget, and — in
// exact-noise mode only — unmask an owner together with all other owners
// (insider-safe mode tolerates any one insider). Channels are
// authenticated by the transport's mutual TLS. An owner that drops out
// after the masks are fixed aborts the session: the charges already made
// stay charged (a reservation is spent, never refunded), and no partial
// release is published.
package roles
