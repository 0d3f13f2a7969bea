// Package ppcadpmh runs PPCA-DP-MH between m data owners holding
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
// Noise modes. In "local" mode (the paper's) each owner adds the full
// noise of its calibration to its own sums, so the aggregate carries m
// independent noises and accuracy falls as owners are added. In
// "secure-aggregate" mode each owner adds only a 1/m share of one
// centralised noise draw (Gaussian: N(0, σ²/m); Laplace: a difference of
// two Gamma(1/m, b) draws, which sum to Lap(b) over m owners) and masks its
// fixed-point sums with pairwise zero-sum masks expanded from the seeds of
// round 1, so the curator learns only the sum, which carries exactly the
// noise of one centralised release. Assumption: the curator does not
// collude with owners; the curator together with all other owners can
// remove the masks and the others' noise shares, leaving one owner's
// statistics with only its 1/m share of the noise.
package ppcadpmh
