// Package measurement is how the marginal engine touches the records:
// every release it makes, with its noise and its charge.
//
//   - Measurer (and Batcher, Selector) is what the engine asks: a noisy
//     marginal, a noisy dependency score (IInDif, InDif; ScoreQuery), a
//     private selection among candidate attribute sets (SelectQuery,
//     Choice: exponential mechanism or permute-and-flip). LocalMeasurer
//     answers for one owner, counting locally, charging the parties'
//     accountants first and adding exact discrete noise through dp; the
//     protocols (method/pdpmvds/roles, method/rowsynth/roles) implement
//     the same interfaces across owners.
//   - Release and Noise state what one release costs: the mechanism
//     (Laplace or Gaussian), its calibration to a ρ (Calibrate,
//     CountNoise) and the sensitivities it is calibrated to (CountL1,
//     CountL2 and their add/remove forms, IInDifSensitivity,
//     InDifSensitivity, ScoreSensitivity).
//   - The releases before the engine runs: the data-chosen bins of a
//     numeric attribute (ChooseCuts, ChooseBinsFromFine: a noisy
//     histogram on the domain's public grid, cut by
//     domain.BinsFromHistogram) and, under add/remove neighbours, the
//     record count (ReleaseCount).
//
// Every noisy value is on dp's public grid and charged in ρ-zCDP before
// it is released. The package does no I/O; randomness comes in as a
// *randx.Source.
package measurement
