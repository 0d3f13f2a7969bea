package transport

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"connectrpc.com/connect"
	"github.com/dppub/dppub/budgetstore"
	"github.com/dppub/dppub/consortium"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/transport/gen/transportv1"
)

// Session states as Status reports them.
const (
	stateOpen    = "open"
	stateRunning = "running"
	stateDone    = "done"
	stateFailed  = "failed"
	stateUnknown = "unknown"
)

// maxInbox bounds the envelopes queued for one session's role.
const maxInbox = 4096

// maxInboxBytes bounds the payload bytes queued for one session's role: a
// delivery that would pass it waits until the role has handled enough,
// so a sender that streams faster than the role handles (an owner's
// synthetic rows to a curator writing them to disk) is held back at the
// sender's stream, which waits for each delivery, and the receiver holds
// about this much however long the stream. Sixteen 4 MiB chunks
// (protocol.ChunkBytes) keep a role busy while its senders wait.
const maxInboxBytes = 64 << 20

// session is one protocol run as this member sees it.
type session struct {
	n               *Node
	id              string
	method          Method
	open            Open
	coordinator     bool // this node coordinates
	coordinatorName string
	self            string
	role            protocol.Role
	tracker         *budgetstore.Tracker
	budget          *dp.Guarantee
	members         map[string]string // name → role, coordinator included
	addrs           map[string]string
	ctx             context.Context
	cancel          context.CancelFunc
	finished        chan struct{} // closed when done or failed
	loopDone        chan struct{}
	wake            chan struct{}

	mu      sync.Mutex
	state   string
	err     error
	lastSeq map[string]uint64
	// arrived is when each message from another member arrived (only
	// kept under the Latency fault injection), by sender and sequence.
	arrived  map[string]time.Time
	inbox    []envelope
	deferred []envelope
	queued   int // payload bytes in inbox and deferred
	// room is closed (and replaced) when the role takes an envelope from
	// the inbox: deliveries waiting for room look again.
	room        chan struct{}
	started     bool
	handling    string
	busySince   time.Time
	progress    uint64
	bytesSent   int64
	messages    int
	receipts    map[string]Receipt
	receiptSent bool
	lastContact time.Time
	outboxes    map[string]*outbox
	// note, at the coordinator, tells the user what the session waits for
	// (RunOptions.Progress); nil elsewhere.
	note func(string)
	// unreached, at the coordinator, are the participants its proposal
	// never reached (unreachable): they get no end notice.
	unreached map[string]bool
}

func newSession(n *Node, id string, m Method, o Open, coordinator bool) *session {
	members := map[string]string{o.Coordinator: m.CoordinatorRole}
	addrs := map[string]string{o.Coordinator: o.CoordinatorAddress}
	for _, p := range o.Participants {
		members[p.Name], addrs[p.Name] = p.Role, p.Address
	}
	ctx, cancel := context.WithTimeout(context.Background(), n.limits.SessionTimeout.Duration)
	return &session{
		n: n, id: id, method: m, open: o, coordinator: coordinator, coordinatorName: o.Coordinator,
		self: n.self.Name, members: members, addrs: addrs, ctx: ctx, cancel: cancel,
		finished: make(chan struct{}), loopDone: make(chan struct{}), wake: make(chan struct{}, 1),
		state: stateOpen, lastSeq: map[string]uint64{}, receipts: map[string]Receipt{},
		lastContact: time.Now(), outboxes: map[string]*outbox{}, room: make(chan struct{}), unreached: map[string]bool{},
	}
}

// launch starts the session's goroutines. A participant's Open counts as
// the coordinator's first message.
func (s *session) launch() {
	if !s.coordinator {
		s.lastSeq[s.coordinatorName] = 1
		go s.watchdog()
	}
	go s.loop()
}

// openRetry answers a repeated Open of a running session.
func (s *session) openRetry(env envelope) (bool, error) {
	if env.From == s.coordinatorName && env.Seq == 1 {
		return true, nil
	}
	return false, connect.NewError(connect.CodeAlreadyExists, fmt.Errorf("session %q already exists", s.id))
}

