package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"connectrpc.com/connect"
	"github.com/dppub/dppub/randx"
	"github.com/dppub/dppub/transport/gen/transportv1"
)

// RunOptions configure a session started by Run.
type RunOptions struct {
	// Method is the registered method's name.
	Method string
	// Settings are the method's settings (JSON).
	Settings json.RawMessage
	// Source is the coordinator's randomness (default secure). A seeded
	// Source makes the session reproducible: the method hands each
	// participant a seed, which participants refuse unless they accept
	// seeds.
	Source *randx.Source
	// Addresses override participants' addresses from the consortium file.
	Addresses map[string]string
	// Attach is handed to the method's coordinating role (PrepareInput's
	// Attach): e.g. a sink that takes ppca-dp-mh's synthetic rows as they
	// arrive, so that the coordinator need not hold them whole.
	Attach any
	// Progress, if set, is told in one line whenever the session starts
	// to wait for a member that does not answer (a delivery it retries, a
	// status poll it gets no answer to), and when the member answers
	// again: a member that is down is named while the coordinator waits,
	// not only when it gives up.
	Progress func(string)
}

// Result is a finished session.
type Result struct {
	*Outcome
	Session  string
	Receipts map[string]Receipt
	Elapsed  time.Duration
	// Messages and BytesSent count what the coordinator sent.
	Messages  int
	BytesSent int64
}

// Run starts a session as its coordinator and drives it to the end: every
// participant is asked to join (and may refuse, with its reason); only when
// all have accepted are they started; then the coordinator polls them and
// aborts the session, naming the member at fault, when one fails, becomes
// unreachable, takes longer than the step deadline on one message, or the
// session makes no progress for a step deadline. On success it returns the
// method's published outcome; on failure it publishes nothing.
func (n *Node) Run(ctx context.Context, o RunOptions) (*Result, error) {
	started := time.Now()
	m, err := Lookup(o.Method)
	if err != nil {
		return nil, err
	}
	if n.self.Role != m.CoordinatorRole {
		return nil, fmt.Errorf("transport: %s has role %q; %s sessions are coordinated by the %q role", n.self.Name, n.self.Role, m.Name, m.CoordinatorRole)
	}
	if n.ln == nil {
		return nil, fmt.Errorf("transport: start the node before running a session")
	}
	if o.Source == nil {
		o.Source = randx.NewSecure()
	}
	setup, err := m.Prepare(PrepareInput{Consortium: n.file, Self: n.self, Settings: o.Settings, Source: o.Source, Attach: o.Attach})
	if err != nil {
		return nil, err
	}
	if setup != nil && setup.Cleanup != nil {
		defer setup.Cleanup()
	}
	open, err := n.checkSetup(m, setup, o.Addresses)
	if err != nil {
		return nil, err
	}
	s := newSession(n, setup.Session, m, open, true)
	s.role, s.note = setup.Role, o.Progress
	n.mu.Lock()
	if _, dup := n.sessions[s.id]; dup || n.closed[s.id] != nil {
		n.mu.Unlock()
		return nil, fmt.Errorf("transport: session %q already ran here", s.id)
	}
	n.sessions[s.id] = s
	n.mu.Unlock()
	s.launch()
	n.log.Info("opening a session", "session", s.id, "method", m.Name, "participants", len(open.Participants))
	err = s.drive(ctx, setup)
	n.endAll(s, err)
	s.close()
	if err != nil {
		// Not waiting for the loop: the coordinator's own role may be the
		// one stuck past its deadline.
		return nil, s.abort(open, " failed: ", err)
	}
	<-s.loopDone // idle: every role is done
	s.mu.Lock()
	receipts, msgs, sent := s.receipts, s.messages, s.bytesSent
	s.mu.Unlock()
	out, err := setup.Finish(receipts)
	if err != nil {
		return nil, s.abort(open, ": ", err)
	}
	return &Result{Outcome: out, Session: s.id, Receipts: receipts, Elapsed: time.Since(started), Messages: msgs, BytesSent: sent}, nil
}

// SessionError is the error of a session that started and then failed:
// nothing was published. It names the session and what the coordinator
// knows of it, so that the failure can be recorded (see SessionRecord).
type SessionError struct {
	Session string
	Method  string
	// Participants are the members asked to take part, in order.
	Participants []string
	// Receipts are those that arrived before the failure: a participant
	// without one may or may not have spent budget (its own budget ledger
	// says).
	Receipts map[string]Receipt
	prefix   string
	Err      error
}

