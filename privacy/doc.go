// Package privacy spends and reports privacy budgets.
//
// Every party (data owner) has one Accountant. Every noisy release is
// charged to it before the noisy value leaves the party, with the mechanism,
// its purpose, sensitivity and cost; a charge that would exceed the party's
// budget is refused with an error that says what remains.
//
// A Report is attached to every published artifact. It lists each release,
// the neighbouring relation, the assumptions (public counts, declared
// bounds), each party's total against its budget, how the parties' budgets
// compose (stated explicitly, never implied), and, in words, every output
// that is NOT covered by differential privacy.
//
// A report never overstates its guarantee: it leads with a Status (holds,
// none for a seeded run, not standard DP, exceeding the claim, or part of
// the output not DP), keeps the nominal figure as Claimed beside the
// Actual one when a charge is known to cost more than it claims (each
// party's within-budget verdict uses the actual spend), states the
// whole-record guarantee under personalised budgets, and records the run
// (version, publication time, parameters, output digests).
package privacy
