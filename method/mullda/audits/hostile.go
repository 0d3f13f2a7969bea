package audits

import (
	"fmt"
	"math"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/method"
	ldaspec "github.com/dppub/dppub/method/mullda"
	proto "github.com/dppub/dppub/method/mullda/roles"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// mulLDAHostileAttacks are the attacks of a hostile publisher or dealer on
// a Mul-LDA-DP owner (method/mullda/roles's Owner, built by the method's Join
// through method.BuildLocal: two owners, correlated noise, a dealer, no
// ledger). The owner computes its noise, grids and charges from the
// session's plan; the coordinators' levers are the dealer's shares, which
// the owner adds to its own noise, the means and direction that move it
// from round to round, and the session itself. That the shares are fresh
// and secret cannot be checked (a dealer colluding with the publisher
// leaves an owner its own σ²/M: stated in the report, not attacked here).
func mulLDAHostileAttacks() []audit.HostileAttack {
	shares := func(edit func(*proto.Shares)) func(*mulLDAVictim) protocol.Message {
		return func(v *mulLDAVictim) protocol.Message {
			s := v.shares
			s.Sums, s.Counts, s.Upper = append([]int64(nil), s.Sums...), append([]int64(nil), s.Counts...), append([]int64(nil), s.Upper...)
			edit(&s)
			return s
		}
	}
	means := func(v *mulLDAVictim) protocol.Message {
		return proto.Means{Classes: 2, P: v.p, Means: make([]float64, 2*v.p), Counts: []float64{10, 10}}
	}
	direction := func(p int, w float64) func(*mulLDAVictim) protocol.Message {
		return func(v *mulLDAVictim) protocol.Message {
			d := proto.Direction{P: v.p + p, D: 1, W: make([]float64, v.p+p)}
			d.W[0] = w
			return d
		}
	}
	return []audit.HostileAttack{
		mulLDAAttack("share near 2^63", "dealer", "sends a noise share of 2⁶³ − 4 grid steps (the old owner paid, then wrapped the int64 sum)", audit.HostileRefused, mulLDAFresh,
			shares(func(s *proto.Shares) { s.Upper[0] = math.MaxInt64 - 3 })),
		mulLDAAttack("negative share past the bound", "dealer", "sends a noise share of −2⁵³ grid steps", audit.HostileRefused, mulLDAFresh,
			shares(func(s *proto.Shares) { s.Sums[0] = -(1 << 53) })),
		mulLDAAttack("shares of another width", "dealer", "sends shares for p + 1 features", audit.HostileRefused, mulLDAFresh,
			shares(func(s *proto.Shares) {
				s.P++
				s.Sums = make([]int64, s.Classes*s.P)
				s.Upper = make([]int64, s.P*(s.P+1)/2)
			})),
		mulLDAAttack("shares for three classes", "dealer", "sends shares for 3 classes of a 2-class session", audit.HostileRefused, mulLDAFresh,
			shares(func(s *proto.Shares) {
				s.Classes = 3
				s.Sums, s.Counts = make([]int64, 3*s.P), make([]int64, 3)
			})),
		mulLDAAttack("shares missing the counts", "dealer", "sends no shares for the noised class counts", audit.HostileRefused, mulLDAFresh,
			shares(func(s *proto.Shares) { s.Counts = nil })),
		mulLDAAttack("shares from the publisher", "publisher", "sends the owner noise shares itself, as if it were the dealer", audit.HostileRefused, mulLDAFresh,
			shares(func(*proto.Shares) {})),
		mulLDAAttack("replayed shares", "dealer", "sends the owner's shares again after it sent its sums", audit.HostileIgnored, mulLDAAfterSums,
			shares(func(*proto.Shares) {})),
		mulLDAAttack("means before the sums", "publisher", "sends the means while the owner still waits for its shares", audit.HostileIgnored, mulLDAFresh, means),
		mulLDAAttack("replayed means", "publisher", "sends the means again after the owner sent its second moment", audit.HostileIgnored, mulLDAAfterSecond, means),
		mulLDAAttack("direction before the second moment", "publisher", "sends the direction before the means", audit.HostileIgnored, mulLDAAfterSums, direction(0, 1)),
		mulLDAAttack("direction of another width", "publisher", "sends a direction over p + 1 features", audit.HostileRefused, mulLDAAfterSecond, direction(1, 1)),
		mulLDAAttack("non-finite direction", "publisher", "sends a direction holding NaN", audit.HostileRefused, mulLDAAfterSecond, direction(0, math.NaN())),
		mulLDASessionAttack("session with another schema", "sends the session with feature f1 in [0, 100], not the owner's [0, 1]", func(s map[string]any) { audit.Attr(s, 0)["max"] = 100 }),
		mulLDASessionAttack("session without its dealer", "sends the correlated-noise session with no dealer, so that no share would hide the owner's statistics", func(s map[string]any) { delete(s, "dealer") }),
		mulLDASessionAttack("session with δ = 1", "sends the session with δ = 1", func(s map[string]any) { s["settings"].(map[string]any)["delta"] = 1 }),
	}
}

// mulLDAStage is how far owner 1 got before the attack.
type mulLDAStage int

const (
	mulLDAFresh       mulLDAStage = iota // started, waiting for its shares
	mulLDAAfterSums                      // its class sums sent
	mulLDAAfterSecond                    // its second moment sent
)

type mulLDAVictim struct {
	owner  *proto.Owner
	acct   *privacy.Accountant
	shares proto.Shares // the dealer's honest shares for owner 1
	p      int
}

func mulLDATables() map[string]*data.Table {
	s := data.Schema{Attributes: []data.Attribute{
		{Name: "f1", Kind: data.Numeric, Min: 0, Max: 1},
		{Name: "f2", Kind: data.Numeric, Min: 0, Max: 1},
		{Name: "y", Kind: data.Categorical, Categories: []string{"a", "b"}},
	}}
	out := map[string]*data.Table{}
	for k, name := range []string{"owner-1", "owner-2"} {
		t := &data.Table{Schema: s}
		for i := range 20 {
			c := float64((i + k) % 2)
			t.Rows = append(t.Rows, []float64{0.2 + 0.5*c, float64(i%5) / 5, c})
		}
		out[name] = t
	}
	return out
}

// mulLDABuild opens the method's session (ε = 1, δ = 10⁻⁵, sound,
// correlated noise) over two owners and a dealer.
func mulLDABuild() (*method.Built, map[string]*data.Table, error) {
	tables := mulLDATables()
	b, err := method.BuildLocal(ldaspec.Multi, &ldaspec.Settings{Label: "y", Epsilon: 1, Delta: 1e-5},
		method.LocalOptions{Members: map[string][]string{method.RoleOwner: {"owner-1", "owner-2"}, ldaspec.RoleDealer: {"dealer"}},
			Data: tables, Source: randx.NewSeeded(4)})
	return b, tables, err
}

func newMulLDAVictim(stage mulLDAStage) (*mulLDAVictim, error) {
	b, _, err := mulLDABuild()
	if err != nil {
		return nil, err
	}
	v := &mulLDAVictim{p: 2}
	var dealer protocol.Role
	for i, r := range b.Roles {
		switch r.ID() {
		case "owner-1":
			w, ok := method.Unwrap(r).(*proto.Owner)
			if !ok {
				return nil, fmt.Errorf("audit: owner-1's role is a %T", r)
			}
			v.owner, v.acct = w, b.Accountants[i]
		case "dealer":
			dealer = r
		}
	}
	if v.owner == nil || dealer == nil {
		return nil, fmt.Errorf("audit: the session has no owner-1 or no dealer")
	}
	if out, err := v.owner.Start(); err != nil || len(out) != 0 {
		return nil, fmt.Errorf("audit: owner 1 started with %d messages (%v), want to wait for its shares", len(out), err)
	}
	dealt, err := dealer.Start()
	if err != nil {
		return nil, err
	}
	var honest protocol.Envelope
	for _, e := range dealt {
		if e.To == "owner-1" {
			honest = e
		}
	}
	if err := v.shares.UnmarshalBinary(honest.Payload); err != nil {
		return nil, err
	}
	steps := []protocol.Envelope{honest}
	if stage >= mulLDAAfterSecond {
		means, err := protocol.Seal("", b.Session.Head().Coordinator, "owner-1", proto.Means{Classes: 2, P: v.p, Means: make([]float64, 2*v.p), Counts: []float64{10, 10}})
		if err != nil {
			return nil, err
		}
		steps = append(steps, means)
	}
	for _, e := range steps[:min(int(stage), len(steps))] {
		if out, err := v.owner.Handle(e); err != nil || len(out) != 1 {
			return nil, fmt.Errorf("audit: the honest %s before the attack: %d messages, %v", e.Type, len(out), err)
		}
	}
	return v, nil
}

// mulLDAAttack sends owner 1 the message m(victim) from the named member
// (the publisher or the dealer). No attack here may be answered: any
// charge or message is wrong.
func mulLDAAttack(name, from, attempt string, expect audit.HostileExpect, stage mulLDAStage, m func(*mulLDAVictim) protocol.Message) audit.HostileAttack {
	return audit.HostileAttack{Method: ldaspec.NameMulti, Name: name, Attempt: attempt, Expect: expect, Try: func() (audit.HostileOutcome, error) {
		v, err := newMulLDAVictim(stage)
		if err != nil {
			return audit.HostileOutcome{}, err
		}
		e, err := protocol.Seal("", from, v.owner.ID(), m(v))
		if err != nil {
			return audit.HostileOutcome{}, err
		}
		n := len(v.acct.Charges())
		out, err := protocol.Safely(v.owner.ID(), "handling "+e.Type, func() ([]protocol.Envelope, error) { return v.owner.Handle(e) })
		return audit.MemberOutcome(err, v.acct.Charges()[n:], out, nil), nil
	}}
}

func mulLDASessionAttack(name, attempt string, edit func(map[string]any)) audit.HostileAttack {
	return audit.HostileAttack{Method: ldaspec.NameMulti, Name: name, Attempt: attempt, Expect: audit.HostileRefused, Try: func() (audit.HostileOutcome, error) {
		b, tables, err := mulLDABuild()
		if err != nil {
			return audit.HostileOutcome{}, err
		}
		return audit.HostileJoin(ldaspec.Multi, b.Session, "owner-1", tables["owner-1"], b.Accountants[0].Budget(), edit)
	}}
}
