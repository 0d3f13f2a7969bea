package audits

import (
	"context"
	"fmt"
	"math"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/measurement"
	pdpspec "github.com/dppub/dppub/method/pdpmvds"
	proto "github.com/dppub/dppub/method/pdpmvds/roles"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// pdpHostileAttacks are the attacks of a hostile coordinator on a
// PDP-MVDS party (method/pdpmvds/roles's Party, commodity suite, insider-safe
// noise: the method's defaults), after an honest setup with the other
// party and S. Party 1 holds attributes 0 and 1, party 2 attributes 2
// and 3. Unlike a synthesize-rows owner, a party takes a declared
// sensitivity at or above the query's, with the scale recomputed from it
// and ρ: its grid and noise then grow together, so the release costs at
// most what is charged, and the audit checks that with its own
// sensitivities.
func pdpHostileAttacks() []audit.HostileAttack {
	const rho = 0.1
	count := audit.MustNoise(measurement.Gaussian, measurement.CountL1, measurement.CountL2, rho)
	forged := count
	forged.Sensitivity = 1e8
	inflated := audit.MustNoise(measurement.Gaussian, 1e8, 1e8, rho)
	halved := count
	halved.Scale /= 2
	lapInflated := audit.MustNoise(measurement.Laplace, 1e6, 1e6, rho)
	nanRho := count
	nanRho.Rho = math.NaN()
	marg := func(id uint64, n measurement.Noise, attrs ...int) *proto.Request {
		return &proto.Request{ID: id, Kind: proto.KindMarginal, Attrs: attrs, Release: pdpHostileRelease(n, attrs)}
	}
	score := func(a, b int, ref float64, n measurement.Noise) *proto.Request {
		q := &proto.Request{ID: 100, Kind: proto.KindScore, Attrs: []int{a, b}, Release: pdpHostileRelease(n, []int{a, b})}
		q.RefA, q.RefB = audit.Fill(pdpSizes[a], ref), audit.Fill(pdpSizes[b], ref)
		return q
	}
	scoreNoise := audit.MustNoise(measurement.Gaussian, measurement.IInDifSensitivity, measurement.IInDifSensitivity, rho)
	otherParties := marg(100, count, 0)
	otherParties.Release.Parties = []int{0, 1}
	one := func(name, attempt string, expect audit.HostileExpect, q *proto.Request) audit.HostileAttack {
		return pdpAttack(name, attempt, expect, true, func(*pdpVictim) (*proto.Request, error) { return q, nil })
	}
	return []audit.HostileAttack{
		one("forged Gaussian sensitivity", "declares Δ₂ = 10⁸ with the honest σ at ρ = 0.1 (the synthesize-rows weakness)", audit.HostileRefused, marg(100, forged, 0)),
		one("halved noise", "declares σ half of the calibration of its ρ", audit.HostileRefused, marg(100, halved, 0)),
		one("score at a count's calibration", "asks for a pair score (Δ = 2) at a count vector's Δ₂ = √2", audit.HostileRefused, score(0, 1, 20, count)),
		one("non-finite ρ", "declares ρ = NaN", audit.HostileRefused, marg(100, nanRho, 0)),
		one("inflated Gaussian sensitivity", "declares Δ₂ = 10⁸ with σ calibrated to it at ρ = 0.1", audit.HostileCharged, marg(100, inflated, 0)),
		one("inflated Laplace sensitivity", "declares Δ₁ = 10⁶ with b calibrated to it", audit.HostileCharged, marg(100, lapInflated, 0)),
		one("joint marginal with inflated sensitivity", "asks for the joint marginal of attributes 1 and 2 at Δ₂ = 10⁸ with σ calibrated to it, on a grid of 32 counts", audit.HostileRefused, marg(100, inflated, 1, 2)),
		one("release charging another party", "asks for party 1's marginal charging both parties", audit.HostileRefused, otherParties),
		one("attributes repeated", "asks for the marginal of attributes (0, 0)", audit.HostileRefused, marg(100, count, 0, 0)),
		one("attribute out of range", "asks for the marginal of attribute 9 of 4", audit.HostileRefused, marg(100, count, 9)),
		one("another party's attributes", "asks party 1 alone for party 2's attribute 2", audit.HostileRefused, marg(100, count, 2)),
		one("overflowing score reference", "sends references of 10²⁰⁰ for party 1's pair (the old party charged, then panicked)", audit.HostileRefused, score(0, 1, 1e200, scoreNoise)),
		one("overflowing joint score reference", "sends references of 10²⁰⁰ for a pair across the parties", audit.HostileRefused, score(1, 2, 1e200, scoreNoise)),
		one("score references beyond the records", "sends references of 70 per cell for n = 40 records: each within ±2n, their sums' product 6 times (2n)²", audit.HostileRefused, score(1, 2, 70, scoreNoise)),
		pdpAttack("repeated request ID", "asks a second, different request under an ID already answered", audit.HostileRefused, true,
			func(v *pdpVictim) (*proto.Request, error) { return marg(7, count, 1), v.answer(marg(7, count, 0)) }),
		pdpAttack("replayed request", "sends an answered request again", audit.HostileRefused, true,
			func(v *pdpVictim) (*proto.Request, error) { return marg(7, count, 0), v.answer(marg(7, count, 0)) }),
		pdpAttack("reordered request IDs", "sends request 9, then request 4", audit.HostileCharged, true,
			func(v *pdpVictim) (*proto.Request, error) { return marg(4, count, 1), v.answer(marg(9, count, 0)) }),
		pdpAttack("request beyond the budget", "asks for ρ = 0.1 with 0.05 of the party's budget left", audit.HostileRefused, true,
			func(v *pdpVictim) (*proto.Request, error) { return marg(100, count, 0), v.spend(pdpBudget - 0.05) }),
		pdpAttack("request before the setup", "asks for a marginal before the setup", audit.HostileRefused, false,
			func(*pdpVictim) (*proto.Request, error) { return marg(100, count, 0), nil }),
		one("second setup", "asks for the setup again, which would replace the pair and mask seeds of answered requests", audit.HostileRefused,
			&proto.Request{ID: 100, Kind: proto.KindSetup}),
	}
}

const (
	pdpBudget  = 1.0
	pdpRecords = 40
)

// pdpSizes and pdpOwners lay out the audit's session: party 1 holds
// attributes 0 and 1, party 2 attributes 2 and 3.
var (
	pdpSizes  = []int{3, 4, 2, 5}
	pdpOwners = []int{0, 0, 1, 1}
)

func pdpHostileRelease(n measurement.Noise, attrs []int) measurement.Release {
	involved := map[int]bool{}
	var parties []int
	for _, a := range attrs {
		if a >= 0 && a < len(pdpOwners) && !involved[pdpOwners[a]] {
			involved[pdpOwners[a]] = true
			parties = append(parties, pdpOwners[a])
		}
	}
	if len(parties) == 0 {
		parties = []int{0}
	}
	return measurement.Release{Purpose: "hostile", Parties: parties, Noise: n}
}

// pdpVictim is party 1 of a two-party session.
type pdpVictim struct {
	party *proto.Party
	acct  *privacy.Accountant
}

// newPDPVictim builds both parties and S as the method does (the
// session's defaults: commodity suite, insider-safe noise), and runs the
// honest setup among them when setup is set.
func newPDPVictim(setup bool) (*pdpVictim, error) {
	src := randx.NewSeeded(21)
	s := proto.Session{Parties: 2, Records: pdpRecords, Sizes: pdpSizes, Owners: pdpOwners}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	v := &pdpVictim{}
	var parties []*proto.Party
	for k := range 2 {
		cols := map[int][]uint16{}
		for a, o := range pdpOwners {
			if o != k {
				continue
			}
			col := make([]uint16, pdpRecords)
			for r := range col {
				col[r] = uint16(src.IntN(pdpSizes[a]))
			}
			cols[a] = col
		}
		acct, err := privacy.NewAccountant(privacy.AccountantOptions{Party: proto.PartyID(k), Budget: dp.Concentrated(pdpBudget)})
		if err != nil {
			return nil, err
		}
		p, err := proto.NewParty(proto.PartyOptions{Session: s, Index: k, Columns: cols, Accountant: acct, Source: src.Child(), Workers: 1})
		if err != nil {
			return nil, err
		}
		parties = append(parties, p)
		if k == 0 {
			v.party, v.acct = p, acct
		}
	}
	third, err := proto.NewThirdParty(proto.ThirdPartyOptions{Session: s, Source: src.Child(), Workers: 1})
	if err != nil {
		return nil, err
	}
	if setup {
		m, err := proto.NewMeasurer(proto.MeasurerOptions{Parties: parties, ThirdParty: third})
		if err != nil {
			return nil, err
		}
		if err := m.Setup(context.Background()); err != nil {
			return nil, fmt.Errorf("the honest setup: %w", err)
		}
	}
	return v, nil
}

func (v *pdpVictim) send(q *proto.Request) ([]protocol.Envelope, error) {
	e, err := protocol.Seal("", proto.CoordinatorID, v.party.ID(), q)
	if err != nil {
		return nil, err
	}
	return protocol.Safely(v.party.ID(), "handling "+e.Type, func() ([]protocol.Envelope, error) { return v.party.Handle(e) })
}

// answer has the victim answer q honestly (a step before the attack).
func (v *pdpVictim) answer(q *proto.Request) error {
	_, err := v.send(q)
	return err
}

// spend leaves rho of the victim's budget spent before the attack.
func (v *pdpVictim) spend(rho float64) error {
	return v.acct.Spend(privacy.Charge{Purpose: "earlier releases", Spec: dp.Spec{Mechanism: "gaussian", Norm: "L2", Sensitivity: 1, Scale: 1, Guarantee: dp.Concentrated(rho)}, Calibration: "sound"})
}

// pdpAttack sends the honest steps before returns, then the attack's
// request.
func pdpAttack(name, attempt string, expect audit.HostileExpect, setup bool, before func(*pdpVictim) (*proto.Request, error)) audit.HostileAttack {
	return audit.HostileAttack{Method: pdpspec.Name, Name: name, Attempt: attempt, Expect: expect, Try: func() (audit.HostileOutcome, error) {
		v, err := newPDPVictim(setup)
		if err != nil {
			return audit.HostileOutcome{}, err
		}
		q, err := before(v)
		if err != nil {
			return audit.HostileOutcome{}, fmt.Errorf("the honest steps before the attack: %w", err)
		}
		n := len(v.acct.Charges())
		out, err := v.send(q)
		return audit.MemberOutcome(err, v.acct.Charges()[n:], out, func(cs []privacy.Charge) (string, error) { return pdpTrueCost(q, cs) }), nil
	}}
}

// pdpTrueCost checks one charge against the audit's own sensitivities (a
// count vector Δ₁ = 2, Δ₂ = √2 under replace-one; a pair score Δ = 2):
// the release's noise must be the declared mechanism at the scale its
// declared sensitivity and ρ call for, that sensitivity at least the
// query's, and the charge the declared guarantee. It then bounds what the
// noise drawn on the release's public grid g over d values really costs
// at the query's sensitivity, rounding included (each value moves by at
// most g more): ρ ≤ (Δ₂ + g√d)²/(2σ'²) or ε ≤ (Δ₁ + d·g)/b', with σ', b'
// the scale drawn; that bound must not exceed the charge.
func pdpTrueCost(q *proto.Request, cs []privacy.Charge) (string, error) {
	if len(cs) != 1 {
		return "", fmt.Errorf("%d charges for one release", len(cs))
	}
	l1, l2 := 2.0, math.Sqrt2
	values := 1
	if q.Kind == proto.KindScore {
		l1, l2 = 2, 2
	} else {
		for _, a := range q.Attrs {
			values *= pdpSizes[a]
		}
	}
	d := q.Release.Noise
	truth := l2
	if d.Mechanism == measurement.Laplace {
		truth = l1
	}
	own, err := measurement.Calibrate(d.Mechanism, d.Sensitivity, d.Sensitivity, d.Rho)
	if err != nil {
		return "", err
	}
	switch {
	case d.Sensitivity < truth:
		return "", fmt.Errorf("answered noise of sensitivity %g below the query's %g", d.Sensitivity, truth)
	case math.Abs(own.Scale-d.Scale) > 1e-9*own.Scale:
		return "", fmt.Errorf("answered noise of scale %g, not the %g its sensitivity and ρ call for", d.Scale, own.Scale)
	case cs[0].Spec.Guarantee != own.Spec().Guarantee:
		return "", fmt.Errorf("charged %v, its noise is calibrated to %v", cs[0].Spec.Guarantee, own.Spec().Guarantee)
	}
	plan, err := d.Plan(values)
	if err != nil {
		return "", err
	}
	g, n := plan.Grid, float64(values)
	var cost, charged float64
	var what string
	if d.Mechanism == measurement.Laplace {
		cost, charged, what = (truth+n*g)/plan.Scale(), cs[0].Spec.Guarantee.Epsilon, "ε"
	} else {
		r := truth + g*math.Sqrt(n)
		cost, charged, what = r*r/(2*plan.Scale()*plan.Scale()), cs[0].Spec.Guarantee.Rho, "ρ"
	}
	if cost > charged*(1+1e-9) {
		return "", fmt.Errorf("its noise on the grid %g costs up to %s = %.4g at the query's sensitivity %.3g, above the charge", g, what, cost, truth)
	}
	return fmt.Sprintf("which bounds its true cost: its noise on the grid %.3g costs at most %s = %.3g at the query's sensitivity %.3g", g, what, cost, truth), nil
}
