package budgetstore

import (
	"fmt"

	"github.com/dppub/dppub/dp"
)

// zCDP sessions on an (ε, δ) lifetime budget.
//
// A session is one interactive mechanism. When its budget is ρ-zCDP, its
// releases compose in zCDP to the ρ it charged, and the session as a
// whole is then (ZCDPEpsilon(ρ, δ_s), δ_s)-DP (Canonne, Kamath & Steinke
// 2020, Cor. 13) for the δ_s it was run at — the δ the user gave with the
// session's ε. Sessions compose with each other, and with pure and
// (ε, δ) sessions, by basic composition, which holds for interactive
// mechanisms run concurrently as well as one after another (Vadhan &
// Wang 2021, Lyu 2022). So a dataset whose lifetime budget is (ε_L, δ_L)
// counts each zCDP session once, at the conversion of the sum of its
// charges: converting every charge on its own would pay ρ + 2√(ρ ln 1/δ)
// per charge, and its δ_s per charge, instead of once per session.
//
// What a session charges is fixed by its public settings (its releases
// and their ρ), not by its data; a fault only stops it early. The spend
// counted is the conversion of what it did charge, as for pure and
// (ε, δ) sessions, whose uncharged budget is given back when they end.

// converts reports whether a session with budget runs on a dataset of
// lifetime budget lifetime counted as (ε, δ) after conversion at its δ.
func converts(lifetime, budget dp.Guarantee) bool {
	return lifetime.Notion == dp.ApproxDP && budget.Notion == dp.ZCDP
}

// counted is the (ε, δ) at which a session that charged ρ-zCDP in all is
// counted at δ: nothing for nothing charged, since a session that
// released nothing is (0, 0)-DP.
func counted(rho, delta float64) dp.Guarantee {
	if rho <= 0 {
		return dp.Approx(0, 0)
	}
	return dp.Approx(dp.ZCDPEpsilon(rho, delta), delta)
}

// Counted is what the reservation's session counts against the lifetime
// budget so far: for a zCDP session on an (ε, δ) lifetime (Delta > 0), the
// (ε, δ) its charged ρ converts to at Delta; otherwise its charges.
func (r Reservation) Counted() dp.Guarantee {
	if r.Delta > 0 {
		return counted(r.Charged.Rho, r.Delta)
	}
	return r.Charged
}

// holds is what an open reservation may still add to the dataset's
// spent, in the lifetime budget's notion: for a converted session the
// conversion of its whole budget less that of its charges (so that spent
// plus what it holds is the conversion of its budget), otherwise its
// budget less its charges.
func (r Reservation) holds() dp.Guarantee {
	if r.Delta <= 0 {
		return r.held()
	}
	all, now := counted(r.Budget.Rho, r.Delta), r.Counted()
	return dp.Approx(max(all.Epsilon-now.Epsilon, 0), max(all.Delta-now.Delta, 0))
}

// Conversion is one zCDP session counted against an (ε, δ) lifetime
// budget: the ρ it charged (of its ρ budget) and the (ε, δ) at which it
// is counted, converted at its δ.
type Conversion struct {
	Session string       `json:"session"`
	State   string       `json:"state"`
	Budget  float64      `json:"rho_budget"`
	Charged float64      `json:"rho_charged"`
	Delta   float64      `json:"delta"`
	Counted dp.Guarantee `json:"counted"`
}

func (c Conversion) String() string {
	return fmt.Sprintf("%s: ρ=%.4g charged of ρ=%.4g, counted at δ=%.3g as %v (%s)", c.Session, c.Charged, c.Budget, c.Delta, c.Counted, c.State)
}

// rebase replaces, in spent, a session's old count by its new one.
// Updating spent in place keeps Spend from re-reading every entry; Verify
// recomputes the same total from the entries.
func rebase(spent, old, now dp.Guarantee) dp.Guarantee {
	return dp.Approx(spent.Epsilon-old.Epsilon+now.Epsilon, spent.Delta-old.Delta+now.Delta)
}

// checkSessionDelta checks the δ a session with budget is reserved at
// against dataset's lifetime budget: a zCDP session on an (ε, δ) lifetime
// needs one (the budget cannot be counted without it), and it is ignored
// otherwise (a ρ lifetime composes ρ, a pure or (ε, δ) session needs no
// conversion).
func checkSessionDelta(dataset, session string, lifetime, budget dp.Guarantee, delta float64) (float64, error) {
	if delta != 0 && !(delta > 0 && delta < 1) { // NaN included
		return 0, fmt.Errorf("budgetstore: session %q: δ %v must be in (0, 1)", session, delta)
	}
	if !converts(lifetime, budget) {
		return 0, nil
	}
	if delta == 0 {
		return 0, noDeltaError(dataset, session, lifetime, budget)
	}
	return delta, nil
}

func noDeltaError(dataset, session string, lifetime, g dp.Guarantee) error {
	return fmt.Errorf("budgetstore: dataset %q: session %q spends %v but has no δ at which to count it against the (ε, δ) lifetime budget %v: run the session with --epsilon and --delta (or --delta beside --rho)",
		dataset, session, g, lifetime)
}
