package audit

import (
	"fmt"
	dpsubn3spec "github.com/dppub/dppub/method/dpsubn3"

	"github.com/dppub/dppub/dp"
	dpsubn3 "github.com/dppub/dppub/method/dpsubn3/subn3"
	privbayes "github.com/dppub/dppub/method/privbayes/bayesnet"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// The audits of this file run the baselines' real code: PrivBayes'
// noisy marginals and GreedyBayes structure learning (method/privbayes/bayesnet), and
// one DP-SUBN3 party's update with a prior (method/dpsubn3/subn3).

func init() {
	register(Method{Name: "privbayes-marginals", Summary: "PrivBayes' noisy count marginals of two families (Laplace 2m/ε, ε = 1)",
		Calibrations: []string{"sound"}, FastRuns: 20_000, LongRuns: 500_000,
		build: func(o MethodOptions) (Mechanism, error) { return PrivBayesMarginals(or(o.Epsilon, 1)) }},
		Case{Method: "privbayes-marginals", Expect: Pass})
	register(Method{Name: "privbayes-structure", Summary: "PrivBayes' GreedyBayes structure (exponential mechanism, R score, k = 1, ε1 = 10) on 6 records",
		Calibrations: []string{"sound"}, FastRuns: 20_000, LongRuns: 500_000,
		build: func(o MethodOptions) (Mechanism, error) { return PrivBayesStructure(or(o.Epsilon, 10)) }},
		Case{Method: "privbayes-structure", Expect: Pass})
	register(Method{Name: dpsubn3spec.Name, Summary: "one DP-SUBN3 party's update with a prior (sample, merge, PrivBayes on the merge; ε = 1)",
		Calibrations: []string{"sound"}, FastRuns: 10_000, LongRuns: 200_000,
		build: func(o MethodOptions) (Mechanism, error) { return DPSUBN3Update(or(o.Epsilon, 1)) }},
		Case{Method: dpsubn3spec.Name, Expect: Pass})
}

// bayesPair is D: n records over binary attributes, and D' with record 0
// replaced by swap.
func bayesPair(cards []int, rows [][]int, swap []int) ([2]*privbayes.Data, error) {
	var out [2]*privbayes.Data
	for side := range 2 {
		rs := make([][]int, len(rows))
		copy(rs, rows)
		if side == int(DPrime) {
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

func spender(eps float64) *privacy.Accountant {
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
func PrivBayesMarginals(eps float64) (Mechanism, error) {
	cards := []int{2, 2, 2}
	rows := [][]int{{0, 0, 0}, {0, 1, 1}, {1, 0, 1}, {1, 1, 0}, {0, 0, 1}, {1, 1, 1}}
	pair, err := bayesPair(cards, rows, []int{1, 1, 1})
	if err != nil {
		return Mechanism{}, err
	}
	sets := [][]int{{0, 1}, {1, 2}}
	flat := func(d *privbayes.Data) []float64 {
		var out []float64
		for _, s := range sets {
			out = append(out, d.Marginal(s).Counts...)
		}
		return out
	}
	fD, fD2 := flat(pair[D]), flat(pair[DPrime])
	scale := make([]float64, len(fD))
	for i := range scale {
		scale[i] = 2 * float64(len(sets)) / eps
	}
	return Mechanism{
		Name:      fmt.Sprintf("privbayes noisy marginals (2 families, ε=%g)", eps),
		Claim:     dp.Pure(eps),
		Pair:      "6 records over three binary attributes; D' replaces (0,0,0) by (1,1,1)",
		Dim:       len(fD),
		Statistic: LaplaceLLR(fD, fD2, scale),
		Truth:     sideTruth(fD, fD2), // counts: integers, on the grid by nature
		Release: func(side Side, src *randx.Source, out []float64) error {
			ms, err := privbayes.NoisyMarginals(pair[side], sets, eps, spender(eps), src)
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
func PrivBayesStructure(eps float64) (Mechanism, error) {
	cards := []int{2, 2, 2}
	rows := [][]int{{0, 0, 1}, {0, 0, 0}, {1, 1, 0}, {1, 1, 1}, {0, 0, 1}, {1, 1, 0}}
	pair, err := bayesPair(cards, rows, []int{0, 1, 0})
	if err != nil {
		return Mechanism{}, err
	}
	so := privbayes.StructureOptions{Score: privbayes.R, K: 1, Epsilon: eps, FixRoot: true, Root: 0}
	return Mechanism{
		Name:  fmt.Sprintf("privbayes structure (GreedyBayes, R score, k=1, ε1=%g)", eps),
		Claim: dp.Pure(eps),
		Pair:  "6 records over three binary attributes, (0,1) perfectly correlated; D' breaks one record's correlation",
		Dim:   1,
		Release: func(side Side, src *randx.Source, out []float64) error {
			net, err := privbayes.LearnStructure(pair[side], so, spender(eps), src)
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

// DPSUBN3Update audits one DP-SUBN3 party's turn (dpsubn3.Update) with a
// prior standing for 6 records: it samples the prior, merges the sample
// with its own records, and runs PrivBayes on the merge at its own ε
// (k = 1, root fixed, two binary attributes, so the network is fixed and
// the release is the conditional P(x1 = 1 | x0 = 0), post-processing of
// Laplace-noised counts). The party's records: 8, D' replaces (0,0) by
// (0,1). Claimed: ε-DP for the party's records; the prior is public.
func DPSUBN3Update(eps float64) (Mechanism, error) {
	cards := []int{2, 2}
	rows := [][]int{{0, 0}, {0, 0}, {0, 0}, {0, 1}, {1, 1}, {1, 1}, {1, 0}, {1, 1}}
	pair, err := bayesPair(cards, rows, []int{0, 1})
	if err != nil {
		return Mechanism{}, err
	}
	o := dpsubn3.Options{PrivBayes: privbayes.Options{Epsilon: eps, K: 1, FixRoot: true, Root: 0}}
	if err := o.Validate(); err != nil {
		return Mechanism{}, fmt.Errorf("audit: %w", err)
	}
	prior := &dpsubn3.Prior{N: 6, Model: &privbayes.Model{Cards: cards,
		Net:  privbayes.Network{{Child: 0}, {Child: 1, Parents: []int{0}}},
		Cond: [][]float64{{0.5, 0.5}, {0.7, 0.3, 0.3, 0.7}}}}
	if err := prior.Model.Validate(); err != nil {
		return Mechanism{}, fmt.Errorf("audit: %w", err)
	}
	return Mechanism{
		Name:  fmt.Sprintf("dp-subn3 party update with a prior of 6 records (k=1, ε=%g)", eps),
		Claim: dp.Pure(eps),
		Pair:  "8 records over two binary attributes; D' replaces (0,0) by (0,1)",
		Dim:   1,
		Release: func(side Side, src *randx.Source, out []float64) error {
			m, err := dpsubn3.Update(prior, pair[side], o, spender(eps), src)
			if err != nil {
				return err
			}
			for i, f := range m.Net {
				if f.Child == 1 {
					out[0] = m.Cond[i][1] // P(x1 = 1 | x0 = 0)
					return nil
				}
			}
			return fmt.Errorf("audit: the network has no family for attribute 1: %v", m.Net)
		},
	}, nil
}
