// Package roles runs our reconstruction of DP-SUBN (Cheng et al., IEEE
// TKDE 2020; see package method/dpsubn3/subn3 for what was and was not available
// to us) between m parties holding horizontally split records and a
// semi-trusted curator.
//
// Rounds, in the public party order:
//
//  1. The curator sends party 1 an empty prior.
//  2. Party i charges its accountant and computes its update of the
//     network from its records and the prior (method/dpsubn3/subn3.Update), then
//     sends the new model and its record count n_i to the curator.
//  3. The curator sends that model, standing for n_1+…+n_i records, to
//     party i+1 as its prior; after party m it samples n_1+…+n_m
//     synthetic rows from the final model.
//
// Every message carries only DP models and public record counts, so the
// curator and every party see nothing that is not covered by the senders'
// budgets.
package roles
