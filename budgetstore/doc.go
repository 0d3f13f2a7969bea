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
// Reservations: a member that accepts a session reserves its budget
// (Reserve) in the same transaction as the checks that the session ID is
// new and that the budget fits beside what is spent and what running
// sessions still hold. When the session ends (done, aborted — its
// coordinator died, say — or refused), Release gives back the part of the
// budget the session did not charge; the charges stay spent, and nothing
// more may be charged to it. A member that starts again releases the
// reservations its previous process left open (ReleaseOpen), since those
// sessions ended with it. Every reservation stays in the ledger with its
// budget, charges, state and reason.
//
// zCDP sessions on an (ε, δ) lifetime budget: a session whose budget is
// ρ-zCDP is reserved with the δ it runs at (ReserveAt), its charges
// compose in ρ, and the dataset counts the session, once, as the (ε, δ)
// its charged ρ converts to at that δ (dp.ZCDPEpsilon) — never charge by
// charge. Sessions then add up by basic composition; zcdp.go gives the
// argument. The reservation records the δ, and Verify and LoadAccountant
// recompute each such session's count from its entries.
//
// Damage: Open checks an existing file whole before bbolt writes to it
// (open.go, pages.go): its pages' own structure read from its bytes, then
// bbolt's consistency check; measured 5.8 ms for a ledger of 10 000
// charges, 0.12 s for 100 000. A damaged file, and any panic of bbolt's
// inside a later transaction, is a *DamagedError naming the file and
// saying to restore it from a backup; it is never replaced by a new
// ledger, which would reset the spent budget. A meta page torn by a
// crash during a commit is not damage: bbolt falls back to the other,
// the commit before, whose charges are all that was acknowledged.
//
// Layout: one top-level bucket per dataset holding "lifetime" and "spent"
// (JSON guarantees), "entries" (sequence number → JSON Entry), "sessions"
// (session ID → sequence number of its first entry), so that a session ID
// is never run twice on the same dataset, and "reservations" (session ID →
// JSON Reservation; created on first use, so older ledgers still open).
package budgetstore
