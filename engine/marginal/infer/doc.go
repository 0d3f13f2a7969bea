// Package infer is the marginal engine's inference: from noisy marginals
// only (post-processing, no privacy cost), it estimates a synthetic
// population.
//
//   - Post-processing the measurements (Noisy: a marginal and its noise
//     variance): NormSub (non-negative counts summing to the public
//     total), Merge (inverse-variance weighting of repeated
//     measurements) and Consistent (PrivSyn's consistency over shared
//     attribute sets).
//   - GUM, PrivSyn's gradually update method: records drawn and moved
//     until their marginals match the targets (by default with
//     one-attribute conditional moves, see GUMMode).
//   - Model, a Private-PGM graphical model (McKenna, Sheldon, Miklau,
//     ICML 2019): a junction tree over the measured attribute sets,
//     calibrated by message passing, fitted to the noisy marginals by
//     mirror descent (Estimate; optionally with momentum), asked for any
//     marginal (Model.Marginal) and sampled (Model.Sample). Its size
//     (Model.Cells, ModelCells) is what the adaptive method caps.
//
// The mechanisms that produce the measurements are engine/marginal's;
// this package adds no noise and spends no budget. It does no I/O;
// randomness comes in as a *randx.Source.
package infer
