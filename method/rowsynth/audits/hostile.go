package audits

import (
	"fmt"
	"math"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/method/rowsynth"
	proto "github.com/dppub/dppub/method/rowsynth/roles"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// rowsHostileAttacks are the attacks of a hostile coordinator on a
// synthesize-rows owner (method/rowsynth/roles's Owner, the role both the
// one-process and the networked run build).
func rowsHostileAttacks() []audit.HostileAttack {
	const rho = 0.1
	gauss := func(l1, l2 float64) measurement.Noise { return audit.MustNoise(measurement.Gaussian, l1, l2, rho) }
	count, score := gauss(measurement.CountL1, measurement.CountL2), gauss(measurement.IInDifSensitivity, measurement.IInDifSensitivity)
	lap := audit.MustNoise(measurement.Laplace, measurement.CountL1, measurement.CountL2, rho)
	forged := count
	forged.Sensitivity = 1e8
	forgedLap := lap
	forgedLap.Sensitivity, forgedLap.Scale = lap.Sensitivity*1e6, lap.Scale*1e6
	halved := count
	halved.Scale /= 2
	hist := func(n measurement.Noise) *proto.Request {
		return &proto.Request{ID: 1, Kind: proto.KindHistogram, Column: 1, Cells: 11, Release: rowsRelease(n)}
	}
	marg := func(id uint64, attrs ...int) *proto.Request {
		return &proto.Request{ID: id, Kind: proto.KindMarginal, Attrs: attrs, Release: rowsRelease(count)}
	}
	pair := func(ref float64) *proto.Request {
		a, b := make([]float64, 3), make([]float64, 11)
		for i := range a {
			a[i] = ref
		}
		for i := range b {
			b[i] = ref
		}
		return &proto.Request{ID: 1, Kind: proto.KindScore, Attrs: []int{0, 1}, Refs: [][]float64{a, b}, Release: rowsRelease(score)}
	}
	other := marg(1, 0)
	other.Session = "another-session"
	scoreAsCount := pair(0.1)
	scoreAsCount.Release = rowsRelease(count)
	huge := hist(count)
	huge.Cells = 1 << 20
	one := rowsRequestAttack
	return append([]audit.HostileAttack{
		one("forged Gaussian sensitivity", "declares Δ₂ = 10⁸ with the honest σ at ρ = 0.1, so the grid is 64 counts and the noise 0.05 of a step", audit.HostileRefused, hist(forged)),
		one("forged Laplace sensitivity", "declares Δ₁ and b both 10⁶ times the honest ones (the same ε), so the grid is coarse and the noise a fraction of a step", audit.HostileRefused, hist(forgedLap)),
		one("halved noise", "declares σ half of the calibration of its ρ", audit.HostileRefused, hist(halved)),
		one("score noise of a count vector", "asks for a pair score (Δ = 2) at a count vector's calibration (Δ₂ = √2)", audit.HostileRefused, scoreAsCount),
		rowsAttack("repeated request ID", "asks a second, different request under an ID already answered, so that the masks would cancel in the difference", audit.HostileRefused,
			func(v *rowsVictim) (*proto.Request, error) { return marg(7, 1), v.answer(marg(7, 0)) }),
		rowsAttack("replayed request", "sends an answered request again", audit.HostileRefused,
			func(v *rowsVictim) (*proto.Request, error) { return marg(7, 0), v.answer(marg(7, 0)) }),
		rowsAttack("reordered request IDs", "sends request 9, then request 4", audit.HostileCharged,
			func(v *rowsVictim) (*proto.Request, error) { return marg(4, 1), v.answer(marg(9, 0)) }),
		one("overflowing score reference", "sends reference frequencies of 10²⁰⁰, whose product overflows (the old owner panicked after its charge)", audit.HostileRefused, pair(1e200)),
		one("non-finite score reference", "sends NaN reference frequencies", audit.HostileRefused, pair(math.NaN())),
		one("score reference beyond exact arithmetic", "sends reference frequencies of 10⁹, so that rounding could turn one record's change into a large step", audit.HostileRefused, pair(1e9)),
		one("request for another session", "sends a request of another session", audit.HostileRefused, other),
		one("add/remove claimed to a replace-one owner", "names add/remove neighbours in a marginal request with their calibration (Δ₂ = 1, σ 1/√2 of replace-one's) to an owner whose session is replace-one, while the report would state replace-one", audit.HostileRefused, addRemoveMarginal()),
		one("record count from a replace-one owner", "asks a replace-one owner for its record count at the add/remove count calibration (Δ₂ = 1)", audit.HostileRefused, addRemoveCount()),
		one("oversized histogram", "asks for a histogram of 2²⁰ cells", audit.HostileRefused, huge),
		one("attribute out of range", "asks for the marginal of attribute 9 of 2", audit.HostileRefused, marg(1, 9)),
		rowsAttack("request beyond the budget", "asks for more than the owner's budget (ρ = 0.1 against 0.05 left)", audit.HostileRefused,
			func(v *rowsVictim) (*proto.Request, error) { return marg(1, 0), v.spend(0.95 * rowsBudget) }),
		rowsKeyAttack("substituted key", "lists its own X25519 key in owner 2's place, with owner 2's signature", func(k *proto.Keys, sign func([]byte) []byte, session string) {
			k.Keys[1] = rowsCoordinatorKey()
		}),
		rowsKeyAttack("substituted, self-signed key", "lists its own key in owner 2's place, signed by another member", func(k *proto.Keys, sign func([]byte) []byte, session string) {
			k.Keys[1] = rowsCoordinatorKey()
			k.Sigs[1] = sign(proto.KeyStatement(session, 1, k.Keys[1]))
		}),
		rowsKeyAttack("unsigned key", "relays owner 2's key without its signature", func(k *proto.Keys, _ func([]byte) []byte, _ string) {
			k.Sigs[1] = nil
		}),
	}, rowsSelectAttacks()...)
}

// addRemoveMarginal is a marginal request calibrated to, and naming,
// add/remove neighbours.
func addRemoveMarginal() *proto.Request {
	q := &proto.Request{ID: 1, Kind: proto.KindMarginal, Attrs: []int{0}, Release: rowsRelease(measurement.Noise{})}
	if err := q.Calibrate(dp.NeighboursAddRemove, measurement.Gaussian, 0.1); err != nil {
		panic(err) // programmer error: a fixed valid calibration
	}
	return q
}

// addRemoveCount is the add/remove record count request.
func addRemoveCount() *proto.Request {
	q := &proto.Request{ID: 1, Kind: proto.KindCount, Release: rowsRelease(measurement.Noise{})}
	if err := q.Calibrate(dp.NeighboursAddRemove, measurement.Gaussian, 0.1); err != nil {
		panic(err)
	}
	return q
}

// rowsRequestAttack is an attack that sends one fixed request.
func rowsRequestAttack(name, attempt string, expect audit.HostileExpect, q *proto.Request) audit.HostileAttack {
	return rowsAttack(name, attempt, expect, func(v *rowsVictim) (*proto.Request, error) { return q, nil })
}

// rowsSelectAttacks are the attacks on the adaptive method's select
// requests: an honest one (charged at its true cost), forged
// sensitivities and candidate counts, oversized references and too many
// candidates (refused before any charge).
func rowsSelectAttacks() []audit.HostileAttack {
	// A select request (the adaptive method's round) over the victim's
	// three candidate sets, with the noise declared for declared
	// candidates; cells gives each reference's length.
	choose := func(declared int, cells ...int) *proto.Request {
		sets := [][]int{{0}, {1}, {0, 1}}[:len(cells)]
		refs := make([][]float64, len(cells))
		for i, c := range cells {
			refs[i] = make([]float64, c)
			for j := range refs[i] {
				refs[i][j] = 1 / float64(c)
			}
		}
		l1, l2 := proto.SelectSensitivity(declared)
		return &proto.Request{ID: 1, Kind: proto.KindSelect, Sets: sets, Refs: refs, Release: rowsRelease(audit.MustNoise(measurement.Gaussian, l1, l2, 0.1))}
	}
	forgedSelect := choose(3, 3, 11, 33)
	forgedSelect.Release.Noise.Sensitivity = 1e8
	manySets := choose(1, 3)
	for range proto.MaxSelectSets {
		manySets.Sets = append(manySets.Sets, []int{0})
		manySets.Refs = append(manySets.Refs, []float64{1, 0, 0})
	}
	one := rowsRequestAttack
	return []audit.HostileAttack{
		one("honest select request", "asks for the scores of three candidates at their calibration (Δ₂ = 2√3)", audit.HostileCharged, choose(3, 3, 11, 33)),
		one("forged select sensitivity", "declares Δ₂ = 10⁸ for three candidates' scores with the honest σ, so the grid is coarse and the noise a fraction of a step", audit.HostileRefused, forgedSelect),
		one("forged candidate count", "sends three candidates with the noise of one (Δ₂ = 2, not 2√3): σ √3 times below what their scores need", audit.HostileRefused, choose(1, 3, 11, 33)),
		one("oversized select references", "sends a candidate's reference with 33 cells for a marginal of 3", audit.HostileRefused, choose(2, 33, 11)),
		one("too many candidates", fmt.Sprintf("sends %d candidate sets, more than an owner scores (%d)", proto.MaxSelectSets+1, proto.MaxSelectSets), audit.HostileRefused, manySets),
	}
}

// rowsBudget is the victim's budget (ρ).
const rowsBudget = 1.0

func rowsRelease(n measurement.Noise) measurement.Release {
	return measurement.Release{Purpose: "hostile", Parties: []int{0}, Noise: n}
}

// rowsCoordinatorKey is an X25519 public key the coordinator holds.
func rowsCoordinatorKey() []byte {
	k, err := proto.OwnerKey(randx.NewSeeded(99))
	if err != nil {
		panic(err)
	}
	return k.PublicKey().Bytes()
}

// rowsVictim is owner 1 of a two-owner session, keyed and given the
// domain by the hostile coordinator, which also holds owner 2's hello.
type rowsVictim struct {
	p     proto.Params
	owner *proto.Owner
	acct  *privacy.Accountant
	keys  proto.Keys
	// sign signs as a third member (not an owner of the session).
	sign func([]byte) []byte
}

// rowsVictimTable has 40 records over a 3-category and an integer
// attribute in [0, 10].
func rowsVictimTable(offset int) *data.Table {
	s := data.Schema{Attributes: []data.Attribute{
		{Name: "c", Kind: data.Categorical, Categories: []string{"a", "b", "c"}},
		{Name: "x", Kind: data.Numeric, Min: 0, Max: 10, Integer: true},
	}}
	t := &data.Table{Schema: s}
	for i := range 40 {
		t.Rows = append(t.Rows, []float64{float64((i + offset) % 3), float64((i + offset) % 11)})
	}
	return t
}

// newRowsVictim builds the session up to the keys; keyed and given the
// domain unless tamper is set, in which case tamper changes the Keys
// message first and the victim takes it (its error returned).
func newRowsVictim(tamper func(*proto.Keys, func([]byte) []byte, string)) (*rowsVictim, error, error) {
	names := []string{"owner-1", "owner-2", "stranger"}
	peers, err := method.LocalPeers(names)
	if err != nil {
		return nil, nil, err
	}
	v := &rowsVictim{p: proto.Params{Session: "audit-hostile", Owners: 2, Schema: rowsVictimTable(0).Schema, Bins: 11, Noise: proto.NoiseInsiderSafe}}
	v.sign = func(b []byte) []byte {
		s, err := peers["stranger"].Sign(b)
		if err != nil {
			panic(err)
		}
		return s
	}
	var owners []*proto.Owner
	for k := range 2 {
		acct, err := privacy.NewAccountant(privacy.AccountantOptions{Party: names[k], Budget: dp.Concentrated(rowsBudget)})
		if err != nil {
			return nil, nil, err
		}
		o, err := proto.NewOwner(proto.OwnerOptions{Params: v.p, Index: k, Table: rowsVictimTable(17 * k), Accountant: acct,
			Source: randx.NewSeeded(uint64(k + 1)), Auth: rowsynth.OwnerAuth(peers[names[k]], names[:2])})
		if err != nil {
			return nil, nil, err
		}
		out, err := o.Start()
		if err != nil {
			return nil, nil, err
		}
		var h proto.Hello
		if err := h.UnmarshalBinary(out[0].Payload); err != nil {
			return nil, nil, err
		}
		v.keys.Keys, v.keys.Sigs = append(v.keys.Keys, h.Key), append(v.keys.Sigs, h.Sig)
		owners = append(owners, o)
		if k == 0 {
			v.acct = acct
		}
	}
	v.owner = owners[0]
	if tamper != nil {
		tamper(&v.keys, v.sign, v.p.Session)
	}
	_, keyErr := v.send(&v.keys)
	if keyErr != nil || tamper != nil {
		return v, keyErr, nil
	}
	if _, err := v.send(&proto.Domain{}); err != nil {
		return nil, nil, err
	}
	return v, nil, nil
}

func (v *rowsVictim) send(m protocol.Message) ([]protocol.Envelope, error) {
	e, err := protocol.Seal("", proto.CoordinatorID, v.owner.ID(), m)
	if err != nil {
		return nil, err
	}
	return v.owner.Handle(e)
}

// answer has the victim answer q honestly (a step before the attack).
func (v *rowsVictim) answer(q *proto.Request) error {
	q.Session = v.p.Session
	_, err := v.send(q)
	return err
}

// spend leaves the victim rho of its budget spent before the attack.
func (v *rowsVictim) spend(rho float64) error {
	return v.acct.Spend(privacy.Charge{Purpose: "earlier releases", Spec: dp.Spec{Mechanism: "gaussian", Norm: "L2", Sensitivity: 1, Scale: 1, Guarantee: dp.Concentrated(rho)}, Calibration: "sound"})
}

// rowsAttack tries a request: before sends the honest steps that come
// first and returns the attack's request.
func rowsAttack(name, attempt string, expect audit.HostileExpect, before func(*rowsVictim) (*proto.Request, error)) audit.HostileAttack {
	return audit.HostileAttack{Method: "synthesize-rows", Name: name, Attempt: attempt, Expect: expect, Try: func() (audit.HostileOutcome, error) {
		v, _, err := newRowsVictim(nil)
		if err != nil {
			return audit.HostileOutcome{}, err
		}
		q, err := before(v)
		if err != nil {
			return audit.HostileOutcome{}, fmt.Errorf("the honest steps before the attack: %w", err)
		}
		if q.Session == "" {
			q.Session = v.p.Session
		}
		charges := len(v.acct.Charges())
		out, err := v.send(q)
		return v.outcome(q, charges, out, err), nil
	}}
}

// rowsKeyAttack tampers with the relayed keys.
func rowsKeyAttack(name, attempt string, tamper func(*proto.Keys, func([]byte) []byte, string)) audit.HostileAttack {
	return audit.HostileAttack{Method: "synthesize-rows", Name: name, Attempt: attempt, Expect: audit.HostileRefused, Try: func() (audit.HostileOutcome, error) {
		v, keyErr, err := newRowsVictim(tamper)
		if err != nil {
			return audit.HostileOutcome{}, err
		}
		if keyErr != nil {
			return audit.HostileOutcome{Got: audit.HostileRefused, Detail: keyErr.Error()}, nil
		}
		// Taken: the victim would mask towards the coordinator's key.
		q := &proto.Request{Session: v.p.Session, ID: 1, Kind: proto.KindMarginal, Attrs: []int{0}, Release: rowsRelease(audit.MustNoise(measurement.Gaussian, measurement.CountL1, measurement.CountL2, 0.1))}
		if _, err := v.send(&proto.Domain{}); err != nil {
			return audit.HostileOutcome{}, err
		}
		out, err := v.send(q)
		o := v.outcome(q, 0, out, err)
		o.Got, o.Detail = "keys taken", "the owner took the tampered keys; "+o.Detail
		return o, nil
	}}
}

// outcome reads what the victim did with q: refused (an error, nothing
// charged, nothing sent), or answered with one charge, which is its true
// cost when it equals the owner's own calibration of q.
func (v *rowsVictim) outcome(q *proto.Request, before int, out []protocol.Envelope, err error) audit.HostileOutcome {
	charges := v.acct.Charges()[before:]
	switch {
	case err != nil && len(charges) == 0 && len(out) == 0:
		return audit.HostileOutcome{Got: audit.HostileRefused, Detail: err.Error()}
	case err != nil:
		return audit.HostileOutcome{Got: "refused after charging", Detail: fmt.Sprintf("%v; %d charges recorded, %d messages sent", err, len(charges), len(out))}
	case len(charges) != 1:
		return audit.HostileOutcome{Got: "answered", Detail: fmt.Sprintf("%d charges recorded for one release", len(charges))}
	}
	// The audit's own calibration, not the owner's code: a count vector
	// has Δ₁ = 2, Δ₂ = √2 under replace-one, a pair score Δ = 2.
	l1, l2 := 2.0, math.Sqrt2
	switch q.Kind {
	case proto.KindScore:
		l1, l2 = 2, 2
	case proto.KindSelect:
		// C candidates' scores, each of sensitivity 2.
		l1, l2 = 2*float64(len(q.Sets)), 2*math.Sqrt(float64(len(q.Sets)))
	}
	d := q.Release.Noise
	truth, err := measurement.Calibrate(d.Mechanism, l1, l2, d.Rho)
	if err != nil || d.Sensitivity != truth.Sensitivity || math.Abs(d.Scale-truth.Scale) > 1e-9*truth.Scale {
		return audit.HostileOutcome{Got: "answered", Detail: fmt.Sprintf("answered noise %+v, which is not the calibration of its ρ (%+v): charged %v", d, truth, charges[0].Spec.Guarantee)}
	}
	if charges[0].Spec.Guarantee != truth.Spec().Guarantee {
		return audit.HostileOutcome{Got: "answered", Detail: fmt.Sprintf("charged %v, its calibration costs %v", charges[0].Spec.Guarantee, truth.Spec().Guarantee)}
	}
	return audit.HostileOutcome{Got: audit.HostileCharged, Detail: fmt.Sprintf("charged %v", charges[0].Spec.Guarantee)}
}
