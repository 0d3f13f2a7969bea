// Package subn3 is the mathematics of one party's turn in DP-SUBN
// (written DP-SUBN³ by the papers that compare against it): Cheng, Tang,
// Su, Chen, Wu, Zhu, "Multi-Party High-Dimensional Data Publishing Under
// Differential Privacy", IEEE TKDE 32(8), 2020 (conference version: Su,
// Tang, Cheng, Chen, Wu, "Differentially private multi-party
// high-dimensional data publishing", ICDE 2016). It has no roles and no
// I/O; package method/dpsubn3/roles runs it between the parties and the
// curator.
//
// What we could read. Only the abstracts of both papers were available to
// us; they say: with a semi-trusted curator, the parties (local data
// owners) collectively generate a synthetic integrated dataset under
// ε-differential privacy; the parties and the curator identify the
// Bayesian network that best fits the integrated dataset "in a sequential
// manner", each party treating "the intermediate results provided by
// previous parties as their prior knowledge to direct how to learn" the
// network; the core is the construction of a "search frontier" from the
// correlations of attribute pairs (exact and heuristic constructions),
// and the pair correlations are measured privately with a "non-overlapping
// covering design" (NOCD) whose parameters are chosen by dynamic
// programming. The full algorithms, NOCD and the budget split were not
// available, so this package is a RECONSTRUCTION from that description,
// built on PrivBayes (package privbayes), which the paper extends. Results
// obtained with it are results of this reconstruction, not of the
// original.
//
// Our reconstruction of party i's turn, given the prior (the model M_{i−1}
// published after parties 1..i−1, standing for W = n_1+…+n_{i−1}
// records):
//
//  1. Party 1 has no prior and runs PrivBayes on its data with its budget
//     ε (so one party is exactly centralised PrivBayes).
//  2. Party i > 1 draws W rows S from M_{i−1} (post-processing of the
//     earlier parties' DP outputs; S does not depend on party i's data).
//  3. Search frontier (our choice where the paper uses NOCD): for each
//     attribute X, the Frontier attributes with the highest pair score
//     against X on S are X's allowed parents. It is computed from the
//     prior only, so it costs no budget. Frontier = 0 allows every
//     attribute.
//  4. Structure: GreedyBayes on S ∪ D_i with the prior's first attribute
//     as root and βε. Every score is computed on W + n_i rows of which
//     only n_i are party i's, so the sensitivity is that at W + n_i (e.g.
//     3/(W + n_i) for R): the prior is what lets later parties choose the
//     structure with less noise. τ is also computed on W + n_i rows.
//  5. Parameters: Laplace-noised count marginals of the maximal families
//     on D_i alone with (1−β)ε, to which the counts of S on the same
//     attributes are added; the conditionals M_i are read off the sums.
//
// The curator relays M_i to party i+1 and finally samples n_1+…+n_m rows
// from M_m. Privacy: party i's records enter only its two charged
// releases; the prior and everything computed from the published models
// is post-processing; so every record is protected at its own party's ε
// (parallel composition over disjoint parties, also under this adaptive
// order). The record counts n_i are public.
package subn3
