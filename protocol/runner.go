package protocol

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Stats counts what a local run moved.
type Stats struct {
	Messages int
	Bytes    map[string]int // bytes sent, by role
}

// TotalBytes is the bytes sent by every role together.
func (s *Stats) TotalBytes() int {
	n := 0
	for _, b := range s.Bytes {
		n += b
	}
	return n
}

// RunLocal drives roles in one process until every role is done. Every
// envelope is marshalled and unmarshalled on its way, so roles share no
// memory, exactly as over a network. A panic inside a role's step ends the
// run with a *PanicError naming the role (Safely). Messages are delivered in FIFO order;
// a Streamer's next batch is asked for only once every queued message has
// been delivered, so at most one batch of a stream is held at a time.
func RunLocal(ctx context.Context, roles ...Role) (*Stats, error) {
	lr := &localRun{byID: make(map[string]Role, len(roles)), stats: &Stats{Bytes: map[string]int{}}, seq: map[[2]string]uint64{}}
	for _, r := range roles {
		if _, dup := lr.byID[r.ID()]; dup {
			return nil, fmt.Errorf("protocol: two roles named %q", r.ID())
		}
		lr.byID[r.ID()] = r
	}
	for _, r := range roles {
		out, err := Safely(r.ID(), "start", r.Start)
		if err != nil {
			return lr.stats, fmt.Errorf("protocol: %s: start: %w", r.ID(), err)
		}
		if err := lr.post(out); err != nil {
			return lr.stats, err
		}
		lr.watch(r)
	}
	for len(lr.queue) > 0 || len(lr.streams) > 0 {
		if err := ctx.Err(); err != nil {
			return lr.stats, fmt.Errorf("protocol: %w", err)
		}
		var err error
		if len(lr.queue) == 0 {
			err = lr.nextBatch()
		} else {
			err = lr.deliver()
		}
		if err != nil {
			return lr.stats, err
		}
	}
	return lr.stats, notDone(roles)
}

// localRun is the state of RunLocal: the roles by ID, the messages
// queued as they would travel, and the streams that may have batches
// left.
type localRun struct {
	byID    map[string]Role
	stats   *Stats
	seq     map[[2]string]uint64 // the last sequence number from one role to another
	queue   [][]byte
	streams []Streamer // roles whose More may have batches left, in order
}

// post numbers and marshals the envelopes out and queues them, refusing
// one to an unknown role.
func (lr *localRun) post(out []Envelope) error {
	for _, e := range out {
		if _, ok := lr.byID[e.To]; !ok {
			return fmt.Errorf("protocol: %s sent %s to unknown role %q", e.From, e.Type, e.To)
		}
		key := [2]string{e.From, e.To}
		lr.seq[key]++
		e.Seq = lr.seq[key]
		b, err := e.MarshalBinary()
		if err != nil {
			return err
		}
		lr.stats.Bytes[e.From] += len(b)
		lr.queue = append(lr.queue, b)
	}
	return nil
}

// watch adds r to the streams if it is a Streamer not yet among them.
func (lr *localRun) watch(r Role) {
	if s, ok := r.(Streamer); ok && !slices.Contains(lr.streams, s) {
		lr.streams = append(lr.streams, s)
	}
}

// nextBatch asks the first stream for its next batch and posts it; a
// stream with nothing left is dropped.
func (lr *localRun) nextBatch() error {
	s := lr.streams[0]
	out, err := Safely(s.ID(), "streaming", s.More)
	if err != nil {
		return fmt.Errorf("protocol: %s: streaming: %w", s.ID(), err)
	}
	if len(out) == 0 {
		lr.streams = lr.streams[1:]
	}
	return lr.post(out)
}

// deliver hands the first queued message to its role and posts what the
// role sends back.
func (lr *localRun) deliver() error {
	var e Envelope
	if err := e.UnmarshalBinary(lr.queue[0]); err != nil {
		return err
	}
	lr.queue = lr.queue[1:]
	lr.stats.Messages++
	to := lr.byID[e.To]
	out, err := Safely(e.To, "handling "+e.Type+" from "+e.From, func() ([]Envelope, error) { return to.Handle(e) })
	if err != nil {
		return fmt.Errorf("protocol: %s handling %s from %s: %w", e.To, e.Type, e.From, err)
	}
	if err := lr.post(out); err != nil {
		return err
	}
	lr.watch(to)
	return nil
}

// notDone names the roles that are not done once no messages are left.
func notDone(roles []Role) error {
	var waiting []string
	for _, r := range roles {
		if !r.Done() {
			waiting = append(waiting, r.ID())
		}
	}
	if len(waiting) > 0 {
		sort.Strings(waiting)
		return fmt.Errorf("protocol: no messages left but %s not done", strings.Join(waiting, ", "))
	}
	return nil
}

// Recorder wraps a role and keeps every envelope it receives, in order:
// the role's view of a run, for tests and audits of what a party sees.
type Recorder struct {
	Role
	Received []Envelope
}

// Handle records e, then lets the wrapped role handle it.
func (r *Recorder) Handle(e Envelope) ([]Envelope, error) {
	r.Received = append(r.Received, e)
	return r.Role.Handle(e)
}
