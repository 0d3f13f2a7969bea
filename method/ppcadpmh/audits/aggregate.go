package audits

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/method/ppcadpmh/ppca"
	ppcadpmh "github.com/dppub/dppub/method/ppcadpmh/roles"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// addAggregate adds the audit of the secure-aggregate sum.
func addAggregate(fam *audit.Family) {
	fam.Add(audit.Method{Name: "ppca-dp-mh-aggregate", Summary: "what the PPCA-DP-MH curator sees in secure-aggregate mode: the unmasked sum of 3 owners' second moments (p = 6, ε = 2; laplace or gaussian)",
		Calibrations: []string{string(ppca.Sound)}, FastRuns: 20_000, LongRuns: 200_000,
		Build: func(o audit.MethodOptions) (audit.Mechanism, error) {
			return PPCAAggregate(ppca.Mechanism(o.Mechanism), cmp.Or(o.Epsilon, 2), cmp.Or(o.Delta, 1e-5))
		}},
		audit.Case{Method: "ppca-dp-mh-aggregate", Expect: audit.Pass},
		audit.Case{Method: "ppca-dp-mh-aggregate", Options: audit.MethodOptions{Mechanism: string(ppca.Gaussian)}, Expect: audit.Pass})
}

// PPCAAggregate audits PPCA-DP-MH in secure-aggregate mode from the
// curator's side: three protocol owners exchange mask seeds and send
// masked statistics; the release is their unmasked sum's second-moment
// part (ppcadpmh.Aggregate), which carries one centralised noise draw made
// of the owners' 1/m shares. Owner 1 holds the pair of PPCADPMH (its
// all-zeros row replaced by all u ≈ 1, off every grid), owners 2 and 3 fixed rows. The
// claim is owner 1's charge for the part; the statistic is the LLR with
// the plan's scales, since the shares add up to exactly the plan's noise.
// The audit states the exact sums (Truth), off every grid through owner
// 1's rows, so the grey-box audit also compares the residuals: each owner
// rounds its own moments, so the sum differs from the rounded exact sum
// by a few grid steps, which leave a residual's low bits and trailing
// zeros as they are.
func PPCAAggregate(mech ppca.Mechanism, eps, delta float64) (audit.Mechanism, error) {
	if mech == "" {
		mech = ppca.Laplace
	}
	const p = 6
	d, d2, err := ppcaPair(PPCAOptions{P: p})
	if err != nil {
		return audit.Mechanism{}, err
	}
	other := mat.NewDense(2, p, nil)
	for j := range p {
		other.Set(0, j, 0.25)
		other.Set(1, j, 0.75)
	}
	owners := []string{"owner-1", "owner-2", "owner-3"}
	params := ppcadpmh.Params{
		Session: "audit", Owners: owners, Curator: "curator", Noise: ppcadpmh.SecureAggregate,
		Fit:  ppca.FitOptions{K: 1},
		Plan: ppca.PlanOptions{Calibration: ppca.Sound, Mechanism: mech, Epsilon: eps, Delta: delta, Bounds: ppca.GenericBounds(p)},
	}
	if mech == ppca.Laplace {
		params.Plan.Delta = 0
	}
	if err := params.Validate(); err != nil {
		return audit.Mechanism{}, fmt.Errorf("audit: %w", err)
	}
	plan, err := ppca.NewPlan(params.Plan)
	if err != nil {
		return audit.Mechanism{}, fmt.Errorf("audit: %w", err)
	}
	from, to, claim, err := ppcaPart(PartSecondMoment, p, plan)
	if err != nil {
		return audit.Mechanism{}, err
	}
	data := [2]*mat.Dense{audit.D: d, audit.DPrime: d2}
	exact := func(x *mat.Dense) []float64 {
		all := packMoments(x)
		for _, m := range [][]float64{packMoments(other), packMoments(other)} {
			for i := range all {
				all[i] += m[i]
			}
		}
		return all[from:to]
	}
	release := func(side audit.Side, src *randx.Source, out []float64) error {
		agg, err := aggregateRelease(params, plan, []*mat.Dense{data[side], other, other}, src)
		if err != nil {
			return err
		}
		copy(out, agg[from:to])
		return nil
	}
	if err := release(audit.D, randx.NewSeeded(0), make([]float64, to-from)); err != nil {
		return audit.Mechanism{}, fmt.Errorf("audit: %w", err)
	}
	return audit.Mechanism{
		Name:      fmt.Sprintf("ppca-dp-mh secure-aggregate sum, second moment (sound, %s, 3 owners, p=%d, ε=%g)", mech, p, eps),
		Claim:     claim,
		Pair:      "owner 1: " + pairDescription(PPCAOptions{}) + "; owners 2 and 3 hold fixed rows",
		Dim:       to - from,
		Release:   release,
		Statistic: ppcaLLR(plan, exact(d), exact(d2), p, from),
		Truth:     audit.SideTruth(exact(d), exact(d2)),
	}, nil
}

// aggregateRelease runs the owners' first steps (mask seeds, then masked
// statistics) and returns what the curator unmasks.
func aggregateRelease(params ppcadpmh.Params, plan *ppca.Plan, data []*mat.Dense, src *randx.Source) ([]float64, error) {
	roles := map[string]*ppcadpmh.Owner{}
	var pending []protocol.Envelope
	for i, name := range params.Owners {
		acct, err := privacy.NewAccountant(privacy.AccountantOptions{Party: name, Budget: plan.Claimed()})
		if err != nil {
			return nil, err
		}
		w, err := ppcadpmh.NewOwner(ppcadpmh.OwnerOptions{ID: name, Params: params, Data: data[i], Accountant: acct, Source: src.Child()})
		if err != nil {
			return nil, err
		}
		roles[name] = w
		out, err := w.Start()
		if err != nil {
			return nil, err
		}
		pending = append(pending, out...)
	}
	var stats []ppcadpmh.Statistics
	for len(pending) > 0 {
		e := pending[0]
		pending = pending[1:]
		if e.To == params.Curator {
			var s ppcadpmh.Statistics
			if err := s.UnmarshalBinary(e.Payload); err != nil {
				return nil, err
			}
			stats = append(stats, s)
			continue
		}
		out, err := roles[e.To].Handle(e)
		if err != nil {
			return nil, err
		}
		pending = append(pending, out...)
	}
	if len(stats) != len(params.Owners) || slices.ContainsFunc(stats, func(s ppcadpmh.Statistics) bool { return len(s.Masked) == 0 }) {
		return nil, fmt.Errorf("audit: %d masked statistics messages, want %d", len(stats), len(params.Owners))
	}
	return ppcadpmh.Aggregate(params, stats)
}