func (e *SessionError) Error() string {
	return fmt.Sprintf("transport: session %s%s%v", e.Session, e.prefix, e.Err)
}

func (e *SessionError) Unwrap() error { return e.Err }

// abort wraps a failure of the running session.
func (s *session) abort(open Open, prefix string, err error) error {
	e := &SessionError{Session: s.id, Method: open.Method, prefix: prefix, Err: err, Receipts: map[string]Receipt{}}
	for _, p := range open.Participants {
		e.Participants = append(e.Participants, p.Name)
	}
	s.mu.Lock()
	for k, v := range s.receipts {
		e.Receipts[k] = v
	}
	s.mu.Unlock()
	return e
}

// checkSetup checks what the method prepared and builds the Open message.
func (n *Node) checkSetup(m Method, setup *Setup, addrs map[string]string) (Open, error) {
	if setup.Role == nil || setup.Role.ID() != n.self.Name || setup.Finish == nil || len(setup.Participants) == 0 {
		return Open{}, fmt.Errorf("transport: method %s prepared an incomplete session", m.Name)
	}
	if err := checkToken("session", setup.Session, maxSessionLen); err != nil {
		return Open{}, err
	}
	for name := range addrs {
		if _, err := n.file.Member(name); err != nil {
			return Open{}, fmt.Errorf("transport: address override: %w", err)
		}
	}
	open := Open{Method: m.Name, Coordinator: n.self.Name, CoordinatorAddress: n.advertise}
	for _, p := range setup.Participants {
		fm, err := n.file.Member(p.Name)
		if err != nil {
			return Open{}, fmt.Errorf("transport: %w", err)
		}
		if fm.Role != p.Role {
			return Open{}, fmt.Errorf("transport: method %s gave %s the role %q; the consortium file says %q", m.Name, p.Name, p.Role, fm.Role)
		}
		p.Address = fm.Address
		if a, ok := addrs[p.Name]; ok {
			p.Address = a
		}
		open.Participants = append(open.Participants, p)
	}
	return open, open.validate()
}

// openFor is the Open message for one participant: other participants'
// params and seeds are left out.
func openFor(o Open, name string) Open {
	c := o
	c.Participants = make([]Participant, len(o.Participants))
	for i, p := range o.Participants {
		if p.Name != name {
			p.Params, p.Seed = nil, nil
		}
		c.Participants[i] = p
	}
	return c
}

// drive runs the session: open, start, watch.
func (s *session) drive(ctx context.Context, setup *Setup) error {
	if err := s.openAll(ctx); err != nil {
		s.fail(err, false)
		return err
	}
	for _, p := range s.open.Participants {
		s.outbox(p.Name).enqueue(envelope{Session: s.id, From: s.self, To: p.Name, Type: TypeStart})
	}
	s.push(envelope{Session: s.id, From: s.self, To: s.self, Type: TypeStart})
	return s.watch(ctx)
}

