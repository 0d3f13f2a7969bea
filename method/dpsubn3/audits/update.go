package audits

import (
	"fmt"

	dpsubn3 "github.com/dppub/dppub/method/dpsubn3/subn3"
	privbayes "github.com/dppub/dppub/method/privbayes/bayesnet"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/dp"
	dpsubn3spec "github.com/dppub/dppub/method/dpsubn3"
	pbaudits "github.com/dppub/dppub/method/privbayes/audits"
	"github.com/dppub/dppub/randx"
)

// addUpdate adds the audit of one party's update.
func addUpdate(fam *audit.Family) {
	fam.AddSound(dpsubn3spec.Name, "one DP-SUBN3 party's update with a prior (sample, merge, PrivBayes on the merge; ε = 1)",
		10_000, 200_000, 1, DPSUBN3Update)
}

// DPSUBN3Update audits one DP-SUBN3 party's turn (dpsubn3.Update) with a
// prior standing for 6 records: it samples the prior, merges the sample
// with its own records, and runs PrivBayes on the merge at its own ε
// (k = 1, root fixed, two binary attributes, so the network is fixed and
// the release is the conditional P(x1 = 1 | x0 = 0), post-processing of
// Laplace-noised counts). The party's records: 8, D' replaces (0,0) by
// (0,1). Claimed: ε-DP for the party's records; the prior is public.
func DPSUBN3Update(eps float64) (audit.Mechanism, error) {
	rows := [][]int{{0, 0}, {0, 0}, {0, 0}, {0, 1}, {1, 1}, {1, 1}, {1, 0}, {1, 1}}
	pair, err := pbaudits.BayesPair(rows, []int{0, 1})
	if err != nil {
		return audit.Mechanism{}, err
	}
	o := dpsubn3.Options{PrivBayes: privbayes.Options{Epsilon: eps, K: 1, FixRoot: true, Root: 0}}
	if err := o.Validate(); err != nil {
		return audit.Mechanism{}, fmt.Errorf("audit: %w", err)
	}
	prior := &dpsubn3.Prior{N: 6, Model: &privbayes.Model{Cards: pair[audit.D].Cards,
		Net:  privbayes.Network{{Child: 0}, {Child: 1, Parents: []int{0}}},
		Cond: [][]float64{{0.5, 0.5}, {0.7, 0.3, 0.3, 0.7}}}}
	if err := prior.Model.Validate(); err != nil {
		return audit.Mechanism{}, fmt.Errorf("audit: %w", err)
	}
	return audit.Mechanism{
		Name:  fmt.Sprintf("dp-subn3 party update with a prior of 6 records (k=1, ε=%g)", eps),
		Claim: dp.Pure(eps),
		Pair:  "8 records over two binary attributes; D' replaces (0,0) by (0,1)",
		Dim:   1,
		Release: func(side audit.Side, src *randx.Source, out []float64) error {
			m, err := dpsubn3.Update(prior, pair[side], o, pbaudits.Spender(eps), src)
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
