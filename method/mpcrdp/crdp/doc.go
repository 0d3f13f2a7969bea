// Package crdp is the mathematics of MP-CRDP (Zhao, Wang, Mao, Huang, Su,
// Li: "Correlated Differential Privacy of Multiparty Data Release in Machine
// Learning", JCST 37(1), 2022; ../shared/papers/mp-crdp.txt and
// docs/errata.md#mp-crdp): private multiparty feature selection (MP-FS,
// Algorithm 1), private utility optimisation (MP-OP, Algorithm 2) and the
// three releases (noisy count queries, FM-regression logistic regression,
// objective-perturbation SVM), each under one of four privacy notions. It
// has no roles and no I/O: package method/mpcrdp/roles runs a Pipeline between
// the parties and the trusted server, and method/mpcrdp (mpcrdp.Publish) wraps it.
//
// # Budget
//
// ε = ε1 + ε2/2 + ε2/2 (paper §5.4): ε1 = FeatureShare·ε for feature
// selection, ε2/2 for the exponential-mechanism choice of the candidate
// group, ε2/2 for the release. Every noisy step is a Step of the Pipeline
// whose privacy.Charge is approved (charged) before it runs.
//
// # MP-FS
//
//   - Cleaning (paper calibration only): a feature whose most frequent
//     discretised value covers at least MaxDominantShare of the records
//     (constant or mostly one value, e.g. a mostly-missing code) is dropped.
//     Not DP; the sound calibration leaves it to the selector.
//   - Stability selection per party (Meinshausen & Bühlmann 2010), the
//     paper's selector: the base selector is L1-regularised logistic
//     regression (FitL1Logistic, proximal gradient with Nesterov
//     acceleration) fitted on Runs subsamples of the party's features and
//     the label; a feature (all of a categorical attribute's one-hot
//     columns) is selected in a run when any of its weights is non-zero;
//     its score is the fraction of runs selecting it; θ_im = 0.6 splits
//     the best set β from the adjusted set α. Paper calibration: half-size
//     subsamples, no noise (the paper spends no budget here, so the score
//     and the split are NOT DP). Sound calibration: the runs use DISJOINT
//     blocks of the records (subsample-and-aggregate), so replacing one
//     record changes one run, i.e. each of the party's M selection counts
//     by at most 1: the count vector has L1 sensitivity M and gets
//     Laplace(M/ε_s) noise; a party's share ε_s is ε1/(2N).
//   - Redundancy among β: numeric pairs by Pearson's coefficient, pairs
//     involving a categorical feature by normalised mutual information
//     NMI = I(f; g)/min(H(f), H(g)) on the discretised codes (the paper
//     uses "information gain" for them); a pair with noisy |coefficient| ≥
//     θ_per = 0.9 moves one of its features, chosen at random, to α.
//     Paper calibration: each coefficient + Laplace(1/ε1), the paper's
//     claim ΔCS_per ≤ 1. That claim is wrong twice: a Pearson coefficient
//     lies in [−1, 1], and replacing one record of bounded data can move it
//     across that whole range (sensitivity 2), and all P coefficients
//     change together, so the release is (Σ Δ_pair)·ε1-DP, not ε1; the
//     report states the true figure. Sound calibration: the coefficients
//     are post-processing of noisy sufficient statistics. For numeric
//     features encoded into [0, 1] by their declared bounds, the sums Σx_j
//     and the cross-products Σx_j·x_k (j ≤ k) each move by at most 1 when
//     a record is replaced: L1 sensitivity M + M(M+1)/2. For the NMI pairs
//     the entropies H(f), H(f, g) of the empirical distributions: with n
//     records (public) and h(c) = c·log₂c, replacing a record moves one
//     count down and one up, and 0 ≤ h(c+1) − h(c) = log₂(c+1) +
//     c·log₂(1+1/c) ≤ log₂n + log₂e, so every entropy H = log₂n − Σh(c)/n
//     moves by at most (log₂n + log₂e)/n (EntropySensitivity). The budget
//     ε1/2 is split between the two vectors in proportion to their pairs.
//
// # MP-OP
//
// The candidates are all b-subsets of α (the paper's Table 3 shows two
// candidates sharing a feature, so they are not a partition). u1 is the sum
// of the candidate features' information gains with the label, u2 =
// MCD/ΔCS_p of β ∪ candidate at w0 = MCD. Paper sensitivities: Δu1 = log₂C
// (C classes), Δu2 = 1/K. Sound: IG = H(Y) + H(X) − H(X, Y) moves by at
// most 3(log₂n + log₂e)/n (and never more than log₂C), so Δu1 = b times
// that; u2 lies in (0, 1] (MCD ≤ 1 ≤ ΔCS_p), so Δu2 = 1. The choice is the
// exponential mechanism at ε2/2.
//
// # Releases and notions
//
// The release sensitivity is multiplied by the notion's factor Δ:
// standard 1 (record-level DP, the default), group ΔGS (the largest
// correlated group at w0, or a declared public bound), correlated ΔCS at
// w0 (Zhu et al. 2015), mp-crdp ΔCS_p at w0 = MCD (the paper). ΔGS, ΔCS
// and ΔCS_p are computed from the data without noise: noise scaled by them
// is a data-dependent calibration, the paper's correlated-DP notion, NOT
// standard DP, so those notions must be chosen explicitly.
//
//   - Count queries: each count moves by at most 1 per record, so by Δ
//     under the notion. Paper calibration: Laplace(Δ/(ε2/2)) per query,
//     the paper's Eq. (22), which covers ONE query; Q queries compose to
//     Q·ε2/2. Sound: Laplace(Q·Δ/(ε2/2)) on each of the Q answers (L1
//     sensitivity of the answer vector Q·Δ).
//   - Logistic regression by the functional mechanism (Zhang, Zhang, Xiao,
//     Yang, Winslett, PVLDB 2012): the loss log(1 + e^z) − y·z is replaced
//     by its degree-2 Taylor expansion at 0, log 2 + (1/2 − y)z + z²/8, so
//     the objective is a quadratic in w with coefficients Σ(1/2 − y_i)x̃_i
//     and Σx̃_i x̃_iᵀ/8. With x̃ = (x, 1) and ‖x̃‖₁ ≤ s (s = number of
//     features + 1: numeric columns in [0, 1], one 1 per one-hot group), one
//     record's coefficients have L1 norm at most s/2 + s²/8, so replacing it
//     moves them by at most Δ_FM = s + s²/4 (Zhang et al.'s d + d²/4 with
//     the one-hot structure). Each coefficient gets Laplace(Δ·Δ_FM/(ε2/2));
//     the noisy quadratic is made positive definite (eigenvalues clipped,
//     ridge), then minimised: post-processing.
//   - SVM by objective perturbation (Chaudhuri, Monteleoni, Sarwate 2011,
//     Algorithm 2, Huber hinge; learn.TrainDPLinear) on rows scaled to
//     ‖x‖₂ ≤ 1, run at ε2/(2Δ): an ε′-DP mechanism is kε′-DP for groups of
//     k records (group privacy), so this protects a correlated group of
//     weight Δ at ε2/2.
package crdp