// openAll proposes the session to every participant and waits for all to
// accept. A refusal fails the session: refusals from other participants
// that answer within one ping interval are reported with it, but nobody
// still being retried (a member restarting) holds up the failure. While
// it waits, the coordinator polls those who accepted, so that they do not
// take a slow join elsewhere for a dead coordinator.
func (s *session) openAll(ctx context.Context) error {
	type answer struct {
		name string
		err  error
	}
	answers := make(chan answer, len(s.open.Participants))
	for _, p := range s.open.Participants {
		b, err := openFor(s.open, p.Name).MarshalBinary()
		if err != nil {
			return err
		}
		done := s.outbox(p.Name).add(envelope{Session: s.id, From: s.self, To: p.Name, Type: TypeOpen, Payload: b}, true)
		go func() {
			select {
			case err := <-done:
				answers <- answer{p.Name, err}
			case <-s.finished:
			}
		}()
	}
	tick := time.NewTicker(s.n.limits.PingInterval.Duration)
	defer tick.Stop()
	polls := make(chan pollResult, len(s.open.Participants))
	accepted, inflight := map[string]bool{}, map[string]bool{}
	var refusals []error
	var grace <-chan time.Time
	for waiting := len(s.open.Participants); waiting > 0; {
		select {
		case a := <-answers:
			waiting--
			if a.err == nil {
				accepted[a.name] = true
				continue
			}
			refusals = append(refusals, a.err)
			if _, ok := errors.AsType[*unreachableError](a.err); ok {
				s.mu.Lock()
				s.unreached[a.name] = true // never got the proposal: no end notice
				s.mu.Unlock()
			}
			if grace == nil {
				grace = time.After(s.n.limits.PingInterval.Duration)
			}
		case <-grace:
			return joinRefusals(refusals)
		case r := <-polls:
			inflight[r.name] = false
		case <-tick.C:
			for name := range accepted {
				if !inflight[name] {
					inflight[name] = true
					go s.poll(name, polls)
				}
			}
		case <-s.finished:
			return s.failure()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return joinRefusals(refusals)
}

// joinRefusals joins the participants' refusals of a session, the
// members that could not be reached in one line naming them all.
func joinRefusals(refusals []error) error {
	var others []error
	var unreachable []*unreachableError
	for _, err := range refusals {
		if u, ok := errors.AsType[*unreachableError](err); ok {
			unreachable = append(unreachable, u)
		} else {
			others = append(others, err)
		}
	}
	if len(unreachable) > 1 {
		slices.SortFunc(unreachable, func(a, b *unreachableError) int { return strings.Compare(a.member, b.member) })
		names := make([]string, len(unreachable))
		for i, u := range unreachable {
			names[i] = u.member + " at " + u.addr
		}
		u := unreachable[0]
		others = append(others, &failure{fmt.Sprintf("%d members are unreachable: %s: no connection for %v (%s); is dppub serve running there?",
			len(names), strings.Join(names, ", "), u.silent.Round(100*time.Millisecond), describe(u.err)), u})
	} else if len(unreachable) == 1 {
		others = append(others, &failure{unreachable[0].Error() + "; is dppub serve running there?", unreachable[0]})
	}
	return errors.Join(others...)
}

func (s *session) failure() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	return fmt.Errorf("session ended")
}

// memberWatch is the coordinator's view of one participant.
type memberWatch struct {
	name     string
	lastOK   time.Time
	lastErr  error
	silent   bool // its last poll went unanswered
	inflight bool
	status   *transportv1.StatusResponse
	progress uint64
}

type pollResult struct {
	name   string
	status *transportv1.StatusResponse
	err    error
	// fatal is a poll failure no retry can change (see permanent): the
	// session is aborted at once rather than at the liveness check.
	fatal error
}

// watch polls the participants until the session finishes or must be
// aborted.
func (s *session) watch(ctx context.Context) error {
	lim := s.n.limits
	now := time.Now()
	watches := map[string]*memberWatch{}
	for _, p := range s.open.Participants {
		watches[p.Name] = &memberWatch{name: p.Name, lastOK: now}
	}
	results := make(chan pollResult, len(watches))
	tick := time.NewTicker(lim.PingInterval.Duration)
	defer tick.Stop()
	lastProgress, ownProgress := now, uint64(0)
	for {
		select {
		case <-s.finished:
			return s.finalError()
		case <-ctx.Done():
			err := fmt.Errorf("interrupted: %w", ctx.Err())
			s.fail(err, false)
			return err
		case r := <-results:
			w := watches[r.name]
			w.inflight = false
			if r.fatal != nil {
				s.fail(r.fatal, false)
				return r.fatal
			}
			if r.err != nil {
				if !w.silent && s.note != nil {
					s.note(fmt.Sprintf("no answer from %s to the status poll (%v); the session is aborted if it stays silent for %v",
						w.name, r.err, lim.UnreachableAfter.Duration))
				}
				w.lastErr, w.silent = r.err, true
				continue
			}
			if w.silent && s.note != nil {
				s.note(fmt.Sprintf("%s answers again", w.name))
			}
			w.silent = false
			w.lastOK, w.status = time.Now(), r.status
			if r.status.GetProgress() != w.progress {
				w.progress, lastProgress = r.status.GetProgress(), time.Now()
			}
			if err := s.judge(w); err != nil {
				s.fail(err, false)
				return err
			}
		case <-tick.C:
			for _, w := range watches {
				if !w.inflight {
					w.inflight = true
					go s.poll(w.name, results)
				}
			}
			s.mu.Lock()
			p := s.progress
			s.mu.Unlock()
			if p != ownProgress {
				ownProgress, lastProgress = p, time.Now()
			}
			if err := s.checkDeadlines(watches, lastProgress); err != nil {
				s.fail(err, false)
				return err
			}
		}
	}
}

func (s *session) finalError() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == stateDone {
		return nil
	}
	return s.err
}