// accept queues an envelope of this session, or acknowledges a duplicate;
// while the inbox holds maxInboxBytes it waits (until ctx ends) for the
// role to take some.
func (s *session) accept(ctx context.Context, peer consortium.Identity, env envelope) (bool, error) {
	role, ok := s.members[peer.Name]
	if !ok || role != peer.Role {
		return false, connect.NewError(connect.CodePermissionDenied, fmt.Errorf("%v is not a member of session %q", peer, s.id))
	}
	if env.Seq == 0 {
		return false, s.notice(env)
	}
	if err := s.checkType(env); err != nil {
		return false, connect.NewError(connect.CodeInvalidArgument, err)
	}
	if err := s.waitForRoom(ctx, env); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	last := s.lastSeq[env.From]
	switch {
	case env.Seq <= last:
		return true, nil
	case s.state == stateDone || s.state == stateFailed:
		return false, connect.NewError(connect.CodeFailedPrecondition, fmt.Errorf("session %q is over (%s)", s.id, s.state))
	case env.Seq != last+1:
		return false, connect.NewError(connect.CodeFailedPrecondition, fmt.Errorf("seq %d from %s, want %d", env.Seq, env.From, last+1))
	case len(s.inbox)+len(s.deferred) >= maxInbox:
		return false, connect.NewError(connect.CodeUnavailable, fmt.Errorf("session %q has %d messages queued", s.id, maxInbox))
	}
	s.lastSeq[env.From] = env.Seq
	if env.From == s.coordinatorName {
		s.lastContact = time.Now()
	}
	if s.n.opts.Latency > 0 {
		if s.arrived == nil {
			s.arrived = map[string]time.Time{}
		}
		s.arrived[arrivalKey(env)] = time.Now()
	}
	s.inbox = append(s.inbox, env)
	s.queued += len(env.Payload)
	s.signal()
	return false, nil
}

// waitForRoom returns once env fits in the inbox (an empty inbox takes
// any envelope), is a duplicate, or the session is over (accept then
// answers as usual); or with Unavailable when ctx ends first, and the
// sender retries.
func (s *session) waitForRoom(ctx context.Context, env envelope) error {
	for {
		s.mu.Lock()
		full := s.queued > 0 && s.queued+len(env.Payload) > maxInboxBytes && env.Seq > s.lastSeq[env.From]
		room := s.room
		s.mu.Unlock()
		if !full {
			return nil
		}
		select {
		case <-room:
		case <-s.finished:
			return nil
		case <-ctx.Done():
			return connect.NewError(connect.CodeUnavailable, fmt.Errorf("session %q has %d bytes queued", s.id, maxInboxBytes))
		}
	}
}

// checkType allows control messages only in their direction.
func (s *session) checkType(env envelope) error {
	if !strings.HasPrefix(env.Type, controlPrefix) {
		return nil
	}
	switch {
	case env.Type == TypeStart && !s.coordinator && env.From == s.coordinatorName:
	case env.Type == TypeReceipt && s.coordinator:
	default:
		return fmt.Errorf("control message %s from %s not allowed here", env.Type, env.From)
	}
	return nil
}

// notice handles the unsequenced Abort (at the coordinator) and End (at a
// participant); both are idempotent.
func (s *session) notice(env envelope) error {
	var nt Notice
	if err := nt.UnmarshalBinary(env.Payload); err != nil {
		return connect.NewError(connect.CodeInvalidArgument, err)
	}
	switch {
	case env.Type == TypeAbort && s.coordinator:
		s.fail(fmt.Errorf("%s aborted: %s", env.From, nt.Reason), false)
	case env.Type == TypeEnd && !s.coordinator && env.From == s.coordinatorName:
		if nt.OK {
			s.succeed()
		} else {
			s.fail(fmt.Errorf("the coordinator %s ended the session: %s", env.From, nt.Reason), false)
		}
	default:
		return connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("unsequenced %s from %s not allowed here", env.Type, env.From))
	}
	return nil
}

func (s *session) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// push queues a local envelope (the coordinator's own Start, or a role's
// message to itself).
func (s *session) push(env envelope) {
	s.mu.Lock()
	s.inbox = append(s.inbox, env)
	s.queued += len(env.Payload)
	s.mu.Unlock()
	s.signal()
}

// loop hands queued envelopes to the role one at a time.
func (s *session) loop() {
	defer close(s.loopDone)
	for {
		select {
		case <-s.ctx.Done():
			if s.ctx.Err() == context.DeadlineExceeded {
				s.fail(s.own(fmt.Errorf("session timeout %v exceeded", s.n.limits.SessionTimeout)), true)
			}
			return
		case <-s.wake:
		}
		for {
			env, ok := s.next()
			if !ok || s.ctx.Err() != nil {
				break
			}
			s.step(env)
		}
	}
}

