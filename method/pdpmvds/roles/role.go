package roles

import (
	"fmt"
	"strings"

	"github.com/dppub/dppub/protocol"
)

// base is what Party and ThirdParty share: the session, the operation
// meter, and the jobs (one per request in flight) with their inboxes.
// Roles are step objects: they buffer messages until a step has all its
// inputs, run it (in parallel inside the call when it is heavy), and
// return the messages it produces.
type base struct {
	id      string
	session Session
	meter   meter
	jobs    map[uint64]*job
	out     []protocol.Envelope
	// early holds messages that arrived before their request did: over a
	// network only each sender's own messages keep their order, so a
	// fellow role's message can overtake the coordinator's request.
	early    map[uint64][]protocol.Envelope
	nEarly   int
	finished map[uint64]bool
	// openJob opens the job of a request from the coordinator: the role's
	// own part of the work (Party.open, ThirdParty.open).
	openJob func(*Request) (*job, error)
}

// maxEarly bounds the messages a role buffers for requests not yet open.
const maxEarly = 1 << 16

// job is one request in flight at one role.
type job struct {
	req   *Request
	inbox map[string]*Body
	// flow runs the role's part of the request: it is called after every
	// message and returns true when the role has finished.
	flow func(*job) (bool, error)
	// state holds the flow's progress.
	state any
}

func inboxKey(kind, from string, stage, index int) string {
	return fmt.Sprintf("%s|%s|%d|%d", kind, from, stage, index)
}

// take returns and removes a buffered message, or nil.
func (j *job) take(kind, from string, stage, index int) *Body {
	k := inboxKey(kind, from, stage, index)
	m := j.inbox[k]
	if m != nil {
		delete(j.inbox, k)
	}
	return m
}

// has reports whether a message is buffered.
func (j *job) has(kind, from string, stage, index int) bool {
	return j.inbox[inboxKey(kind, from, stage, index)] != nil
}

func (b *base) ID() string { return b.id }

// Done reports whether the role has no request in flight.
func (b *base) Done() bool { return len(b.jobs) == 0 && b.nEarly == 0 }

// send queues a body for another role.
func (b *base) send(to string, m *Body) error {
	e, err := protocol.Seal("", b.id, to, m)
	if err != nil {
		return err
	}
	b.out = append(b.out, e)
	return nil
}

// flush returns the queued envelopes.
func (b *base) flush() []protocol.Envelope {
	out := b.out
	b.out = nil
	return out
}

// Ops returns the role's Paillier operation counts so far.
func (b *base) Ops() Ops { return b.meter.snapshot() }

// Start sends nothing: a party, like S, waits for the coordinator's
// requests.
func (b *base) Start() ([]protocol.Envelope, error) { return nil, nil }

// Handle processes one message: a request opens a job (through openJob), any
// other body is buffered in its job, and the job's flow runs.
func (b *base) Handle(e protocol.Envelope) ([]protocol.Envelope, error) {
	if e.Type == (&Request{}).MessageType() {
		if e.From != CoordinatorID {
			return nil, fmt.Errorf("pdpmvds: %s: request from %q, not the coordinator", b.id, e.From)
		}
		var q Request
		if err := q.UnmarshalBinary(e.Payload); err != nil {
			return nil, err
		}
		if _, dup := b.jobs[q.ID]; dup {
			return nil, fmt.Errorf("pdpmvds: %s: request %d opened twice", b.id, q.ID)
		}
		if b.finished[q.ID] {
			return nil, fmt.Errorf("pdpmvds: %s: request %d opened again after it finished", b.id, q.ID)
		}
		j, err := b.openJob(&q)
		if err != nil {
			return nil, err
		}
		b.jobs[q.ID] = j
		out, err := b.run(j)
		if err != nil {
			return nil, err
		}
		early := b.early[q.ID]
		delete(b.early, q.ID)
		b.nEarly -= len(early)
		more, err := protocol.HandleEach(early, b.Handle)
		if err != nil {
			return nil, err
		}
		return append(out, more...), nil
	}
	if !strings.HasPrefix(e.Type, typePrefix) {
		return nil, fmt.Errorf("pdpmvds: %s: unexpected message type %q", b.id, e.Type)
	}
	var m Body
	if err := m.UnmarshalBinary(e.Payload); err != nil {
		return nil, err
	}
	if m.MessageType() != e.Type {
		return nil, fmt.Errorf("pdpmvds: %s: envelope type %q carries a %q body", b.id, e.Type, m.Kind)
	}
	j := b.jobs[m.ID]
	if j == nil {
		return nil, b.keepEarly(e, &m)
	}
	k := inboxKey(m.Kind, e.From, m.Stage, m.Index)
	if j.inbox[k] != nil {
		return nil, fmt.Errorf("pdpmvds: %s: duplicate %s from %s (stage %d, index %d)", b.id, m.Kind, e.From, m.Stage, m.Index)
	}
	j.inbox[k] = &m
	return b.run(j)
}

func (b *base) run(j *job) ([]protocol.Envelope, error) {
	done, err := j.flow(j)
	if err != nil {
		return nil, fmt.Errorf("pdpmvds: %s, request %d (%s): %w", b.id, j.req.ID, j.req.Kind, err)
	}
	if done {
		if len(j.inbox) > 0 {
			return nil, fmt.Errorf("pdpmvds: %s finished request %d with %d unread messages", b.id, j.req.ID, len(j.inbox))
		}
		delete(b.jobs, j.req.ID)
		if b.finished == nil {
			b.finished = map[uint64]bool{}
		}
		b.finished[j.req.ID] = true
	}
	return b.flush(), nil
}

// keepEarly buffers a message whose request is not open yet; one for a
// finished request is an error.
func (b *base) keepEarly(e protocol.Envelope, m *Body) error {
	if b.finished[m.ID] {
		return fmt.Errorf("pdpmvds: %s: %s from %s for request %d, which has finished", b.id, m.Kind, e.From, m.ID)
	}
	if b.nEarly >= maxEarly {
		return fmt.Errorf("pdpmvds: %s: more than %d messages for requests that are not open", b.id, maxEarly)
	}
	if b.early == nil {
		b.early = map[uint64][]protocol.Envelope{}
	}
	b.early[m.ID] = append(b.early[m.ID], e)
	b.nEarly++
	return nil
}

func newJob(q *Request, flow func(*job) (bool, error)) *job {
	return &job{req: q, inbox: map[string]*Body{}, flow: flow}
}
