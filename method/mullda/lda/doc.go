// Package lda is the mathematics of LDA-DP and Mul-LDA-DP (Gu, Zhang, Zhang:
// "Multiparty data publishing via blockchain and differential privacy",
// 2022; ../shared/papers/lda-dp-mul-lda-dp.txt and
// docs/errata.md#lda-dp-and-mul-lda-dp): the class statistics of rows in the
// unit L2 ball, their noise plan under the paper's and the sound
// calibration, the correlated zero-sum noise shares of the paper's scheme,
// the DP class means and pooled within-class scatter, the Fisher direction
// (two classes) and the C−1 discriminant directions (C classes), and
// synthetic labelled projections drawn from the DP class-conditional
// Gaussians. It has no roles and no I/O; package method/mullda/roles runs it
// between owners, a noise dealer and a publisher.
//
// Privacy in one paragraph. Rows are scaled into the unit L2 ball. Replacing
// one record (features and label) moves the stacked class sums by at most 2
// in L2, the class counts by √2 (only when the label changes, and then the
// sums move by at most √2), and the upper triangle of Σxxᵀ by at most √2.
// The sound calibration releases all three through one Gaussian mechanism
// with a σ per block, calibrated with the analytic Gaussian of Balle & Wang
// (2018) on the block-scaled sensitivity √(4/σ_s² + 2/σ_B²) (the counts ride
// free at σ_s). With correlated noise, the publisher's whole view (every
// owner's message and its own share) is what must be DP, and it carries
// less noise about one owner than any single message does: ViewFactor says
// how much less, and the sound plan pays for it.
package lda
