package schemadisc

import (
	"fmt"
	"math"

	"github.com/dppub/dppub/dp"
)

// visibleShare is the share of rows a category must hold to be kept
// with overwhelming probability (missVisible) when the budget allows it:
// a class a person would see in a bar chart of the column.
const visibleShare = 0.05

// missVisible is the chance of dropping a category that holds
// visibleShare of the rows, which the categorical budget is sized for.
const missVisible = 1e-6

// usableShare is the most rows, as a share of the table, that one bin
// of the coarsest (decade) grid may need to hold to be found reliably
// (keep threshold plus three noise deviations) for numeric bounds to be
// worth their budget; a category must likewise be found when it holds
// half the rows.
const usableShare = 0.25

// plan is the division of the budget between columns, decided from public
// facts only (the row count n, ε, δ and the number of columns of each
// kind) before anything is spent.
//
// Every released count carries discrete Gaussian noise, so the columns
// compose in zero-concentrated DP (ρ adds up) rather than in ε, which on
// tables of tens of columns gives each column several times less noise
// than splitting ε. Partition selection also has a δ of its own (a value
// held by one record passes the threshold with probability at most
// δ_sel): the whole discovery is δ_sel-approximately ρ-zCDP (Bun &
// Steinke 2016, Def. 8.1: off an event of probability δ_sel, independent
// of the counts, the output is a function of Gaussian counts over
// values present in both neighbours), and so (ε_ρ + ln(1/(1−δ_sel)),
// δ_ρ + δ_sel)-DP with ε_ρ the conversion of ρ at δ_ρ (dp.ZCDPEpsilon).
type plan struct {
	n int
	// rho is the zCDP budget of all Gaussian counts together.
	rho float64
	// rhoNumeric and rhoCategory are each column's share of rho; zero
	// when that kind of column spends nothing.
	rhoNumeric, rhoCategory float64
	// deltaSelect is each categorical column's selection δ.
	deltaSelect float64
	// perDecade is the numeric grid's resolution (12, 3 or 1 steps).
	perDecade int
	// numericWhy and categoryWhy say why a kind spends nothing.
	numericWhy, categoryWhy string
	// guarantee is what the whole discovery spends.
	guarantee dp.Guarantee
}

// rhoShare of the conversion: ε_ρ is found for δ_ρ = δ − δ_sel.
func newPlan(n, numeric, open int, eps, delta float64) (plan, error) {
	p := plan{n: n}
	deltaSel := 0.0
	if open > 0 {
		deltaSel = delta / 2
	}
	// ln(1/(1−δ_sel)) ≤ 2δ_sel for δ_sel ≤ 1/2: kept out of the ε that
	// the Gaussian counts may use.
	rho, err := dp.ZCDPRho(eps-2*deltaSel, delta-deltaSel)
	if err != nil {
		return p, fmt.Errorf("schemadisc: budget (ε = %v, δ = %v): %w", eps, delta, err)
	}
	p.rho = rho
	catShare := 0.0
	if open > 0 {
		p.deltaSelect = deltaSel / float64(open)
		// At least an equal share per column, more if a visible class
		// needs it, but never more than half when numeric columns wait.
		each := math.Max(categoryRhoNeeded(n, p.deltaSelect), rho/float64(numeric+open))
		catShare = math.Min(float64(open)*each, rho/2)
		if numeric == 0 {
			catShare = math.Min(float64(open)*math.Max(categoryRhoNeeded(n, p.deltaSelect), rho/float64(open)), rho)
		}
	}
	if numeric > 0 {
		p.rhoNumeric = (rho - catShare) / float64(numeric)
		if !numericUsable(n, p.rhoNumeric) {
			p.numericWhy = p.numericUnusable()
			p.rhoNumeric = 0
			if open > 0 { // what a visible class needs, and no more
				catShare = math.Min(float64(open)*categoryRhoNeeded(n, p.deltaSelect), rho)
			}
		}
	}
	if open > 0 {
		p.rhoCategory = catShare / float64(open)
		if !categoryUsable(n, p.rhoCategory, p.deltaSelect) {
			p.categoryWhy = fmt.Sprintf("at ε = %.3g on %d rows a value would need over half the rows to be kept", eps, n)
			p.rhoCategory = 0
			if numeric > 0 && p.numericWhy == "" {
				p.rhoNumeric = rho / float64(numeric)
			}
		}
	}
	p.perDecade = gridResolution(n, p.rhoNumeric)
	p.guarantee = p.spent(numeric, open, delta, deltaSel)
	return p, nil
}

