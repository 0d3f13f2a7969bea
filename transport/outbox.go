// Sending: one outbox per session and member, which delivers the session's
// envelopes to that member in order, and the unsequenced notices (abort,
// end) sent outside any outbox.

package transport

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"
)

func (s *session) outbox(to string) *outbox {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.outboxes[to]
	if !ok {
		o = &outbox{s: s, to: to, addr: s.addrs[to], wake: make(chan struct{}, 1)}
		s.outboxes[to] = o
		go o.run()
	}
	return o
}

// pending lists the members with undelivered envelopes.
func (s *session) pending() []string {
	s.mu.Lock()
	boxes := slices.Collect(maps.Values(s.outboxes))
	s.mu.Unlock()
	var out []string
	for _, o := range boxes {
		if o.pending() {
			out = append(out, o.to)
		}
	}
	slices.Sort(out)
	return out
}

// outbox delivers one session's envelopes to one member in order.
type outbox struct {
	s    *session
	to   string
	addr string
	wake chan struct{}

	mu    sync.Mutex
	queue []outItem
	seq   uint64
}

type outItem struct {
	env  envelope
	done chan error
	// quiet leaves a delivery failure to whoever waits on done, instead of
	// failing the session at once (Open: the coordinator collects every
	// refusal).
	quiet bool
}

// enqueue numbers env and queues it; the channel reports its delivery.
func (o *outbox) enqueue(env envelope) <-chan error { return o.add(env, false) }

func (o *outbox) add(env envelope, quiet bool) <-chan error {
	o.mu.Lock()
	o.seq++
	env.Seq = o.seq
	done := make(chan error, 1)
	o.queue = append(o.queue, outItem{env: env, done: done, quiet: quiet})
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
	return done
}

func (o *outbox) pending() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.queue) > 0
}

func (o *outbox) peek() (outItem, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.queue) == 0 {
		return outItem{}, false
	}
	return o.queue[0], true
}

func (o *outbox) run() {
	s := o.s
	for {
		select {
		case <-s.ctx.Done():
			o.drain(s.ctx.Err())
			return
		case <-o.wake:
		}
		for {
			it, ok := o.peek()
			if !ok {
				break
			}
			lim := deliveryLimits{patience: s.n.limits.StepTimeout.Duration, note: s.note}
			if it.quiet {
				// An Open: before the watch's liveness check runs, a
				// member that cannot be connected to is unreachable after
				// the same unreachable_after.
				lim.silence = s.n.limits.UnreachableAfter.Duration
			}
			err := s.n.deliver(s.ctx, o.to, o.addr, it.env, lim)
			if err != nil {
				it.done <- err
				if s.ctx.Err() == nil && !it.quiet {
					s.fail(err, true)
				}
				o.drain(err)
				return
			}
			o.mu.Lock()
			o.queue = o.queue[1:]
			o.mu.Unlock()
			it.done <- nil
			s.mu.Lock()
			s.progress++
			s.messages++
			s.bytesSent += int64(len(it.env.Payload))
			s.mu.Unlock()
		}
	}
}

func (o *outbox) drain(err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, it := range o.queue {
		select {
		case it.done <- err:
		default:
		}
	}
}

// notify sends an unsequenced Abort or End, best effort and briefly.
func (n *Node) notify(to, addr, session, typ string, nt Notice) {
	b, _ := nt.MarshalBinary()
	// Brief: the recipient may be the member that died; its own watchdog
	// ends the session if this notice never arrives.
	patience := min(n.limits.UnreachableAfter.Duration, time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), patience+time.Second)
	defer cancel()
	env := envelope{Session: session, From: n.self.Name, To: to, Type: typ, Payload: b}
	if err := n.deliver(ctx, to, addr, env, deliveryLimits{patience: patience}); err != nil {
		n.log.Warn("could not notify", "to", to, "type", typ, "session", session, "error", err)
	}
}