func (s *session) poll(name string, results chan<- pollResult) {
	lim := s.n.limits
	ctx, cancel := context.WithTimeout(s.ctx, lim.UnreachableAfter.Duration)
	defer cancel()
	c, err := s.n.client(name, s.addrs[name])
	if err != nil {
		results <- pollResult{name: name, err: err}
		return
	}
	resp, err := c.Status(ctx, connect.NewRequest(&transportv1.StatusRequest{Session: s.id}))
	if err != nil {
		r := pollResult{name: name, err: fmt.Errorf("%s", describe(err))}
		if reason, refused, ok := s.n.permanent(err); ok && s.ctx.Err() == nil {
			if refused {
				r.fatal = &failure{fmt.Sprintf("%s refused the coordinator's status poll: %s", name, reason), err}
			} else {
				r.fatal = &failure{fmt.Sprintf("%s at %s: %s", name, s.addrs[name], reason), err}
			}
		}
		results <- r
		return
	}
	results <- pollResult{name: name, status: resp.Msg}
}

// judge turns one participant's status into an abort reason, if any.
func (s *session) judge(w *memberWatch) error {
	st, step := w.status, s.n.limits.StepTimeout.Duration
	switch st.GetState() {
	case stateFailed:
		return fmt.Errorf("%s failed: %s", w.name, st.GetError())
	case stateUnknown:
		return fmt.Errorf("%s no longer knows the session (did it restart?)", w.name)
	}
	if busy := time.Duration(st.GetBusyMs()) * time.Millisecond; busy > step {
		return fmt.Errorf("%s has been %s for %v, over the %v step deadline", w.name, st.GetHandling(), busy.Round(time.Millisecond), step)
	}
	return nil
}

// checkDeadlines aborts for unreachable members, an overlong step of the
// coordinator's own role, or a session that makes no progress.
func (s *session) checkDeadlines(watches map[string]*memberWatch, lastProgress time.Time) error {
	lim := s.n.limits
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range watches {
			if !yield(n) {
				return
			}
		}
	})
	for _, name := range names {
		w := watches[name]
		if silent := time.Since(w.lastOK); silent > lim.UnreachableAfter.Duration {
			return fmt.Errorf("%s is unreachable: no answer for %v (last error: %v)", name, silent.Round(time.Millisecond), w.lastErr)
		}
	}
	if what, d := s.busy(); d > lim.StepTimeout.Duration {
		return fmt.Errorf("%s (the coordinator) has been %s for %v, over the %v step deadline", s.self, what, d.Round(time.Millisecond), lim.StepTimeout)
	}
	if idle := time.Since(lastProgress); idle > lim.StepTimeout.Duration {
		return fmt.Errorf("no progress for %v (step deadline %v): %s", idle.Round(time.Millisecond), lim.StepTimeout, s.waitingFor(watches, names))
	}
	return nil
}

// waitingFor names who holds the session up: members busy or still
// delivering, else those whose part is not done.
func (s *session) waitingFor(watches map[string]*memberWatch, names []string) string {
	var busy, stuck, notDone []string
	for _, name := range names {
		st := watches[name].status
		if st == nil {
			notDone = append(notDone, name)
			continue
		}
		if st.GetHandling() != "" {
			busy = append(busy, fmt.Sprintf("%s (%s)", name, st.GetHandling()))
		}
		if len(st.GetPending()) > 0 {
			stuck = append(stuck, fmt.Sprintf("%s → %s", name, strings.Join(st.GetPending(), ", ")))
		}
		s.mu.Lock()
		_, receipted := s.receipts[name]
		s.mu.Unlock()
		if !receipted {
			notDone = append(notDone, name)
		}
	}
	switch {
	case len(busy) > 0:
		return "still working: " + strings.Join(busy, "; ")
	case len(stuck) > 0:
		return "undelivered messages: " + strings.Join(stuck, "; ")
	case len(notDone) > 0:
		return "waiting for " + strings.Join(notDone, ", ")
	}
	return "waiting for the coordinator's own role"
}

// endAll tells every participant the session's outcome, in parallel.
func (n *Node) endAll(s *session, failure error) {
	nt := Notice{OK: failure == nil}
	if failure != nil {
		nt.Reason = failure.Error()
	}
	done := make(chan struct{}, len(s.open.Participants))
	s.mu.Lock()
	unreached := maps.Clone(s.unreached)
	s.mu.Unlock()
	for _, p := range s.open.Participants {
		if unreached[p.Name] {
			done <- struct{}{}
			continue
		}
		go func() {
			n.notify(p.Name, s.addrs[p.Name], s.id, TypeEnd, nt)
			done <- struct{}{}
		}()
	}
	for range s.open.Participants {
		<-done
	}
}