// next pops the next envelope, holding back the role's messages until the
// role has started.
func (s *session) next() (envelope, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.inbox) > 0 {
		env := s.inbox[0]
		// Cleared, so that the array behind the inbox does not keep the
		// payloads of envelopes already handled.
		s.inbox[0] = envelope{}
		s.inbox = s.inbox[1:]
		if !s.started && env.Type != TypeStart && env.Type != TypeReceipt {
			s.deferred = append(s.deferred, env)
			continue
		}
		if env.Type == TypeStart {
			s.started, s.state = true, stateRunning
			s.inbox = append(s.deferred, s.inbox...)
			s.deferred = nil
		}
		s.queued -= len(env.Payload)
		close(s.room)
		s.room = make(chan struct{})
		return env, true
	}
	return envelope{}, false
}

func (s *session) step(env envelope) {
	switch env.Type {
	case TypeStart:
		s.n.log.Info("starting", "session", s.id)
		s.run("start", s.role.Start)
	case TypeReceipt:
		var r Receipt
		if err := r.UnmarshalBinary(env.Payload); err != nil {
			s.fail(fmt.Errorf("receipt from %s: %w", env.From, err), true)
			return
		}
		s.mu.Lock()
		s.receipts[env.From] = r
		s.progress++
		s.mu.Unlock()
		s.checkFinished()
	default:
		s.n.log.Info("handling", "session", s.id, "type", env.Type, "from", env.From, "bytes", len(env.Payload))
		what := fmt.Sprintf("handling %s from %s", env.Type, env.From)
		s.run(what, func() ([]envelope, error) {
			d := s.n.opts.HandleDelay
			if l := s.n.opts.Latency; l > 0 {
				s.mu.Lock()
				t, ok := s.arrived[arrivalKey(env)]
				delete(s.arrived, arrivalKey(env))
				s.mu.Unlock()
				if ok {
					d += time.Until(t.Add(l))
				}
			}
			if d > 0 {
				select {
				case <-time.After(d):
				case <-s.ctx.Done():
					return nil, s.ctx.Err()
				}
			}
			return s.role.Handle(env)
		})
	}
}

func arrivalKey(env envelope) string { return fmt.Sprintf("%s#%d", env.From, env.Seq) }

// run performs one protocol step: the role computes, the ledger records
// what the role charged, and only then do the step's messages leave.
func (s *session) run(what string, f func() ([]envelope, error)) {
	s.setBusy(what)
	out, err := protocol.Safely(s.roleName(), what, f)
	s.setBusy("")
	if s.tracker != nil {
		n, cerr := s.tracker.Commit()
		if cerr != nil {
			s.fail(s.own(fmt.Errorf("the budget ledger refused the charges of %s, so nothing was sent: %w", what, cerr)), true)
			return
		}
		if n > 0 {
			s.n.log.Info("recorded spends in the budget ledger", "session", s.id, "charges", n, "dataset", s.n.self.DatasetName())
		}
	}
	if err != nil {
		s.fail(s.own(fmt.Errorf("%s: %w", what, s.withCharges(err))), true)
		return
	}
	if s.ctx.Err() != nil {
		return
	}
	for _, e := range out {
		if err := s.checkOutgoing(e); err != nil {
			s.fail(err, true)
			return
		}
	}
	for _, e := range out {
		if e.To == s.self {
			s.push(e)
			continue
		}
		s.outbox(e.To).enqueue(e)
	}
	if st, ok := s.role.(protocol.Streamer); ok {
		if err := s.stream(st); err != nil {
			s.fail(s.own(fmt.Errorf("%s: %w", what, err)), true)
			return
		}
	}
	s.mu.Lock()
	s.progress += 1 + uint64(len(out))
	sendReceipt := !s.coordinator && !s.receiptSent && s.role.Done()
	s.receiptSent = s.receiptSent || sendReceipt
	s.mu.Unlock()
	if sendReceipt {
		s.sendReceipt()
	}
	if s.coordinator {
		s.checkFinished()
	}
}

