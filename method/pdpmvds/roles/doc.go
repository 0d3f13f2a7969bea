// Package roles is the multi-party protocol of PDP-MVDS ("A multi-party
// vertically partitioned data synthesis mechanism with personalized
// differential privacy"; ../shared/papers/pdp-mvds.txt,
// docs/errata.md#pdp-mvds): K data owners holding different columns of the
// same n records, each with its own zCDP budget, and a semi-trusted third
// party S measure noisy statistics of the joined records without any of them
// seeing another's records. The statistics feed the marginal engine
// (engine/marginal) through Measurer, which implements measurement.Measurer.
//
// # Roles
//
// Party (one per owner) and ThirdParty (S) are step objects: they hold no
// I/O, every message is a Request or a Body marshalled to bytes, and they
// run under protocol.RunLocal (one session per measurement, plus a setup
// session). The arithmetic of both suites (slot packing, the two scalar
// products, the sign step, the splitting of shares) is crypto/sspp's: this
// package holds the roles, their messages and their order. A coordinator, at the owner that runs the engine (Algorithm 3's
// P_x), sends each request and assembles the released values. A request
// about one owner's attributes is answered by that owner alone with exact
// noise. A request spanning owners goes through one of two suites:
//
//   - SuitePaillier, the paper's: Goethals et al.'s secure scalar product
//     (ICISC 2004) under each owner's own Paillier key, with one-hot
//     indicator vectors packed into plaintext slots (one ciphertext per
//     record covers all of an owner's attributes; the owner encrypts them
//     once at setup and every partner reuses them against all its values);
//     the shares are encrypted under the owners' shared key (one 2-of-2
//     sharing of the decryption exponent per pair, from the key ceremony
//     DealKeys / `dppub keygen`); S computes C[t] = C[N*_i·N*_j]/(C[S_x]·C[S_y])^n,
//     C[t·r + r'], packs them, the pair decrypts jointly and returns the
//     signs, S forms C[Σ|t|]·C[η] and the pair decrypts the noisy score
//     (Algorithm 1). Marginals: packed shares and noise multiplied at S,
//     decrypted jointly.
//   - SuiteCommodity: Du & Atallah's commodity-server scalar product
//     (2001) in matrix form mod 2^64 (S deals seeds of random masks and a
//     correction; each owner's masked one-hot columns are sent once at
//     setup and reused), and the rest of Algorithm 1 on additive shares:
//     the pair sends S s·(r·t + r') with common random (r, r', s) per
//     cell, S returns the sign bits, the pair flips its shares of t and
//     sends the coordinator its share of Σ|t| plus noise. No encryption.
//
// More than two owners in one marginal: the product of their indicator
// vectors is taken along a chain. Commodity: record-level shares of the
// first owners' outer products (row mode), then sums with the last.
// Paillier: Alice's packed vector is filtered by each middle owner (kept and
// rerandomised where the record has the middle owner's value, fresh
// encryptions of 0 elsewhere), and Bob multiplies by his values.
//
// # Bins
//
// With a bin share (method/pdpmvds's bin_share), a bins phase runs before
// the setup (after the linkage in a linked session): each party chooses
// the bin edges of its own numeric attributes from its own column
// (measurement.ChooseCuts on a noisy histogram over a public grid, charged
// to its own accountant before anything leaves it) and sends them to the
// coordinator in a Cuts message; the coordinator checks that each party
// sent exactly its own attributes, once, and sends every party's edges to
// every party and S, which then build the same domain. The edges are DP
// releases of the party's column; nothing else of it moves in this
// phase.
//
// # Noise
//
// NoiseInsiderSafe (default): every owner and S draw a share such that any
// K of the K+1 shares already make up the calibrated noise (discrete
// Gaussian of variance s²/K; discrete Laplace as differences of Pólya
// variables). The charged guarantee holds against outsiders, S, and each
// single owner; the noise variance is (K+1)/K times the calibrated one.
// NoiseExact (the paper's): only the measured owners draw, their shares
// summing to the calibrated noise (Laplace: DLPA, Rastogi & Nath 2010, in
// the Paillier suite, approximately discrete Laplace; Pólya shares,
// exactly, in the commodity suite). Against a fellow owner the guarantee
// is then weaker (it knows its own share). A party hands its owner every
// share it draws (Party.ObserveOwnShares), which is what the view audit
// of a colluding party subtracts (audit view-pdp-mvds --view colluder).
//
// Fixed point. No floating-point noise ever meets a statistic. Every
// release has a public power-of-two grid G and a discrete law (the
// dp.PlanLaplace or dp.PlanGaussian that measurement.Noise.Release uses for
// the same values, so joint and local releases agree), every noise share
// is an integer number of grid steps (dp.Noiser.Shares), and the
// statistic travels as an integer too (see encoding): a count c as c/G
// (exact, G ≤ 1), so the ring or plaintext holds c/G + K exactly and the
// coordinator receives G·(c/G + K); a score, which is computed on shares
// at a finer fixed point, is stochastically rounded to the grid by a
// dither S adds (the extra grid step this costs is the one the plans
// already pay for). DLPA's η̂ is drawn 2^16 times finer and rounded back.
// Every value the coordinator accepts lies on the grid.
//
// # Threat model
//
// Semi-honest owners and S (everyone follows the protocol); S colludes with
// no owner; no two owners collude (with the pairwise key shares any two
// owners could decrypt what S handles); private, authenticated channels;
// the key-ceremony dealer is neither S nor an owner and erases the key.
// What each role learns beyond its own data and the DP releases:
//
//   - the pair of every cross-owner attribute pair (a, b) learns, for every
//     cell (i, j), the sign of t = N*_{a=i}·N*_{b=j} − n·N_{a=i,b=j}
//     (Algorithm 1, step 5): NOT covered by DP;
//   - Paillier suite: the pair's decrypting owner also learns t·r + r'
//     (r < 2^StatBits random, 0 ≤ r' < r) per cell, i.e. |t| up to an
//     unknown factor; S learns the signs;
//   - commodity suite: S learns |t·r + r'| per cell (r < 2^15), not the
//     sign;
//   - scalar-product shares and masked vectors are uniformly random
//     (commodity) or statistically hiding to 2^−StatBits (Paillier masks);
//   - the coordinator receives the noisy releases (covered by DP); for a
//     score, the commodity suite's coordinator and the Paillier suite's
//     decrypting owner also see the released value's residue below the
//     grid, which S's dither makes uniform (covered with the release, see
//     encoding). S knows the dither and must not collude with either.
//
// Performance: Paillier operations are counted per role (Ops), and
// Measurer.Phases reports wall time, operations and bytes per phase.
package roles
