package protocol

import (
	"context"
	"fmt"
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
// memory, exactly as over a network. Messages are delivered in FIFO order.
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
	for _, r := range roles {
		out, err := r.Start()
		if err != nil {
			return stats, fmt.Errorf("protocol: %s: start: %w", r.ID(), err)
		}
		if err := post(out); err != nil {
			return stats, err
		}
	}
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return stats, fmt.Errorf("protocol: %w", err)
		}
		var e Envelope
		if err := e.UnmarshalBinary(queue[0]); err != nil {
			return stats, err
		}
		queue = queue[1:]
		stats.Messages++
		out, err := byID[e.To].Handle(e)
		if err != nil {
			return stats, fmt.Errorf("protocol: %s handling %s from %s: %w", e.To, e.Type, e.From, err)
		}
		if err := post(out); err != nil {
			return stats, err
		}
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
