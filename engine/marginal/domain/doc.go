// Package domain is the marginal engine's finite world: a schema's
// attributes discretised to a Domain (categories, declared or data-chosen
// bins of numeric attributes, the pieces values are drawn in when
// decoding), the encoded table (Dataset, one column of cell indices per
// attribute; Cells and Chunks, the same in chunks of distinct rows with
// weights, as Tally merges them from streamed rows), and the contingency
// tables over attribute sets (Marginal: counting, projecting, the key
// of an attribute set).
//
// The bins' geometry lives here too: the public grid a numeric
// attribute's histogram is released on (PublicGrid, FineEdges) and, as
// post-processing of a noisy histogram only, the bins cut from it
// (BinsFromHistogram). Releasing that histogram is a mechanism, the
// engine's (measurement.ChooseCuts); nothing in this package adds noise or
// charges a budget.
//
// Everything above it in the engine (the graphical model in
// engine/marginal/pgm, the mechanisms in engine/marginal) counts and
// decodes through it. The package does no I/O; randomness (decoding a
// value inside its bin) comes in as a *randx.Source.
package domain
