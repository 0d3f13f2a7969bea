package measurement

import (
	"context"
	"fmt"
	"math"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/internal/attrset"
	"github.com/dppub/dppub/privacy"
)

// SelectMechanism names the private selection mechanism of the adaptive rounds.
type SelectMechanism string

const (
	// SelectExponential is the exponential mechanism (dp.Exponential),
	// charged ε²/8 in zCDP by its bounded range, as AIM charges it.
	SelectExponential SelectMechanism = "exponential"
	// SelectPermuteAndFlip is permute-and-flip (dp.PermuteAndFlip): at
	// the same ε never worse than the exponential mechanism, but only known
	// to be ε-DP, so charged ε²/2: at the same ρ its ε is half as large.
	SelectPermuteAndFlip SelectMechanism = "permute-and-flip"
)

// selections are the words a SelectMechanism may be.
var selections = dp.NewWords("selection mechanism", SelectExponential, SelectPermuteAndFlip)

// parseSelectMechanism checks a selection mechanism's name.
func parseSelectMechanism(v string) (SelectMechanism, error) {
	return selections.Parse(v)
}

// Describe says what one selection by s at ε guarantees and how it is
// charged, for a report.
func (s SelectMechanism) Describe() string {
	if s == SelectPermuteAndFlip {
		return "permute-and-flip at ε (ε-DP, charged ε²/2 in zCDP; the exponential mechanism's ε²/8 bounded-range bound is not known to hold for permute-and-flip)"
	}
	return "the exponential mechanism at ε (ε-bounded range, charged ε²/8 in zCDP as AIM charges it: Cesar & Rogers 2021)"
}

// Epsilon is the ε that costs rho in zCDP with mechanism s.
func (s SelectMechanism) Epsilon(rho float64) float64 {
	if s == SelectPermuteAndFlip {
		return math.Sqrt(2 * rho)
	}
	return math.Sqrt(8 * rho)
}

// Choice says how one private selection is paid for: Mechanism (default
// the exponential mechanism) at Epsilon over utilities of sensitivity
// Sensitivity, charged to Parties. The exponential mechanism is
// ε-bounded-range, so its accountants record ε²/8-zCDP (Cesar & Rogers
// 2021); permute-and-flip is ε-DP (McKenna & Sheldon 2020) with no
// bounded-range bound known, so it is recorded as Pure(ε), which composes
// in zCDP as ε²/2 (Bun & Steinke 2016, Prop. 1.4).
type Choice struct {
	Purpose     string
	Parties     []int
	Mechanism   SelectMechanism
	Epsilon     float64
	Sensitivity float64
}

// Rho is the zCDP cost of the choice: ε²/8 for the exponential mechanism,
// ε²/2 for permute-and-flip.
func (c Choice) Rho() float64 {
	if c.Mechanism == SelectPermuteAndFlip {
		return c.Epsilon * c.Epsilon / 2
	}
	return c.Epsilon * c.Epsilon / 8
}

// Charge is the accountant entry of the choice.
func (c Choice) Charge() privacy.Charge {
	spec := dp.ExponentialSpec(c.Sensitivity, c.Epsilon)
	if c.Mechanism == SelectPermuteAndFlip {
		spec = dp.SelectionSpec(c.Sensitivity, c.Epsilon)
	}
	return privacy.Charge{Purpose: c.Purpose, Spec: spec, Calibration: "sound"}
}

// SelectQuery asks which candidate attribute set the current model
// estimates worst. The utility of candidate i is
//
//	Weights[i]·(‖M_i(D) − Estimates[i]‖₁ − Penalties[i])
//
// with M_i(D) the true counts over Candidates[i] (AIM's quality score,
// McKenna et al., VLDB 2022, Alg. 2). Estimates, Weights and Penalties are
// public (post-processing of earlier releases). Under replace-one,
// ‖M_i(D) − e‖₁ moves by at most 2 (one count down, one up), so the
// utility's sensitivity is 2·max Weights (SelectSensitivity). Under
// add/remove the estimates are fitted to the released noisy count, public
// too, and ‖M_i(D) − e‖₁ moves by at most 1 (one count up or down): the
// sensitivity is max Weights (Sensitivity).
type SelectQuery struct {
	Candidates [][]int
	Estimates  [][]float64
	Weights    []float64
	Penalties  []float64
	// MaxScores, when not nil, bounds each candidate's score
	// ‖M_i(D) − Estimates[i]‖₁ from public quantities (the model's
	// one-way marginals), for a selector that can score only some
	// candidates and keeps those of largest possible utility.
	MaxScores []float64
}

// SelectSensitivity is the utility sensitivity of q under replace-one.
func (q SelectQuery) SelectSensitivity() float64 { return q.Sensitivity(dp.NeighboursReplaceOne) }

// Sensitivity is the utility sensitivity of q under nb: a count vector's
// L1 sensitivity under nb (CountSensitivity) times the largest weight.
func (q SelectQuery) Sensitivity(nb dp.Neighbours) float64 {
	w := 0.0
	for _, x := range q.Weights {
		w = math.Max(w, x)
	}
	l1, _ := CountSensitivity(nb)
	return l1 * w
}

