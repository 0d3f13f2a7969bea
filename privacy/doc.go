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
package privacy
