package marginal

import (
	"context"
	"fmt"
	"math"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/privacy"
)

// Choice says how one private selection is paid for: permute-and-flip at
// Epsilon over utilities of sensitivity Sensitivity, charged to Parties.
// Permute-and-flip is ε-DP (McKenna & Sheldon 2020), so each party's
// accountant records Pure(ε), which composes in zCDP as ε²/2 (Bun &
// Steinke 2016, Prop. 1.4). (The exponential mechanism would cost only
// ε²/8 by its bounded-range analysis, Cesar & Rogers 2021; no such bound is
// known for permute-and-flip, so it is charged the pure-DP conversion.)
type Choice struct {
	Purpose     string
	Parties     []int
	Epsilon     float64
	Sensitivity float64
}

// Rho is the zCDP cost of the choice, ε²/2.
func (c Choice) Rho() float64 { return c.Epsilon * c.Epsilon / 2 }

// Charge is the accountant entry of the choice.
func (c Choice) Charge() privacy.Charge {
	return privacy.Charge{Purpose: c.Purpose, Spec: dp.SelectionSpec(c.Sensitivity, c.Epsilon), Calibration: "sound"}
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
// utility's sensitivity is 2·max Weights (SelectSensitivity).
type SelectQuery struct {
	Candidates [][]int
	Estimates  [][]float64
	Weights    []float64
	Penalties  []float64
}

// SelectSensitivity is the utility sensitivity of q under replace-one.
func (q SelectQuery) SelectSensitivity() float64 {
	w := 0.0
	for _, x := range q.Weights {
		w = math.Max(w, x)
	}
	return 2 * w
}

func (q SelectQuery) validate() error {
	k := len(q.Candidates)
	if k == 0 || len(q.Estimates) != k || len(q.Weights) != k || len(q.Penalties) != k {
		return fmt.Errorf("marginal: select query with %d candidates, %d estimates, %d weights, %d penalties",
			k, len(q.Estimates), len(q.Weights), len(q.Penalties))
	}
	for i, w := range q.Weights {
		if !(w > 0) || math.IsInf(w, 0) {
			return fmt.Errorf("marginal: candidate %v has weight %v", q.Candidates[i], w)
		}
	}
	return nil
}

// Selector is a Measurer that can also make AIM's private selection over
// the records. LocalMeasurer is one; the multi-party protocol is not (the
// parties cannot compute the utilities without revealing their columns),
// so the adaptive engine runs for one owner only.
type Selector interface {
	Measurer
	Select(ctx context.Context, q SelectQuery, c Choice) (int, error)
}

var _ Selector = (*LocalMeasurer)(nil)

// Select computes every candidate's utility on the records, charges the
// choice and picks one by permute-and-flip (dp.PermuteAndFlip).
func (l *LocalMeasurer) Select(ctx context.Context, q SelectQuery, c Choice) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := q.validate(); err != nil {
		return 0, err
	}
	if c.Sensitivity < q.SelectSensitivity() {
		return 0, fmt.Errorf("marginal: choice %q states sensitivity %v below the query's %v", c.Purpose, c.Sensitivity, q.SelectSensitivity())
	}
	u := make([]float64, len(q.Candidates))
	for i, s := range q.Candidates {
		truth, err := l.count(s)
		if err != nil {
			return 0, err
		}
		if len(truth) != len(q.Estimates[i]) {
			return 0, fmt.Errorf("marginal: estimate of %v has %d cells, want %d", s, len(q.Estimates[i]), len(truth))
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
	i, err := dp.PermuteAndFlip(l.noiser.Source(), u, c.Sensitivity, c.Epsilon)
	if err != nil {
		return 0, fmt.Errorf("marginal: %w", err)
	}
	return i, nil
}

// count returns the true counts over attrs, cached: selection asks for
// the same candidates every round.
func (l *LocalMeasurer) count(attrs []int) ([]float64, error) {
	k := setKey(attrs)
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