// spent is the guarantee of what the plan will release: ρ of the
// columns that spend, converted at δ_ρ, plus the selection δ.
func (p plan) spent(numeric, open int, delta, deltaSel float64) dp.Guarantee {
	used := float64(numeric)*p.rhoNumeric + float64(open)*p.rhoCategory
	if used == 0 {
		return dp.Guarantee{}
	}
	if p.rhoCategory == 0 {
		deltaSel = 0
	}
	dRho := delta - deltaSel
	return dp.Approx(dp.ZCDPEpsilon(used, dRho)-math.Log1p(-deltaSel), dRho+deltaSel)
}

// categoryRhoNeeded is the ρ with which a value holding visibleShare of
// n rows passes the selection threshold except with probability
// missVisible: σ·(√(2 ln(1/δ_sel)) + z) ≤ visibleShare·n − 1, z the
// normal quantile of missVisible (4.75).
func categoryRhoNeeded(n int, deltaSel float64) float64 {
	sigma := (visibleShare*float64(n) - 1) / (math.Sqrt(2*math.Log(1/deltaSel)) + 4.75)
	if sigma <= 0 {
		return math.Inf(1)
	}
	return 1 / (sigma * sigma) // ρ = Δ₂²/(2σ²), Δ₂ = √2
}

// categoryUsable: a value holding half the rows is kept.
func categoryUsable(n int, rho, deltaSel float64) bool {
	if rho <= 0 {
		return false
	}
	sigma := 1 / math.Sqrt(rho)
	return 1+sigma*(math.Sqrt(2*math.Log(1/deltaSel))+4.75) <= 0.5*float64(n)
}

// numericSigma is the noise of each count of a column's histogram at ρ:
// a replaced record moves one count down and one up (L2 sensitivity √2).
func numericSigma(rho float64) float64 { return 1 / math.Sqrt(rho) }

// detectRows is the rows one bin of a grid with perDecade steps must
// hold to pass its keep threshold except with probability about 10⁻³.
func detectRows(rho float64, perDecade int) float64 {
	s := numericSigma(rho)
	return keepThreshold(s, histogramBins(perDecade)) + 3*s
}

// numericUsable: on the decade grid, a bin holding usableShare of the
// rows is found.
func numericUsable(n int, rho float64) bool {
	return rho > 0 && detectRows(rho, 1) <= usableShare*float64(n)
}

func (p plan) numericUnusable() string {
	return fmt.Sprintf("on %d rows this budget finds a bound only where one decade of values holds over %.0f%% of the rows, so no budget was spent on bounds",
		p.n, 100*usableShare)
}

// gridResolution picks the finest grid whose bins, holding a share of
// the rows proportional to their width, are still found: 12 steps a
// decade when a bin of 1% of the rows is, 3 when one of 4% is, else 1.
func gridResolution(n int, rho float64) int {
	switch {
	case rho <= 0:
		return 1
	case detectRows(rho, 12) <= 0.01*float64(n):
		return 12
	case detectRows(rho, 3) <= 0.04*float64(n):
		return 3
	}
	return 1
}

// summary says in a line how the budget was divided, for the terminal.
func (p plan) summary() string {
	switch {
	case p.guarantee.IsZero():
		return fmt.Sprintf("nothing spent: on %d rows this budget cannot give usable bounds or category lists; fill them by hand", p.n)
	case p.numericWhy != "":
		return "numeric columns: " + p.numericWhy + "; the budget went to the category lists"
	case p.rhoNumeric > 0:
		return fmt.Sprintf("numeric columns: noise σ = %.0f rows per count in the first round, then the rest of the budget measures again the columns whose values beyond exact zeros are few (σ = %.0f rows if all were); a bin is found from %.0f rows (%.1f%% of the table), grid of %d steps a decade",
			numericSigma(firstShare*p.rhoNumeric), numericSigma(p.rhoNumeric), detectRows(p.rhoNumeric, p.perDecade), 100*detectRows(p.rhoNumeric, p.perDecade)/float64(p.n), p.perDecade)
	}
	return "the budget went to the category lists"
}
