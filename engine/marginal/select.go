package marginal

import (
	"fmt"
	"math"
)

// Candidate is one attribute pair offered to Algorithm 2.
type Candidate struct {
	A, B  int     // attributes, A < B
	Cells int     // c_i: domain size of the pair's marginal
	Score float64 // Φ_i: its dependency error, the noisy score
	// Owner is the party whose pair set I_k holds the pair (see ownerOf).
	Owner int
}

// ownerOf assigns a pair to a party's I_k. The paper does not say which
// party owns a pair across two parties; its noise must meet the stricter
// budget, so the stricter party's error model accounts for it (ties go to
// the lower index).
func ownerOf(a, b int, owner []int, budgets []float64) int {
	x, y := owner[a], owner[b]
	if budgets[y] < budgets[x] || (budgets[y] == budgets[x] && y < x) {
		return y
	}
	return x
}

// selectOptions configure Algorithm 2.
type selectOptions struct {
	Candidates []Candidate
	// Budgets[k] is the budget party k's error model assumes for measuring
	// its selected pairs: ρ_3^k·(1 − μ)
	// (docs/errata.md#pdp-mvds-selection-budget).
	Budgets []float64
	// L2 is the L2 sensitivity of a marginal count vector: CountL2 (√2)
	// under replace-one. The paper's c·sqrt(1/(πρ)) is the case L2 = 1.
	L2 float64
}

// Selection is the outcome of Algorithm 2.
type Selection struct {
	// Chosen lists indices into Candidates in the order they were picked.
	Chosen []int
	// Errors[t] is E_t, the estimated total error after t picks (E_0 is
	// the sum of every dependency error).
	Errors []float64
}

// noiseError is the expected L1 error of Gaussian noise on marginals of
// the given cell counts when budget rho is split ∝ c^{2/3} (PrivSyn):
// each cell errs by σ_h√(2/π) with σ_h = L2/√(2ρ_h) and
// ρ_h = ρ·c_h^{2/3}/S, S = Σ c^{2/3}, so the total is
// √(2/π)·L2/√2 · Σ c_h/√ρ_h = L2·S^{3/2}/√(πρ). With L2 = 1 this is the
// paper's Σ c_h·sqrt(1/(π ε_h)).
func noiseError(cells []int, rho, l2 float64) float64 {
	s := 0.0
	for _, c := range cells {
		s += math.Pow(float64(c), 2.0/3)
	}
	return noiseErrorS(s, rho, l2)
}

func noiseErrorS(s, rho, l2 float64) float64 {
	if s == 0 {
		return 0
	}
	return l2 * math.Pow(s, 1.5) / math.Sqrt(math.Pi*rho)
}

// selectPairs runs Algorithm 2: starting from no pair, greedily add the
// pair that most lowers E = Σ_k [noise error of X_k under ρ^k +
// Σ_{i ∈ I_k \ X_k} Φ_i], and stop when no pair lowers it. Party k's
// candidates are its own I_k; the per-party terms the paper exchanges
// (Ψ_o, Φ_o) are the other parties' summands of E.
func selectPairs(o selectOptions) (Selection, error) {
	if err := o.validate(); err != nil {
		return Selection{}, err
	}
	K := len(o.Budgets)
	sumC := make([]float64, K)  // Σ c^{2/3} over X_k
	unsel := make([]float64, K) // Σ Φ over I_k \ X_k
	for _, c := range o.Candidates {
		unsel[c.Owner] += c.Score
	}
	partyErr := func(k int) float64 { return noiseErrorS(sumC[k], o.Budgets[k], o.L2) + unsel[k] }
	total := 0.0
	for k := range K {
		total += partyErr(k)
	}
	sel := Selection{Errors: []float64{total}}
	chosen := make([]bool, len(o.Candidates))
	weights := make([]float64, len(o.Candidates)) // c^{2/3}
	for i, c := range o.Candidates {
		weights[i] = math.Pow(float64(c.Cells), 2.0/3)
	}
	for {
		best, bestE := -1, total
		for i, c := range o.Candidates {
			if chosen[i] {
				continue
			}
			k := c.Owner
			e := total - partyErr(k) + noiseErrorS(sumC[k]+weights[i], o.Budgets[k], o.L2) + unsel[k] - c.Score
			if e < bestE {
				best, bestE = i, e
			}
		}
		if best < 0 {
			return sel, nil
		}
		c := o.Candidates[best]
		chosen[best] = true
		sumC[c.Owner] += weights[best]
		unsel[c.Owner] -= c.Score
		// Recompute rather than accumulate, to keep rounding from drifting.
		total = 0
		for k := range K {
			total += partyErr(k)
		}
		sel.Chosen = append(sel.Chosen, best)
		sel.Errors = append(sel.Errors, total)
	}
}

func (o selectOptions) validate() error {
	if len(o.Budgets) == 0 {
		return fmt.Errorf("marginal: select: no party budgets")
	}
	for k, b := range o.Budgets {
		if !(b > 0) || math.IsInf(b, 0) {
			return fmt.Errorf("marginal: select: budget of party %d is %v", k, b)
		}
	}
	if !(o.L2 > 0) || math.IsInf(o.L2, 0) {
		return fmt.Errorf("marginal: select: L2 sensitivity is %v", o.L2)
	}
	for i, c := range o.Candidates {
		if c.Owner < 0 || c.Owner >= len(o.Budgets) {
			return fmt.Errorf("marginal: select: candidate %d has owner %d of %d parties", i, c.Owner, len(o.Budgets))
		}
		if c.Cells < 1 || c.A >= c.B || math.IsNaN(c.Score) || math.IsInf(c.Score, 0) {
			return fmt.Errorf("marginal: select: bad candidate %d: %+v", i, c)
		}
	}
	return nil
}
