// Package audit checks privacy claims empirically: it runs a mechanism many
// times on two neighbouring datasets D and D' and computes a statistically
// valid lower bound on the ε it really provides, in the style of Ding et
// al. (2018, "Detecting violations of differential privacy"), Jagielski et
// al. (2020) and Nasr et al. (2021). A wrong sensitivity is invisible in
// accuracy plots; here it shows up as a lower bound above the claim.
//
// Method. An (ε, δ)-DP mechanism M satisfies P[M(D) ∈ S] ≤ e^ε P[M(D') ∈ S]
// + δ for every event S and both orders of the pair. Run chooses S among
// threshold events {T ≥ t} and {T ≤ t} on a scalar statistic T of the
// release (for known noise, the log-likelihood ratio: the most powerful
// test by Neyman–Pearson), using a first batch of runs; it then counts S on
// a fresh batch, takes exact Clopper–Pearson bounds p_lo on the more
// likely side and p_hi on the other, and reports
//
//	ε_lower = ln((p_lo − δ) / p_hi),
//
// the larger over the two orders of the pair. With each of the four
// one-sided bounds at level (1 − confidence)/4, ε_lower exceeds the true ε
// with probability at most 1 − confidence. The verdict is PASS when
// ε_lower ≤ the claimed ε, VIOLATION otherwise. A PASS is not a proof of
// privacy: it says only that these runs found no evidence against it.
//
// A zCDP claim is also tested as a whole (renyi.go): the indicator of an
// event obeys the claim's Rényi bounds D_α ≤ αρ at every order, which the
// Clopper–Pearson bounds of an event near the middle of the statistic's
// law can refute where (ε, δ) bounds, which need rare events, cannot —
// halved Gaussian noise among them. The verdict is VIOLATION when either
// test refutes the claim; the eight one-sided bounds are then at level
// (1 − confidence)/8 each.
//
// Audits: this package is the harness and knows no method. Core holds
// the audits of code no method owns: Laplace, Gaussian (analytic) and
// Exponential from package dp, learn's DP-ERM and the marginal engine's
// releases. Each method's audits live in its folder,
// method/<name>/audits (PPCA-DP-MH's real owner role in both
// calibrations, Mul-LDA-DP's correlated zero-sum noise against the
// publisher's whole view, DPPCA's noisy second moment, the views of the
// real roles, the whole pipelines on canary pairs, the hostile-coordinator
// attacks), and return one Family: named audits with their suite cases.
// Package audit/catalog joins the families into the Catalog whose
// Methods are the names `dppub audit` uses and whose Suite is what CI
// runs.
//
// Grey-box: GreyBox runs the same mechanisms on D and D' and compares the
// distributions of the low-order structure of their float64 outputs (the
// significand's trailing zeros and low bits, of the output and of the
// output minus the true value rounded to the release's grid) by χ² tests
// at a stated false-alarm rate. It finds the floating-point leak of noise
// added to the true value in float64 (Mironov 2012), which black-box
// thresholds on the value cannot see; Catalog.GreyBoxSuite runs it for
// every audit of the catalog.
//
// Randomness: the audit's releases draw from children of Options.Source.
// Seeded and secure sources drive the same exact samplers of package dp;
// a seeded one makes a run reproducible.
package audit
