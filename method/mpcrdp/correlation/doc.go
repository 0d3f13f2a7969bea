// Package correlation is the record-correlation analysis of MP-CRDP (Zhao,
// Wang, Mao, Huang, Su, Li: "Correlated Differential Privacy of Multiparty
// Data Release in Machine Learning", JCST 2022; ../shared/papers/mp-crdp.txt
// §3.3 and §4, and docs/errata.md#mp-crdp).
//
// Records are first discretised into integer codes, one per feature
// (Discretize): a categorical or binary attribute keeps its category index;
// a numeric attribute is cut into equal-width bins over its DECLARED bounds
// [Min, Max] (public, never read from the data), so two records "agree" on
// a numeric feature when their values fall in the same bin. An integer
// attribute with at most Bins distinct declared values keeps its exact value
// (with Bins = 16, Adult's education-num keeps its 16 levels; with the
// default 10 it is binned like any number). Values outside the bounds fall
// in the first or last bin.
//
// The feature-oriented correlated degree (the paper's Eq. 8–9, garbled as
// printed; resolved as in docs/errata.md#mp-crdp-correlated-degree) is
//
//	w_ij = (number of features on which records i and j agree) / l,
//
// so w_ii = 1. With a threshold w0, degrees below it are set to 0 (Eq. 5).
// For count queries (|Q(D^j) − Q(D^{−j})| ≤ 1) the record sensitivity of
// Eq. 6 is ΔCS_i = Σ_j w_ij over the records j with w_ij ≥ w0, i itself
// included, and the correlated sensitivity (Eq. 7) is ΔCS = max_i ΔCS_i.
// Alongside it the analysis reports, for the record i* attaining ΔCS (the
// lowest index on ties), the number K of records correlated with it (i*
// included): ΔCS is "the sum of the correlated degree of K correlated
// records" (Definition 8), so ΔCS/K is the mean correlated degree of that
// group and lies in [w0, 1]. The mean of ΔCS_n/K_n over the parties is the
// MCD of Eq. 10 (MCD), which the merged data then use as its threshold, so
// that ΔCS_p ≤ ΔCS as the paper's Theorem 1 states. Also reported: the
// Group-DP sensitivity ΔGS = max_i |{j : w_ij ≥ w0}| (the largest correlated
// group, degrees ignored) and the number of records that have at least one
// correlated partner other than themselves.
//
// These quantities are computed from the private data without noise. Noise
// calibrated to them is a data-dependent calibration (the paper's
// correlated-DP notion), not standard differential privacy; package
// method/mpcrdp/crdp and the privacy report say so.
//
// # Never n × n
//
// The degree matrix Φ is never materialised. Two implementations produce
// identical integer sums (so identical results):
//
//   - Reference: the O(n²) scan over record pairs, parallel over workers,
//     stopping a pair as soon as it has more than l − t disagreements;
//   - Hashed: records are collapsed to distinct patterns with multiplicities;
//     with t = ⌈w0·l⌉ the smallest number of agreeing features that reaches
//     the threshold, every pair of patterns that agrees on ≥ t features
//     shares the same key on some t-subset of the features, so the patterns
//     are bucketed by their values on each of the C(l, t) t-subsets and only
//     pairs inside a bucket are compared. A pair agreeing on a ≥ t features
//     is met in C(a, t) buckets; it is counted only in the bucket of the
//     lowest t features it agrees on, so each pair is counted once.
//
// Auto picks Hashed when C(l, t) is small relative to the number of
// patterns, and otherwise a pairwise scan over distinct patterns.
package correlation
