package gate

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Measurement is the gate's false refusal rate measured on one built-in
// dataset: Refusals of Runs of `dppub synthesize --dataset D --gate` (the
// default method at the default budget, ρ = 1, the gate at its
// defaults), each run on fresh randomness. The tables come from a DP
// generator, so every refusal is a false one.
type Measurement struct {
	Dataset        string
	Runs, Refusals int
}

// Upper is the one-sided Clopper–Pearson upper bound on the refusal
// probability at confidence conf: the p at which Refusals or fewer in Runs
// has probability 1 − conf.
func (m Measurement) Upper(conf float64) float64 {
	if m.Refusals >= m.Runs {
		return 1
	}
	return distuv.Beta{Alpha: float64(m.Refusals + 1), Beta: float64(m.Runs - m.Refusals)}.Quantile(conf)
}

// Measured are the false refusal rates of the default gate on every
// built-in dataset (docs/privacy-design.md, "The release gate", has the
// command).
var Measured = []Measurement{
	{"adult", 12, 0},
	{"nltcs", 24, 0},
	{"wdbc", 125, 0},
}

// RefusalConfidence is the confidence of the bound RefusalBound states.
const RefusalConfidence = 0.95

// DefaultSettings reports whether a gate's settings are those the
// measurements were made at, or refuse no more often: a threshold at or
// above the default (a refusal needs an interval's lower end above it),
// the default number of queries, and the held-out rows a share of 0.2 of
// the owner's rows or a file.
func DefaultSettings(maxAdvantage float64, queries int, holdoutShare float64, holdoutFile bool) bool {
	return maxAdvantage >= 0.1 && queries == 1000 && (holdoutFile || holdoutShare == 0.2)
}

// RefusalBound is the bound on the probability that the gate refuses a
// release of owners' rows checked one owner at a time (any refusal
// stops the release: by the union bound owners × one owner's), and where
// it comes from: the largest upper bound of Measured at the defaults, 1
// (no bound) at other settings. It is a measurement on the built-in
// datasets, not a proof for the owner's data.
func RefusalBound(defaults bool, owners int) (float64, string) {
	if !defaults {
		return 1, "no refusal rate was measured at these gate settings"
	}
	worst, words := 0.0, ""
	for i, m := range Measured {
		u := m.Upper(RefusalConfidence)
		worst = math.Max(worst, u)
		if i > 0 {
			words += ", "
		}
		words += fmt.Sprintf("%s %d of %d runs (≤ %.3g)", m.Dataset, m.Refusals, m.Runs, u)
	}
	p := math.Min(1, float64(max(owners, 1))*worst)
	src := fmt.Sprintf("the default gate's false refusal rate measured on the built-in datasets, refusals of runs with the %g%% upper bound: %s; ", 100*RefusalConfidence, words)
	if owners > 1 {
		src += fmt.Sprintf("%d owners checked one by one: %d × %.3g; ", owners, owners, worst)
	}
	return p, src + "a measurement, not a proof for this data"
}
