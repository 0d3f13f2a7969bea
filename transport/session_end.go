// How a session ends: success or failure, closing (which retires it and
// releases its budget reservation), a participant's watchdog on a silent
// coordinator, and what a node remembers of a closed session.

package transport

import (
	"fmt"
	"maps"
	"time"

	"connectrpc.com/connect"
	"github.com/dppub/dppub/budgetstore"
)

// succeed marks the session done; a participant retires it, a coordinator
// leaves that to Run.
func (s *session) succeed() {
	s.mu.Lock()
	if s.state == stateDone || s.state == stateFailed {
		s.mu.Unlock()
		return
	}
	s.state = stateDone
	close(s.finished)
	s.mu.Unlock()
	if !s.coordinator {
		s.n.log.Info("session done", "session", s.id)
		s.close()
	}
}

// fail ends the session with err; notify tells the coordinator (from a
// participant) when the failure is this member's own.
func (s *session) fail(err error, notify bool) {
	s.mu.Lock()
	if s.state == stateDone || s.state == stateFailed {
		s.mu.Unlock()
		return
	}
	s.state, s.err = stateFailed, err
	close(s.finished)
	s.mu.Unlock()
	s.n.log.Warn("session failed", "session", s.id, "error", err)
	if s.coordinator {
		return // Run ends it with every participant
	}
	if notify {
		go s.n.notify(s.coordinatorName, s.addrs[s.coordinatorName], s.id, TypeAbort, Notice{Reason: err.Error()})
	}
	s.close()
}

// own names the coordinator in its own failures; a participant's failure
// reaches the coordinator, which names the participant.
func (s *session) own(err error) error {
	if s.coordinator {
		return fmt.Errorf("%s (the coordinator): %w", s.self, err)
	}
	return err
}

// close stops the session's goroutines, retires it and releases its
// budget reservation: the session's context is cancelled first, so that
// nothing of it is sent afterwards, and the ledger refuses any later
// charge of a role still computing.
func (s *session) close() {
	s.cancel()
	s.mu.Lock()
	c := &closedSession{coordinator: s.coordinatorName, state: s.state, lastSeq: maps.Clone(s.lastSeq)}
	if s.err != nil {
		c.err = s.err.Error()
	}
	s.mu.Unlock()
	s.n.retire(s, c)
	state := budgetstore.ReservationDone
	if c.state != stateDone {
		state = budgetstore.ReservationAborted
	}
	s.n.release(s.id, s.tracker, state, c.err)
}

// watchdog fails a participant's session when the coordinator has gone
// silent. A live coordinator polls every participant each ping interval,
// from the moment the participant accepts (even while others are still
// joining) until the session ends, whatever its own role is doing; so a
// silence as long as the coordinator allows a participant
// (unreachable_after, plus one ping interval for the poll in flight)
// means that it is gone, and the session's reservation is released.
func (s *session) watchdog() {
	limit := s.n.limits.UnreachableAfter.Duration + s.n.limits.PingInterval.Duration
	t := time.NewTicker(s.n.limits.PingInterval.Duration)
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
		s.mu.Lock()
		silent := time.Since(s.lastContact)
		s.mu.Unlock()
		if silent > limit {
			s.fail(fmt.Errorf("lost contact with the coordinator %s for %v", s.coordinatorName, silent.Round(time.Millisecond)), true)
			return
		}
	}
}

// closedSession is what a node remembers of a finished session.
type closedSession struct {
	coordinator string
	state, err  string
	lastSeq     map[string]uint64
}

// accept acknowledges late retries of a finished session and refuses
// anything new.
func (c *closedSession) accept(env envelope) (bool, error) {
	if env.Seq != 0 && env.Seq <= c.lastSeq[env.From] {
		return true, nil
	}
	if env.Seq == 0 {
		return false, nil // a late abort or end: the session is over anyway
	}
	return false, connect.NewError(connect.CodeFailedPrecondition, fmt.Errorf("session is over (%s)", c.state))
}
