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

// RunLocal drives roles in one process until every role is done. Every
// envelope is marshalled and unmarshalled on its way, so roles share no
// memory, exactly as over a network. A panic inside a role's step ends the
// run with a *PanicError naming the role (Safely). Messages are delivered in FIFO order;
// a Streamer's next batch is asked for only once every queued message has
// been delivered, so at most one batch of a stream is held at a time.
func RunLocal(ctx context.Context, roles ...Role) (*Stats, error) {
	byID := make(map[string]Role, len(roles))
	for _, r := range roles {
		if _, dup := byID[r.ID()]; dup {
			return nil, fmt.Errorf("protocol: two roles named %q", r.ID())
		}
		byID[r.ID()] = r
	}
	stats := &Stats{Bytes: map[string]int{}}
	seq := map[[2]string]uint64{}
	var queue [][]byte
	var streams []Streamer // roles whose More may have batches left, in order
	post := func(out []Envelope) error {
		for _, e := range out {
			if _, ok := byID[e.To]; !ok {
				return fmt.Errorf("protocol: %s sent %s to unknown role %q", e.From, e.Type, e.To)
			}
			key := [2]string{e.From, e.To}
			seq[key]++
			e.Seq = seq[key]
			b, err := e.MarshalBinary()
			if err != nil {
				return err
			}
			stats.Bytes[e.From] += len(b)
			queue = append(queue, b)
		}
		return nil
	}
	watch := func(r Role) {
		if s, ok := r.(Streamer); ok && !slices.Contains(streams, s) {
			streams = append(streams, s)
		}
	}
	for _, r := range roles {
		out, err := Safely(r.ID(), "start", r.Start)
		if err != nil {
			return stats, fmt.Errorf("protocol: %s: start: %w", r.ID(), err)
		}
		if err := post(out); err != nil {
			return stats, err
		}
		watch(r)
	}
	for len(queue) > 0 || len(streams) > 0 {
		if err := ctx.Err(); err != nil {
			return stats, fmt.Errorf("protocol: %w", err)
		}
		if len(queue) == 0 {
			out, err := Safely(streams[0].ID(), "streaming", streams[0].More)
			if err != nil {
				return stats, fmt.Errorf("protocol: %s: streaming: %w", streams[0].ID(), err)
			}
			if len(out) == 0 {
				streams = streams[1:]
			}
			if err := post(out); err != nil {
				return stats, err
			}
			continue
		}
		var e Envelope
		if err := e.UnmarshalBinary(queue[0]); err != nil {
			return stats, err
		}
		queue = queue[1:]
		stats.Messages++
		to := byID[e.To]
		out, err := Safely(e.To, "handling "+e.Type+" from "+e.From, func() ([]Envelope, error) { return to.Handle(e) })
		if err != nil {
			return stats, fmt.Errorf("protocol: %s handling %s from %s: %w", e.To, e.Type, e.From, err)
		}
		if err := post(out); err != nil {
			return stats, err
		}
		watch(byID[e.To])
	}
	var waiting []string
	for _, r := range roles {
		if !r.Done() {
			waiting = append(waiting, r.ID())
		}
	}
	if len(waiting) > 0 {
		sort.Strings(waiting)
		return stats, fmt.Errorf("protocol: no messages left but %s not done", strings.Join(waiting, ", "))
	}
	return stats, nil
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
