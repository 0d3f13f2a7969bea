// Package roles runs MP-CRDP (../shared/papers/mp-crdp.txt; the
// mathematics is in method/mpcrdp/crdp) between N parties holding vertically
// partitioned records (disjoint features of the same individuals, joined on
// an ID) and the paper's trusted server.
//
// Rounds:
//
//  1. each party runs its local correlation analysis at the initial
//     threshold w0 (ΔCS_n, K_n; Algorithm 1, line 3) and sends it to the
//     server together with its raw columns and IDs (one party also sends
//     the label column);
//  2. the server joins the columns on the ID and runs the MP-CRDP pipeline
//     step by step; before every step that releases a noisy value it sends
//     the step's charges to every party, each party spends them on its own
//     accountant (refusing if they exceed its budget) and approves; once
//     all have approved, the server spends them on the merged ledger and
//     runs the step;
//  3. the server sends every party the summary of what was published.
//
// Trust model (the paper's, §5.1): the server is TRUSTED. It receives every
// party's raw columns, so it sees every record; differential privacy
// protects the individuals against the users of the published output, not
// against the server. Every noisy release reads the merged records of all
// parties, so every charge is spent by every party.
package roles
