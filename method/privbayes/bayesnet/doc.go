// Package bayesnet is the mathematics of PrivBayes (Zhang, Cormode,
// Procopiuc, Srivastava, Xiao: "PrivBayes: Private Data Release via
// Bayesian Networks", SIGMOD 2014, and the extended version in ACM TODS
// 42(4), 2017), a baseline the PPCA-DP-MH and LDA-DP papers compare
// against. It has no roles and no I/O.
//
// What we follow (the algorithm names are the paper's):
//
//   - Algorithm PrivBayes: split ε into ε1 = βε for learning the network
//     and ε2 = (1−β)ε for its parameters; β = 0.3 by default, the value the
//     TODS paper recommends.
//   - GreedyBayes: the first attribute is drawn uniformly at random; then,
//     d−1 times, the exponential mechanism with budget ε1/(d−1) picks one
//     attribute–parent-set pair (X, Π) among every not-yet-placed X and
//     every candidate Π of already-placed attributes.
//   - Candidate parent sets: with a fixed degree k, every subset of the
//     placed attributes of size min(k, |V|) (the binary-domain version);
//     with k = 0 (default), the "maximal parent sets" of the general-domain
//     version: the maximal Π with |dom X|·|dom Π| ≤ τ, where τ = n·ε2/(2dθ)
//     is the largest domain on which a noisy marginal is θ-useful (the ratio
//     of average cell mass 1/|dom| to the Laplace scale 2d/(nε2) is at least
//     θ; θ = 4 by default, the paper's value). An X whose own domain exceeds
//     τ gets Π = ∅.
//   - Scores: mutual information I(X; Π) with the sensitivity of the
//     SIGMOD paper's Lemma (binary and general cases; MISensitivity), or the
//     TODS paper's score R(X, Π) = ½‖Pr[X,Π] − Pr[X]Pr[Π]‖₁. For R we
//     prove our own bound 3/n (RSensitivity) rather than quote one. The
//     paper's F score (binary domains, computed by dynamic programming) is
//     not implemented.
//   - NoisyConditionals: each family's joint counts get Laplace noise and
//     the conditionals are read off them. Where the paper clips negative
//     entries to 0 and normalises, we subtract from every entry of a
//     parent configuration the shift s ≥ 0 that makes the clipped entries
//     sum to the configuration's noisy total (PrivSyn's Norm-Sub):
//     clipping keeps every positive noise draw of the empty cells, which
//     pulls sparse configurations towards uniform (on Adult at ε = 1, mean
//     2-way TVD 0.065 with clipping, 0.049 with Norm-Sub over 8 seeds).
//     We release one marginal per maximal family (a family contained in a later one, such as the first k of a
//     degree-k network, is read from it), m′ ≤ d marginals at ε2/m′ each.
//   - Sampling: ancestral sampling in network order.
//
// Where we had to choose (the TODS paper's generalisation hierarchies are
// not implemented): numeric attributes are cut into equal-width bins over
// the schema's declared, public bounds and decoded uniformly inside the
// bin, plus one code each for the declared minimum and for 0 when inside
// the bounds, decoded to exactly that value (see Discretizer: a column
// that is mostly 0 stays mostly 0); categorical and binary attributes are
// their categories. A
// conditional whose clipped counts are all zero falls back to the child's
// own (noisy, clipped) marginal from the same table. MaxCells caps the
// cells of any marginal (a computational bound, not a privacy one).
//
// Neighbouring datasets: replace one record; the record count n is public,
// as in the paper.
package bayesnet
