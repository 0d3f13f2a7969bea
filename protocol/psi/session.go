package psi

import (
	"fmt"

	"github.com/dppub/dppub/internal/wire"
	"github.com/dppub/dppub/protocol"
)

// TypeCount is the message that carries the linkage's outcome to a member
// that takes no part in it.
const TypeCount = "psi/count"

// CountMsg is the size of the intersection: what a party tells the
// session's coordinator once it has linked, and what the coordinator then
// tells the members that did not link (a third party), so that every role
// of the method that follows starts from the same public record count.
type CountMsg struct {
	Common int
}

func (CountMsg) MessageType() string { return TypeCount }

func (m CountMsg) MarshalBinary() ([]byte, error) {
	return wire.Marshal(wire.Tag("PSC1"), &m.Common), nil
}

func (m *CountMsg) UnmarshalBinary(b []byte) error {
	if err := wire.Unmarshal(b, "psi: count", wire.Tag("PSC1"), &m.Common); err != nil {
		return err
	}
	if m.Common < 0 {
		return fmt.Errorf("psi: count %d is negative", m.Common)
	}
	return nil
}

// maxHeld bounds the messages a role keeps for the method that follows the
// linkage while the linkage is still running. A session's next method
// starts only once every party has reported (Counter), so an honest run
// holds only the few messages that overtake the last linkage message.
const maxHeld = 1 << 12

// Linking is a party's role in a session that links the parties' records
// first and then runs another method's role on the linked rows: it runs
// Party until the party holds its common rows, reports their number to
// the coordinator, builds the next role from the result (Next) and hands
// it every later message. Messages of the next method that arrive before
// the linkage ends (a network keeps only each sender's own order) are
// held and handed over in arrival order.
type Linking struct {
	psi         *Party
	coordinator string
	next        func(*Result) (protocol.Role, error)
	inner       protocol.Role
	held        protocol.Held
}

// NewLinking runs p, then the role next builds from p's result;
// coordinator is the role told the size of the intersection ("" for
// nobody).
func NewLinking(p *Party, coordinator string, next func(*Result) (protocol.Role, error)) *Linking {
	return &Linking{psi: p, coordinator: coordinator, next: next}
}

// ID is the party's.
func (l *Linking) ID() string { return l.psi.ID() }

// PSI is the linkage role, for a caller that drives the linkage itself
// (in one process) and then calls Finish.
func (l *Linking) PSI() *Party { return l.psi }

// Done reports whether the next role is done.
func (l *Linking) Done() bool { return l.inner != nil && l.inner.Done() }

// Unwrap is the next role once built, the linkage role before.
func (l *Linking) Unwrap() protocol.Role {
	if l.inner != nil {
		return l.inner
	}
	return l.psi
}

// Start starts the linkage.
func (l *Linking) Start() ([]protocol.Envelope, error) { return l.psi.Start() }

// Handle feeds the linkage its messages and the next role the others.
func (l *Linking) Handle(e protocol.Envelope) ([]protocol.Envelope, error) {
	if e.Type != TypeBlinded && e.Type != TypeFull {
		if l.inner != nil {
			return l.inner.Handle(e)
		}
		if !l.held.Hold(e, maxHeld) {
			return nil, fmt.Errorf("psi: party %s holds %d messages for after the linkage, which has not ended", l.ID(), maxHeld)
		}
		return nil, nil
	}
	out, err := l.psi.Handle(e)
	if err != nil || !l.psi.Done() || l.inner != nil {
		return out, err
	}
	more, err := l.Finish()
	return append(out, more...), err
}

// Finish builds the next role from the linkage's result, once the
// linkage is done: it returns the count for the coordinator, the next
// role's first messages and its answers to the messages held so far.
func (l *Linking) Finish() ([]protocol.Envelope, error) {
	if l.inner != nil {
		return nil, fmt.Errorf("psi: party %s has already finished its linkage", l.ID())
	}
	res, err := l.psi.Result()
	if err != nil {
		return nil, err
	}
	inner, err := l.next(res)
	if err != nil {
		return nil, err
	}
	var to []string
	if l.coordinator != "" {
		to = []string{l.coordinator}
	}
	out, err := protocol.Broadcast(l.psi.o.Params.Session, l.ID(), to, CountMsg{Common: len(res.Rows)})
	if err != nil {
		return nil, err
	}
	l.inner = inner
	return l.held.StartAfter(out, inner)
}