// Validate reports a query whose slices do not match its candidates or
// that has a weight that is not positive and finite.
func (q SelectQuery) Validate() error {
	k := len(q.Candidates)
	if k == 0 || len(q.Estimates) != k || len(q.Weights) != k || len(q.Penalties) != k {
		return fmt.Errorf("measurement: select query with %d candidates, %d estimates, %d weights, %d penalties",
			k, len(q.Estimates), len(q.Weights), len(q.Penalties))
	}
	if q.MaxScores != nil && len(q.MaxScores) != k {
		return fmt.Errorf("measurement: select query with %d candidates, %d score bounds", k, len(q.MaxScores))
	}
	for i, w := range q.Weights {
		if !(w > 0) || math.IsInf(w, 0) {
			return fmt.Errorf("measurement: candidate %v has weight %v", q.Candidates[i], w)
		}
	}
	return nil
}

// Selector is a Measurer that can also make AIM's private selection over
// the records. LocalMeasurer (one owner) and the owners of rows' protocol
// (method/rowsynth/roles) are; the parties of columns' protocol is not
// (the parties cannot compute the utilities without revealing their
// columns), so the adaptive engine does not run for parties of columns.
type Selector interface {
	Measurer
	Select(ctx context.Context, q SelectQuery, c Choice) (int, error)
}

var _ Selector = (*LocalMeasurer)(nil)

// UtilityReleaser is a Selector whose selections release every scored
// candidate's noisy utility anyway (owners of rows: the coordinator
// learns each candidate's noisy summed score, method/rowsynth/roles), so
// it can also release all of them at once. The adaptive method's opening
// tree scores every pair against the one-way model, which does not change
// while the tree is built: one release of every pair's utility at the
// tree's whole selection budget, then the spanning tree of the noisy
// utilities (post-processing), sees every pair at about the noise one
// round's few candidates had (treeRounds). LocalMeasurer is not one: its
// exponential mechanism releases only the winner.
type UtilityReleaser interface {
	Selector
	// Pools reports whether one release of c candidates' utilities at
	// rho, the selection budget of rounds rounds together, is what the
	// measurer advises over a selection per round (public quantities
	// only).
	Pools(c, rounds int, rho float64) bool
	// Utilities releases each candidate's utility w·(score − penalty),
	// the score as Select's, plus Gaussian noise, at zCDP cost rho under
	// the measurer's relation (charged, by whoever holds the records,
	// before anything is released), and returns the noisy utilities in
	// q's order.
	Utilities(ctx context.Context, q SelectQuery, purpose string, rho float64) ([]float64, error)
}

// Select computes every candidate's utility on the records, charges the
// choice and picks one with the choice's mechanism.
func (l *LocalMeasurer) Select(ctx context.Context, q SelectQuery, c Choice) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := q.Validate(); err != nil {
		return 0, err
	}
	if need := q.Sensitivity(l.neighbours); c.Sensitivity < need {
		return 0, fmt.Errorf("measurement: choice %q states sensitivity %v below the query's %v under %s", c.Purpose, c.Sensitivity, need, l.neighbours.Or().Describe())
	}
	u := make([]float64, len(q.Candidates))
	for i, s := range q.Candidates {
		truth, err := l.count(s)
		if err != nil {
			return 0, err
		}
		if len(truth) != len(q.Estimates[i]) {
			return 0, fmt.Errorf("measurement: estimate of %v has %d cells, want %d", s, len(q.Estimates[i]), len(truth))
		}
		e := 0.0
		for x, v := range truth {
			e += math.Abs(v - q.Estimates[i][x])
		}
		u[i] = q.Weights[i] * (e - q.Penalties[i])
	}
	if err := l.chargeSpec(c.Purpose, c.Parties, c.Charge()); err != nil {
		return 0, err
	}
	pick := dp.Exponential
	if c.Mechanism == SelectPermuteAndFlip {
		pick = dp.PermuteAndFlip
	}
	// The selection draws from a child stream: how many draws a sampler
	// takes depends on the utilities, and on the parent that would shift
	// every later release's noise with the data. The parent advances by
	// one draw whatever the data, so a seeded run on neighbouring tables
	// draws the same noise for the same later releases, which is what the
	// replay audit compares.
	i, err := pick(l.noiser.Source().Child(), u, c.Sensitivity, c.Epsilon)
	if err != nil {
		return 0, fmt.Errorf("measurement: %w", err)
	}
	return i, nil
}

// count returns the true counts over attrs, cached: selection asks for
// the same candidates every round.
func (l *LocalMeasurer) count(attrs []int) ([]float64, error) {
	k := attrset.Key(attrs)
	if c, ok := l.cache[k]; ok {
		return c, nil
	}
	m, err := l.data.Count(attrs)
	if err != nil {
		return nil, err
	}
	if l.cache == nil {
		l.cache = map[string][]float64{}
	}
	l.cache[k] = m.Counts
	return m.Counts, nil
}

// String returns the word as flags and JSON spell it.
func (s SelectMechanism) String() string { return string(s) }
