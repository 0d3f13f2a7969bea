// Package schemadisc drafts a schema for a CSV file whose owner has none
// yet: column names, kinds (numeric, categorical, binary), whether a
// numeric column holds whole numbers and how many decimal places it is
// written with, and — the part that carries privacy risk — numeric bounds
// and category lists.
//
// Bounds and category lists are exactly what the mechanisms' sensitivity
// rests on, so they must never be read off the private data as they are
// (the minimum of a column is one person's value). Discover offers two
// ways:
//
//   - With a budget (Options.Epsilon > 0), bounds come from a noisy
//     histogram on a public log-scale grid with a bin for exact zeros
//     (the 0.5% and 99.5% quantiles, never stopping at a point mass such
//     as 0 while values lie beyond it; see Bounds) and category lists
//     from Gaussian partition selection (see Categories). Numeric
//     columns are measured in two rounds: half of each column's share
//     first, then the pooled rest on the columns whose values beyond
//     exact zeros are too few to place (see measureNumeric). All counts
//     carry discrete Gaussian noise and compose in zCDP; the budget is
//     divided from public facts (n, ε, δ, the number of columns of each
//     kind) before anything is spent, nothing is spent on a kind of
//     column the budget cannot give a usable answer for on this many
//     rows (those columns are left for a person), and the whole plan is
//     charged to the owner's privacy.Accountant before the first release
//     (see plan); the result carries a privacy report.
//   - Without a budget, numeric bounds are null placeholders and the
//     schema is marked "draft": true, which data.LoadSchema refuses until
//     a person has filled the bounds from public knowledge, checked the
//     category lists (read from the data, without noise) and deleted the
//     flag.
//
// Either way the kinds, the integer flag and the decimal places are read
// from the data without noise. They are structural facts a reviewer should
// check; the privacy report lists them as not covered by DP.
package schemadisc
