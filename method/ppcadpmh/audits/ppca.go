package audits

import (
	"cmp"
	"fmt"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/linalg"
	"github.com/dppub/dppub/method/ppcadpmh/ppca"
	ppcadpmh "github.com/dppub/dppub/method/ppcadpmh/roles"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// PPCAOptions configure the audit of one PPCA-DP-MH owner's statistics
// message (the noisy Σx and upper triangle of Σxxᵀ it sends the curator).
type PPCAOptions struct {
	// P is the number of columns; 0 means 20. Ignored with a custom pair.
	P           int
	Epsilon     float64
	Delta       float64          // Gaussian mechanism only
	Calibration ppca.Calibration // "" means sound
	Mechanism   ppca.Mechanism   // "" means laplace
	// Part is the part of the message audited against its own charge;
	// "" means PartSecondMoment.
	Part PPCAPart
	// D and DPrime are an optional custom pair: equal shapes, entries in
	// [0, 1], at least 2 rows, differing in exactly one row. The default
	// pair is the adversarial one below.
	D, DPrime *mat.Dense
}

// PPCAPart selects which part of an owner's statistics message is audited.
type PPCAPart string

const (
	// PartSecondMoment is the upper triangle of Σxxᵀ, audited against the
	// charge for it (ε/2 in both calibrations). This is where the paper's
	// sensitivity is wrong, and where the gap is cheapest to detect.
	PartSecondMoment PPCAPart = "second-moment"
	// PartSum is Σx, audited against its charge (ε/2).
	PartSum PPCAPart = "sum"
	// PartAll is the whole message, audited against the total charge ε.
	PartAll PPCAPart = "all"
)

// PPCADPMH audits the owner role of method/ppcadpmh/roles in local noise mode:
// each release builds a fresh Owner, runs its first step and decodes the
// Statistics message it sends, so the plan (ppca.NewPlan), the noise loop
// and the wire encoding are all under test. The audited part of the
// message (o.Part) is compared with the charge the plan makes for it.
//
// Default pair: D has the rows 0 and ⅓·1, D' replaces 0 by u·1 with u = 1 −
// 2^-10/3 (all entries), so every entry of Σx moves by u and every entry
// of Σxxᵀ by u² (0.9997 and 0.9993 of the L1 sensitivities p and
// p(p+1)/2 and L2 sensitivities √p and √(p(p+1)/2);
// docs/errata.md#ppca-second-moment-sensitivity). Every statistic on
// either side, and every move, is off every power-of-two grid (⅓, 1/9,
// ⅓ + u, 1/9 + u² and u, u² have low-order bits set), so a release that
// adds its noise to the exact value without rounding it to its grid
// keeps bits that differ between D and D' and fails the grey-box audit
// (TestGreyBoxCatchesPPCAFloatPath); a pair on a grid (0 against 1, ½
// against 3/2) would hide it. The statistic is the
// log-likelihood ratio over all released entries of the part (LaplaceLLR or
// GaussianLLR with the plan's scales), the most powerful test of D against
// D'. Truth states the exact moments, so the grey-box audit also compares
// the residuals o − round_g(v).
//
// The paper calibration (Algorithm 1: Lap(2p/ε) on every entry, each part
// charged ε/2) really gives p(p+1)/2 · ε/(2p) = ε(p+1)/4 on the second
// moment (10.5 instead of 1 for p = 20, ε = 2) and ε(p+3)/4 in total (11.5
// instead of 2).
func PPCADPMH(o PPCAOptions) (audit.Mechanism, error) {
	o.Calibration = cmp.Or(o.Calibration, ppca.Sound)
	o.Mechanism = cmp.Or(o.Mechanism, ppca.Laplace)
	o.Part = cmp.Or(o.Part, PartSecondMoment)
	d, dp2, err := ppcaPair(o)
	if err != nil {
		return audit.Mechanism{}, err
	}
	_, p := d.Dims()
	params := ppcadpmh.Params{
		Session: "audit", Owners: []string{"owner"}, Curator: "curator", Noise: ppcadpmh.Local,
		Fit:  ppca.FitOptions{K: 1},
		Plan: ppca.PlanOptions{Calibration: o.Calibration, Mechanism: o.Mechanism, Epsilon: o.Epsilon, Delta: o.Delta, Bounds: ppca.GenericBounds(p)},
	}
	if err := params.Validate(); err != nil {
		return audit.Mechanism{}, fmt.Errorf("audit: %w", err)
	}
	plan, err := ppca.NewPlan(params.Plan)
	if err != nil {
		return audit.Mechanism{}, fmt.Errorf("audit: %w", err)
	}
	from, to, claim, err := ppcaPart(o.Part, p, plan)
	if err != nil {
		return audit.Mechanism{}, err
	}
	data := [2]*mat.Dense{audit.D: d, audit.DPrime: dp2}
	release := func(side audit.Side, src *randx.Source, out []float64) error {
		full := make([]float64, packedLen(p))
		if err := ownerRelease(params, plan.Claimed(), data[side], src, full); err != nil {
			return err
		}
		copy(out, full[from:to])
		return nil
	}
	// Fail now, not mid-audit, if the real owner rejects either dataset.
	if err := audit.CheckRelease(release, to-from); err != nil {
		return audit.Mechanism{}, err
	}
	return audit.Mechanism{
		Name:      fmt.Sprintf("ppca-dp-mh owner %s (%s calibration, %s, p=%d, ε=%g)", o.Part, o.Calibration, o.Mechanism, p, o.Epsilon),
		Claim:     claim,
		Pair:      pairDescription(o),
		Dim:       to - from,
		Release:   release,
		Statistic: ppcaLLR(plan, packMoments(d)[from:to], packMoments(dp2)[from:to], p, from),
		Truth:     ppcaTruth(plan, data, from, to),
	}, nil
}

// ppcaTruth is the exact part of the message on each side: the moments,
// and 0 for the structural zeros the owner sends as they are.
func ppcaTruth(plan *ppca.Plan, data [2]*mat.Dense, from, to int) func(audit.Side) []float64 {
	return func(side audit.Side) []float64 {
		v := packMoments(data[side])
		for i := range v {
			if !plan.Noised[i] {
				v[i] = 0
			}
		}
		return v[from:to]
	}
}

// ppcaPart returns the part's range in the packed message and its charge.
func ppcaPart(part PPCAPart, p int, plan *ppca.Plan) (from, to int, claim dp.Guarantee, err error) {
	switch part {
	case PartSum:
		return 0, p, plan.Charges[0].Spec.Guarantee, nil
	case PartSecondMoment:
		return p, packedLen(p), plan.Charges[1].Spec.Guarantee, nil
	case PartAll:
		return 0, packedLen(p), plan.Claimed(), nil
	}
	return 0, 0, dp.Guarantee{}, fmt.Errorf("audit: unknown ppca-dp-mh part %q (want %s, %s or %s)", part, PartSecondMoment, PartSum, PartAll)
}

// The default pair's entries (PPCADPMH): off every grid, the moved one
// within 2^-10/3 of the full range.
const (
	ppcaShared = audit.OffGridBase
	ppcaMoved  = audit.OffGridMove
)

func ppcaPair(o PPCAOptions) (*mat.Dense, *mat.Dense, error) {
	if o.D == nil && o.DPrime == nil {
		p := cmp.Or(o.P, 20)
		if p < 1 {
			return nil, nil, fmt.Errorf("audit: ppca-dp-mh needs p ≥ 1, got %d", p)
		}
		d, dp2 := mat.NewDense(2, p, nil), mat.NewDense(2, p, nil)
		for j := 0; j < p; j++ {
			d.Set(1, j, ppcaShared)
			dp2.Set(1, j, ppcaShared)
			dp2.Set(0, j, ppcaMoved)
		}
		return d, dp2, nil
	}
	if o.D == nil || o.DPrime == nil {
		return nil, nil, fmt.Errorf("audit: a custom pair needs both D and D'")
	}
	if err := checkNeighbours(o.D, o.DPrime); err != nil {
		return nil, nil, err
	}
	return o.D, o.DPrime, nil
}

// checkNeighbours requires equal shapes and exactly one differing row
// (replace-one neighbours, the relation every sensitivity here assumes).
func checkNeighbours(a, b *mat.Dense) error {
	ra, ca := a.Dims()
	rb, cb := b.Dims()
	if ra != rb || ca != cb {
		return fmt.Errorf("audit: D is %d×%d but D' is %d×%d; replace-one neighbours have equal shapes", ra, ca, rb, cb)
	}
	diff := 0
	for i := 0; i < ra; i++ {
		if !mat.Equal(a.RowView(i), b.RowView(i)) {
			diff++
		}
	}
	if diff != 1 {
		return fmt.Errorf("audit: D and D' differ in %d rows, want exactly 1", diff)
	}
	return nil
}

func pairDescription(o PPCAOptions) string {
	if o.D != nil {
		return "user-supplied pair (one row replaced)"
	}
	return "D = {0, ⅓·1}, D' = {u·1, ⅓·1} with u = 1 − 2^-10/3: the all-zeros record replaced by all u, so every entry of Σx moves by u and of Σxxᵀ by u² (0.9997 and 0.9993 of the sensitivity), every statistic off every grid"
}

// ownerRelease runs one protocol owner on X and decodes its statistics.
func ownerRelease(params ppcadpmh.Params, budget dp.Guarantee, X *mat.Dense, src *randx.Source, out []float64) error {
	acct, err := privacy.NewAccountant(privacy.AccountantOptions{Party: "owner", Budget: budget})
	if err != nil {
		return err
	}
	w, err := ppcadpmh.NewOwner(ppcadpmh.OwnerOptions{ID: "owner", Params: params, Data: X, Accountant: acct, Source: src})
	if err != nil {
		return err
	}
	msgs, err := w.Start()
	if err != nil {
		return err
	}
	if len(msgs) != 1 || msgs[0].Type != ppcadpmh.TypeStatistics {
		return fmt.Errorf("audit: the owner's first step sent %d messages, want one statistics message", len(msgs))
	}
	var s ppcadpmh.Statistics
	if err := s.UnmarshalBinary(msgs[0].Payload); err != nil {
		return err
	}
	if len(s.Packed) != len(out) {
		return fmt.Errorf("audit: the owner released %d values, want %d", len(s.Packed), len(out))
	}
	copy(out, s.Packed)
	return nil
}

// packMoments is the exact (noise-free) release: Σx, then the upper
// triangle of Σxxᵀ row by row, the order of ppcadpmh.Statistics.Packed.
func packMoments(X *mat.Dense) []float64 {
	sum, outer := linalg.Moments(X)
	p := len(sum)
	out := append(make([]float64, 0, packedLen(p)), sum...)
	for i := 0; i < p; i++ {
		for j := i; j < p; j++ {
			out = append(out, outer.At(i, j))
		}
	}
	return out
}

func packedLen(p int) int { return p + p*(p+1)/2 }

// ppcaLLR is the LLR over packed entries from, from+1, ...
func ppcaLLR(plan *ppca.Plan, fD, fDPrime []float64, p, from int) func([]float64) float64 {
	scale := make([]float64, len(fD))
	for i := range scale {
		scale[i] = plan.OuterScale
		if from+i < p {
			scale[i] = plan.SumScale
		}
	}
	if plan.Mechanism == ppca.Gaussian {
		return audit.GaussianLLR(fD, fDPrime, scale)
	}
	return audit.LaplaceLLR(fD, fDPrime, scale)
}