// Counter is the coordinator's role in a session that links its parties'
// records first: it waits for every party's count of common records,
// refuses counts that differ (the parties did not link the same sets),
// tells the count to the members that did not link (Notify), and then
// runs the role Next builds for that record count, handing it the
// messages a party sent after its count while others had not linked yet.
// It sees no blinded set: the parties exchange those among themselves.
type Counter struct {
	id      string
	parties []string
	notify  []string
	session string
	next    func(common int) (protocol.Role, error)
	counts  map[string]int
	held    protocol.Held
	inner   protocol.Role
}

// NewCounter waits for the counts of parties (role IDs), then tells
// notify and runs next's role.
func NewCounter(id, session string, parties, notify []string, next func(common int) (protocol.Role, error)) *Counter {
	return &Counter{id: id, session: session, parties: parties, notify: notify, next: next, counts: map[string]int{}}
}

// ID is the coordinator's.
func (c *Counter) ID() string { return c.id }

// Done reports whether the next role is done.
func (c *Counter) Done() bool { return c.inner != nil && c.inner.Done() }

// Unwrap is the next role once built, nil before.
func (c *Counter) Unwrap() protocol.Role { return c.inner }

// Common is the size of the intersection once every party has reported
// it (-1 before).
func (c *Counter) Common() int {
	if c.inner == nil {
		return -1
	}
	return c.counts[c.parties[0]]
}

// Start sends nothing: the parties link first.
func (c *Counter) Start() ([]protocol.Envelope, error) { return nil, nil }

// Handle collects the counts, then hands every message to the next role.
func (c *Counter) Handle(e protocol.Envelope) ([]protocol.Envelope, error) {
	if c.inner != nil {
		return c.inner.Handle(e)
	}
	if e.Type != TypeCount {
		// A party's next messages follow its count (the network keeps
		// each sender's order), but may overtake another party's count:
		// they wait for the next role. Before its own count a party has
		// not linked.
		if _, counted := c.counts[e.From]; !counted {
			return nil, fmt.Errorf("psi: the coordinator got %s from %s before every party had linked", e.Type, e.From)
		}
		if !c.held.Hold(e, maxHeld) {
			return nil, fmt.Errorf("psi: the coordinator holds %d messages and not every party has linked", maxHeld)
		}
		return nil, nil
	}
	known := false
	for _, p := range c.parties {
		known = known || p == e.From
	}
	if !known {
		return nil, fmt.Errorf("psi: the coordinator got a count from %s, not a party of the linkage", e.From)
	}
	var m CountMsg
	if err := m.UnmarshalBinary(e.Payload); err != nil {
		return nil, err
	}
	if prev, dup := c.counts[e.From]; dup {
		if prev != m.Common {
			return nil, fmt.Errorf("psi: %s reported %d common records, then %d", e.From, prev, m.Common)
		}
		return nil, nil
	}
	for p, n := range c.counts {
		if n != m.Common {
			return nil, fmt.Errorf("psi: %s reports %d common records, %s %d: the parties did not link the same sets", e.From, m.Common, p, n)
		}
	}
	c.counts[e.From] = m.Common
	if len(c.counts) < len(c.parties) {
		return nil, nil
	}
	inner, err := c.next(m.Common)
	if err != nil {
		return nil, err
	}
	out, err := protocol.Broadcast(c.session, c.id, c.notify, CountMsg{Common: m.Common})
	if err != nil {
		return nil, err
	}
	c.inner = inner
	return c.held.StartAfter(out, inner)
}

// Awaiting is the role of a member that takes no part in the linkage (a
// third party): it waits for the coordinator's count, then runs the role
// Next builds for that record count. Messages of the next method that
// overtake the count are held.
type Awaiting struct {
	protocol.Prelude
	next func(common int) (protocol.Role, error)
}

// NewAwaiting waits for coordinator's count, then runs next's role.
func NewAwaiting(id, coordinator string, next func(common int) (protocol.Role, error)) *Awaiting {
	a := &Awaiting{next: next}
	a.Prelude = protocol.NewPrelude(protocol.PreludeOptions{
		Package: "psi", Member: id, Coordinator: coordinator, Awaited: TypeCount,
		Describe: "the linkage's count", Limit: maxHeld, RepeatOK: true,
		Take: func(payload []byte) ([]protocol.Envelope, error) {
			var m CountMsg
			if err := m.UnmarshalBinary(payload); err != nil {
				return nil, err
			}
			return a.Begin(m.Common)
		},
	})
	return a
}

// Start sends nothing.
func (a *Awaiting) Start() ([]protocol.Envelope, error) { return nil, nil }

// Begin builds the next role for common records (the count the
// coordinator sends; in one process, the caller gives it) and hands it
// the messages held so far.
func (a *Awaiting) Begin(common int) ([]protocol.Envelope, error) {
	return a.Prelude.Begin(func() (protocol.Role, error) { return a.next(common) })
}