// stream sends a Streamer's batches (protocol.Streamer) one at a time,
// waiting until each is delivered before asking for the next, so the role
// and its outboxes hold about one batch however long the stream. Each
// batch's charges, if any, are committed to the ledger before it leaves,
// as after any step.
func (s *session) stream(st protocol.Streamer) error {
	for s.ctx.Err() == nil {
		s.setBusy("streaming")
		out, err := protocol.Safely(s.roleName(), "streaming", st.More)
		s.setBusy("")
		if s.tracker != nil {
			if _, cerr := s.tracker.Commit(); cerr != nil {
				return fmt.Errorf("the budget ledger refused the charges of a streamed batch, so nothing was sent: %w", cerr)
			}
		}
		if err != nil {
			return fmt.Errorf("streaming: %w", s.withCharges(err))
		}
		if len(out) == 0 {
			return nil
		}
		var sent []<-chan error
		for _, e := range out {
			if err := s.checkOutgoing(e); err != nil {
				return err
			}
			if e.To == s.self {
				s.push(e)
				continue
			}
			sent = append(sent, s.outbox(e.To).enqueue(e))
		}
		s.mu.Lock()
		s.progress += uint64(len(out))
		s.mu.Unlock()
		for _, done := range sent {
			select {
			case err := <-done:
				if err != nil {
					return err
				}
			case <-s.ctx.Done():
				return s.ctx.Err()
			}
		}
	}
	return s.ctx.Err()
}

// roleName names this member's role in a recovered panic: the member and
// the role it plays.
func (s *session) roleName() string {
	return fmt.Sprintf("%s (%s)", s.self, s.members[s.self])
}

// withCharges adds to a recovered panic (protocol.PanicError) how many
// charges of this session the budget ledger holds: the step's own were
// committed just before, so a crash after a charge is never silent.
func (s *session) withCharges(err error) error {
	var pe *protocol.PanicError
	if !errors.As(err, &pe) {
		return err
	}
	if s.tracker == nil {
		return err // a member without a budget (the coordinator, a dealer)
	}
	return fmt.Errorf("%w; charges recorded: %d", err, len(s.tracker.Committed()))
}

func (s *session) checkOutgoing(e envelope) error {
	if e.Session != s.id || e.From != s.self || strings.HasPrefix(e.Type, controlPrefix) {
		return fmt.Errorf("%s's role produced an envelope for session %q from %q of type %q (want session %q from %q)", s.self, e.Session, e.From, e.Type, s.id, s.self)
	}
	if _, ok := s.members[e.To]; !ok {
		return fmt.Errorf("%s's role sent %s to %q, not a member of session %q", s.self, e.Type, e.To, s.id)
	}
	return nil
}

func (s *session) sendReceipt() {
	r := Receipt{Budget: s.budget}
	if s.tracker != nil {
		r.Charges = s.tracker.Committed()
		if bal, err := s.n.ledger.Balance(s.n.self.DatasetName()); err == nil {
			r.Lifetime, r.Remaining = &bal.Lifetime, &bal.Remaining
		}
	}
	b, err := r.MarshalBinary()
	if err != nil {
		s.fail(err, true)
		return
	}
	s.outbox(s.coordinatorName).enqueue(envelope{Session: s.id, From: s.self, To: s.coordinatorName, Type: TypeReceipt, Payload: b})
	s.n.log.Info("role done; receipt sent", "session", s.id, "charges", len(r.Charges))
}

// checkFinished ends a coordinator's session once its role is done and
// every participant has sent its receipt.
func (s *session) checkFinished() {
	s.mu.Lock()
	done := s.role.Done() && len(s.receipts) == len(s.open.Participants)
	s.mu.Unlock()
	if done {
		s.succeed()
	}
}

func (s *session) setBusy(what string) {
	s.mu.Lock()
	s.handling, s.busySince = what, time.Now()
	s.mu.Unlock()
}

// busy reports what the role is doing and for how long.
func (s *session) busy() (string, time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.handling == "" {
		return "", 0
	}
	return s.handling, time.Since(s.busySince)
}

func (s *session) status() *transportv1.StatusResponse {
	what, d := s.busy()
	s.mu.Lock()
	s.lastContact = time.Now()
	st := &transportv1.StatusResponse{State: s.state, Handling: what, BusyMs: d.Milliseconds(), Progress: s.progress}
	if s.err != nil {
		st.Error = s.err.Error()
	}
	s.mu.Unlock()
	st.Pending = s.pending()
	return st
}
