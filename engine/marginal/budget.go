package marginal

import (
	"fmt"
	"math"

	"github.com/dppub/dppub/dp"
)

// Split divides each party's ρ_k between the three stages of Algorithm 3.
type Split struct {
	OneWay    float64 // ρ_1^k: noisy one-way marginals (paper: 0.1)
	Scores    float64 // ρ_2^k: pair scores for selection (paper: 0.1)
	Marginals float64 // ρ_3^k: the selected marginals (paper: 0.8)
}

// PaperSplit is Algorithm 3's 0.1 / 0.1 / 0.8.
var PaperSplit = Split{OneWay: 0.1, Scores: 0.1, Marginals: 0.8}

// Validate checks that every share is positive and they sum to at most 1.
func (s Split) Validate() error {
	for _, v := range []float64{s.OneWay, s.Scores, s.Marginals} {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("marginal: budget split %+v has a non-positive share", s)
		}
	}
	if sum := s.OneWay + s.Scores + s.Marginals; sum > 1+1e-12 {
		return fmt.Errorf("marginal: budget split %+v sums to %v > 1", s, sum)
	}
	return nil
}

// allocate divides each party's budget among releases. Release r is charged
// to every party in parties[r] and gets ρ_r = λ·weights[r] for a rate λ that
// is as large as the strictest of its parties allows: progressive filling
// raises every unfixed release's rate together; when a party's remaining
// budget is exhausted, the releases touching it are fixed at the current
// rate. So Σ_{r ∋ k} ρ_r ≤ budgets[k] for every party, a release spanning
// parties satisfies the stricter budget
// (docs/errata.md#pdp-mvds-cross-party-pairs), and budget a strict party
// cannot use is left to the other releases of generous parties. With one
// party this is ρ_r ∝ weights[r] (PrivSyn's c^{2/3} allocation when weights
// are c^{2/3}).
func allocate(budgets []float64, parties [][]int, weights []float64) ([]float64, error) {
	if len(parties) != len(weights) {
		return nil, fmt.Errorf("marginal: allocate: %d releases but %d weights", len(parties), len(weights))
	}
	for k, b := range budgets {
		if !(b > 0) || math.IsInf(b, 0) {
			return nil, fmt.Errorf("marginal: allocate: budget of party %d is %v", k, b)
		}
	}
	for r, w := range weights {
		if !(w > 0) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("marginal: allocate: weight of release %d is %v", r, w)
		}
		if len(parties[r]) == 0 {
			return nil, fmt.Errorf("marginal: allocate: release %d charges no party", r)
		}
		for _, k := range parties[r] {
			if k < 0 || k >= len(budgets) {
				return nil, fmt.Errorf("marginal: allocate: release %d names party %d of %d", r, k, len(budgets))
			}
		}
	}
	rho := make([]float64, len(weights))
	fixed := make([]bool, len(weights))
	remaining := append([]float64(nil), budgets...)
	for left := len(weights); left > 0; {
		// The binding party is the one with the least remaining budget per
		// unit of weight of its unfixed releases.
		load := make([]float64, len(budgets))
		for r, w := range weights {
			if !fixed[r] {
				for _, k := range parties[r] {
					load[k] += w
				}
			}
		}
		bind, rate := -1, math.Inf(1)
		for k, l := range load {
			if l > 0 && remaining[k]/l < rate {
				bind, rate = k, remaining[k]/l
			}
		}
		// Scale down by a hair so that the sum stays inside every budget
		// despite rounding.
		rate *= 1 - 1e-12
		for r, w := range weights {
			if fixed[r] || !contains(parties[r], bind) {
				continue
			}
			rho[r], fixed[r] = rate*w, true
			left--
			for _, k := range parties[r] {
				remaining[k] -= rho[r]
			}
		}
	}
	return rho, nil
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// RhoFor returns the largest ρ whose zCDP guarantee implies (ε, δ)-DP
// (dp.ZCDPRho), the budget the engine spends when given (ε, δ).
func RhoFor(eps, delta float64) (float64, error) { return dp.ZCDPRho(eps, delta) }
