package audits

import (
	"fmt"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/dp"
	privbayes "github.com/dppub/dppub/method/privbayes/bayesnet"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// The audits of this file run PrivBayes' real code: its noisy marginals
// and GreedyBayes structure learning (method/privbayes/bayesnet). BayesPair
// and Spender serve DP-SUBN3's audit too (method/dpsubn3/audits).

// addMechanisms adds PrivBayes' audits.
func addMechanisms(fam *audit.Family) {
	fam.AddSound("privbayes-marginals", "PrivBayes' noisy count marginals of two families (Laplace 2m/ε, ε = 1)",
		20_000, 500_000, 1, PrivBayesMarginals)
	fam.AddSound("privbayes-structure", "PrivBayes' GreedyBayes structure (exponential mechanism, R score, k = 1, ε1 = 10) on 6 records",
		20_000, 500_000, 10, PrivBayesStructure)
}

// BayesPair is D: the records rows over binary attributes (as many as a
// row has values), and D' with record 0 replaced by swap.
func BayesPair(rows [][]int, swap []int) ([2]*privbayes.Data, error) {
	var out [2]*privbayes.Data
	cards := make([]int, len(swap))
	for j := range cards {
		cards[j] = 2
	}
	for side := range 2 {
		rs := make([][]int, len(rows))
		copy(rs, rows)
		if side == int(audit.DPrime) {
			rs[0] = swap
		}
		d, err := privbayes.NewData(cards, rs)
		if err != nil {
			return out, fmt.Errorf("audit: %w", err)
		}
		out[side] = d
	}
	return out, nil
}

// Spender is an owner's accountant with budget ε-DP.
func Spender(eps float64) *privacy.Accountant {
	a, err := privacy.NewAccountant(privacy.AccountantOptions{Party: "owner", Budget: dp.Pure(eps)})
	if err != nil {
		panic(err) // eps is validated by the callers' mechanisms
	}
	return a
}

// PrivBayesMarginals audits privbayes.NoisyMarginals: m = 2 families
// {0,1} and {1,2} over three binary attributes, Laplace of scale 2m/ε on
// every cell (Dwork et al. 2006). D' replaces the record (0,0,0) by
// (1,1,1): each table moves by 2 in L1, 2m in all, the full sensitivity.
// The statistic is the Laplace LLR over the eight cells.
func PrivBayesMarginals(eps float64) (audit.Mechanism, error) {
	rows := [][]int{{0, 0, 0}, {0, 1, 1}, {1, 0, 1}, {1, 1, 0}, {0, 0, 1}, {1, 1, 1}}
	pair, err := BayesPair(rows, []int{1, 1, 1})
	if err != nil {
		return audit.Mechanism{}, err
	}
	sets := [][]int{{0, 1}, {1, 2}}
	flat := func(d *privbayes.Data) []float64 {
		var out []float64
		for _, s := range sets {
			out = append(out, d.Marginal(s).Counts...)
		}
		return out
	}
	fD, fD2 := flat(pair[audit.D]), flat(pair[audit.DPrime])
	scale := make([]float64, len(fD))
	for i := range scale {
		scale[i] = 2 * float64(len(sets)) / eps
	}
	return audit.Mechanism{
		Name:      fmt.Sprintf("privbayes noisy marginals (2 families, ε=%g)", eps),
		Claim:     dp.Pure(eps),
		Pair:      "6 records over three binary attributes; D' replaces (0,0,0) by (1,1,1)",
		Dim:       len(fD),
		Statistic: audit.LaplaceLLR(fD, fD2, scale),
		Truth:     audit.SideTruth(fD, fD2), // counts: integers, on the grid by nature
		Release: func(side audit.Side, src *randx.Source, out []float64) error {
			ms, err := privbayes.NoisyMarginals(pair[side], sets, eps, Spender(eps), src)
			if err != nil {
				return err
			}
			out = out[:0]
			for _, m := range ms {
				out = append(out, m.Counts...)
			}
			return nil
		},
	}, nil
}

// PrivBayesStructure audits privbayes.LearnStructure (GreedyBayes: d−1
// exponential-mechanism choices at ε1/(d−1) over the R score, sensitivity
// 3/n) with k = 1 and the root fixed at attribute 0 over three binary
// attributes: four networks are possible, released as the code
// 10·(first child) + (parent of the last child). D' replaces a record of
// the strongly correlated pair (0, 1) by one that breaks it.
func PrivBayesStructure(eps float64) (audit.Mechanism, error) {
	rows := [][]int{{0, 0, 1}, {0, 0, 0}, {1, 1, 0}, {1, 1, 1}, {0, 0, 1}, {1, 1, 0}}
	pair, err := BayesPair(rows, []int{0, 1, 0})
	if err != nil {
		return audit.Mechanism{}, err
	}
	so := privbayes.StructureOptions{Score: privbayes.R, K: 1, Epsilon: eps, FixRoot: true, Root: 0}
	return audit.Mechanism{
		Name:  fmt.Sprintf("privbayes structure (GreedyBayes, R score, k=1, ε1=%g)", eps),
		Claim: dp.Pure(eps),
		Pair:  "6 records over three binary attributes, (0,1) perfectly correlated; D' breaks one record's correlation",
		Dim:   1,
		Release: func(side audit.Side, src *randx.Source, out []float64) error {
			net, err := privbayes.LearnStructure(pair[side], so, Spender(eps), src)
			if err != nil {
				return err
			}
			if len(net) != 3 || len(net[1].Parents) != 1 || len(net[2].Parents) != 1 {
				return fmt.Errorf("audit: unexpected network %v", net)
			}
			out[0] = float64(10*net[1].Child + net[2].Parents[0])
			return nil
		},
	}, nil
}
