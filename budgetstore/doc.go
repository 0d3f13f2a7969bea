// Package budgetstore is a data owner's privacy-budget ledger on disk: a
// lifetime budget per dataset and every spend against it, kept in a bbolt
// file (one writer, fully serialisable, fsync on commit), so that budgets
// survive restarts and a crash can never lose a spend that was recorded.
//
// The in-memory privacy.Accountant stays the object protocol roles charge
// (it refuses a session's overspending); a Tracker binds a session's
// accountant to the store, and the owner's transport commits the
// accountant's new charges to disk (Tracker.Commit) after each protocol
// step and before any message of that step leaves the owner. Commit
// refuses, recording nothing, a charge that would exceed the lifetime
// budget, so the step's messages are then never sent. A crash between
// commit and send over-counts (a spend recorded whose release never left),
// never under-counts. LoadAccountant goes the other way: it rebuilds an
// accountant holding every recorded charge against the lifetime budget.
//
// Layout: one top-level bucket per dataset holding "lifetime" and "spent"
// (JSON guarantees), "entries" (sequence number → JSON Entry) and
// "sessions" (session ID → sequence number of its first entry), so that a
// session ID is never run twice on the same dataset.
package budgetstore
