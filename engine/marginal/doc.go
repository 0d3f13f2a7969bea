// Package marginal is the statistical engine of PDP-MVDS ("A multi-party
// vertically partitioned data synthesis mechanism with personalized
// differential privacy"; ../shared/papers/pdp-mvds.txt,
// docs/errata.md#pdp-mvds), whose design follows PrivSyn (Zhang, Wang, Li,
// Honorio, Backes, He, Chen, Zhang: "PrivSyn: Differentially Private Data
// Synthesis", USENIX Security 2021).
//
// It works in three separable layers, so that the multi-party protocol can
// drive the same engine, over a finite world of its own
// (engine/marginal/domain: discretisation to a finite Domain from
// declared bins, the encoded table, marginal tables):
//
//   - what to measure, this package: the personalised budget plan (each
//     party's ρ_k split 0.1/0.1/0.8 as in Algorithm 3, a release spanning
//     parties charged to each at the stricter budget), pair selection by
//     Algorithm 2 and PrivSyn's marginal combination (CombineOptions; by
//     default only where it does not add noise), or AIM's rounds;
//   - measuring (engine/marginal/measurement): the Measurer interface.
//     Its LocalMeasurer, for one owner, counts locally, charges the
//     parties' accountants and adds noise; the protocol implements the
//     same interface with secure scalar products and distributed noise;
//   - from noisy marginals only (engine/marginal/infer): post-processing
//     (NormSub, Merge, Consistent) and the gradually update method (GUM;
//     by default with one-attribute conditional moves, see GUMMode), or a
//     graphical model, then decoding to the schema (Domain.Decode).
//
// Synthesize runs the whole of Algorithm 3 against any Measurer, or, for
// one owner (a Selector), the adaptive method (MethodAdaptive, the
// default for small domains through MethodAuto): AIM's rounds (McKenna,
// Mullins, Sheldon, Miklau, VLDB 2022) of private selection and Gaussian
// measurement with budget annealing, scored by default with the clipped
// penalty (Penalty), and a Private-PGM graphical model (infer.Estimate:
// junction tree, mirror descent) fitted to the noisy marginals and sampled.
//
// Neighbouring relation: replace one record (n is public and fixed).
// Sensitivities used (each stated where it is used): a count vector over any
// attribute set changes in two cells by one, so Δ₁ = 2 and Δ₂ = √2; the
// paper's IInDif score (Algorithm 1, against published noisy one-way
// marginals) has Δ = 2; PrivSyn's InDif (against the true marginals) has
// Δ = 6 under replace-one. All noise is accounted in ρ-zCDP (Bun & Steinke
// 2016); Laplace releases are charged ε²/2.
//
// The package does no I/O; randomness comes in as a *randx.Source.
package marginal
