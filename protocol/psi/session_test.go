package psi

import (
	"context"
	"strings"
	"testing"

	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// after is the role a session runs after the linkage: it records what it
// was built for and every message handed to it.
type after struct {
	id     string
	common int
	got    []string
}

func (a *after) ID() string                          { return a.id }
func (a *after) Start() ([]protocol.Envelope, error) { return nil, nil }
func (a *after) Done() bool                          { return true }
func (a *after) Handle(e protocol.Envelope) ([]protocol.Envelope, error) {
	a.got = append(a.got, e.Type)
	return nil, nil
}

// note is a message of the method that follows the linkage.
type note struct{}

func (note) MessageType() string            { return "next/note" }
func (note) MarshalBinary() ([]byte, error) { return []byte{1}, nil }

// Three linking parties, a counting coordinator and an awaiting third
// party: the coordinator and the third party are told the size of the
// intersection, each party's next role is built on its common rows.
func TestLinkedSession(t *testing.T) {
	p := params(3)
	ids := sets(3, 80, 30, 10, randx.NewSeeded(2))
	ps := parties(t, p, ids, 3)
	var roles []protocol.Role
	nexts := make([]*after, 3)
	for i, party := range ps {
		link := NewLinking(party, "coordinator", func(res *Result) (protocol.Role, error) {
			nexts[i] = &after{id: party.ID(), common: len(res.Rows)}
			return nexts[i], nil
		})
		roles = append(roles, link)
	}
	var coord, third *after
	roles = append(roles,
		NewCounter("coordinator", "link", p.Parties, []string{"third"}, func(n int) (protocol.Role, error) {
			coord = &after{id: "coordinator", common: n}
			return coord, nil
		}),
		NewAwaiting("third", "coordinator", func(n int) (protocol.Role, error) {
			third = &after{id: "third", common: n}
			return third, nil
		}))
	stats, err := protocol.RunLocal(context.Background(), roles...)
	if err != nil {
		t.Fatal(err)
	}
	// 12 linkage messages, 3 counts to the coordinator, 1 to the third party.
	if stats.Messages != 16 {
		t.Errorf("%d messages, want 16", stats.Messages)
	}
	for i, n := range nexts {
		if n == nil || n.common != 30 {
			t.Fatalf("party %d's next role: %+v", i+1, n)
		}
	}
	if coord == nil || coord.common != 30 || third == nil || third.common != 30 {
		t.Fatalf("coordinator %+v, third party %+v", coord, third)
	}
	checkAligned(t, ps, ids, 30)
}

// Messages of the next method that overtake the end of the linkage are
// held and handed over in order; counts that differ are refused.
func TestLinkedSessionHoldsAndRefuses(t *testing.T) {
	seal := sealer(t)
	var third *after
	wait := NewAwaiting("third", "coordinator", func(n int) (protocol.Role, error) {
		third = &after{id: "third", common: n}
		return third, nil
	})
	if out, err := wait.Handle(seal("party-1", "third", note{})); err != nil || len(out) != 0 {
		t.Fatalf("an early message: %v, %v", out, err)
	}
	if _, err := wait.Handle(seal("party-1", "third", CountMsg{Common: 5})); err == nil || !strings.Contains(err.Error(), "not from the coordinator") {
		t.Errorf("a count from a party: %v", err)
	}
	if _, err := wait.Handle(seal("coordinator", "third", CountMsg{Common: 5})); err != nil {
		t.Fatal(err)
	}
	if third.common != 5 || len(third.got) != 1 || third.got[0] != "next/note" {
		t.Errorf("the third party's next role: %+v", third)
	}
	for _, c := range []struct {
		name, want string
		msgs       []protocol.Envelope
	}{
		{"counts differ", "did not link the same sets",
			[]protocol.Envelope{seal("party-1", "coordinator", CountMsg{Common: 5}), seal("party-2", "coordinator", CountMsg{Common: 6})}},
		{"not a party", "not a party of the linkage", []protocol.Envelope{seal("mallory", "coordinator", CountMsg{Common: 5})}},
		{"too early", "before every party had linked", []protocol.Envelope{seal("party-1", "coordinator", note{})}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cnt := NewCounter("coordinator", "link", []string{"party-1", "party-2"}, nil, func(int) (protocol.Role, error) {
				return &after{id: "coordinator"}, nil
			})
			var err error
			for _, m := range c.msgs {
				if _, err = cnt.Handle(m); err != nil {
					break
				}
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error saying %q", err, c.want)
			}
		})
	}
	var m CountMsg
	b, _ := CountMsg{Common: 7}.MarshalBinary()
	if err := m.UnmarshalBinary(b); err != nil || m.Common != 7 {
		t.Errorf("count round trip: %+v, %v", m, err)
	}
	if err := m.UnmarshalBinary(append(b, 0)); err == nil {
		t.Error("trailing bytes were accepted")
	}
}

// A party's message that follows its count but overtakes another
// party's count waits at the Counter and reaches the next role after
// the count's notice and the role's first messages.
func TestCounterHoldsWhatOvertakesACount(t *testing.T) {
	seal := sealer(t)
	var next *after
	cnt := NewCounter("coordinator", "link", []string{"party-1", "party-2"}, []string{"third"}, func(n int) (protocol.Role, error) {
		next = &after{id: "coordinator", common: n}
		return next, nil
	})
	for _, m := range []protocol.Envelope{seal("party-1", "coordinator", CountMsg{Common: 5}), seal("party-1", "coordinator", note{})} {
		if out, err := cnt.Handle(m); err != nil || len(out) != 0 {
			t.Fatalf("before party-2's count: %v, %v", out, err)
		}
	}
	out, err := cnt.Handle(seal("party-2", "coordinator", CountMsg{Common: 5}))
	if err != nil {
		t.Fatal(err)
	}
	if next == nil || next.common != 5 || len(next.got) != 1 || next.got[0] != "next/note" {
		t.Fatalf("the next role: %+v", next)
	}
	if len(out) == 0 || out[0].To != "third" || out[0].Type != TypeCount {
		t.Errorf("first message out %+v, want the count to the third party", out)
	}
}

// sealer seals test messages in the linkage's session.
func sealer(t *testing.T) func(from, to string, m protocol.Message) protocol.Envelope {
	return func(from, to string, m protocol.Message) protocol.Envelope {
		t.Helper()
		e, err := protocol.Seal("link", from, to, m)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
}
