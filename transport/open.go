package transport

import (
	"fmt"

	"connectrpc.com/connect"
	"github.com/dppub/dppub/budgetstore"
	"github.com/dppub/dppub/consortium"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// handleOpen checks a proposed session and, if this member accepts it,
// reserves its budget and builds its role. A refusal's text reaches the
// coordinator.
func (n *Node) handleOpen(peer consortium.Identity, env envelope) (bool, error) {
	if env.Seq != 1 {
		return false, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("open with seq %d, want 1", env.Seq))
	}
	if dup, err := n.claim(env); dup || err != nil {
		return dup, err
	}
	defer n.unclaim(env.Session)
	var o Open
	if err := o.UnmarshalBinary(env.Payload); err != nil {
		return false, connect.NewError(connect.CodeInvalidArgument, err)
	}
	s, err := n.accept(peer, env.Session, o)
	if err != nil {
		n.log.Warn("refused a session", "session", env.Session, "method", o.Method, "coordinator", peer.Name, "reason", err)
		return false, err
	}
	n.mu.Lock()
	n.sessions[s.id] = s
	n.mu.Unlock()
	s.launch()
	n.log.Info("joined a session", "session", s.id, "method", o.Method, "coordinator", peer.Name, "budget", budgetText(s.budget))
	return false, nil
}

// claim marks a session ID as being opened; a second Open of the same
// session is a retry (duplicate) or, while the first is still being
// checked, asked to retry later.
func (n *Node) claim(env envelope) (bool, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if s, ok := n.sessions[env.Session]; ok {
		return s.openRetry(env)
	}
	if c, ok := n.closed[env.Session]; ok {
		// Not a retry: the coordinator never re-opens a session it ended.
		// A replayed (or seeded, hence repeated) session ID runs only once.
		return false, connect.NewError(connect.CodeAlreadyExists, fmt.Errorf("session %q already ran here (%s)", env.Session, c.state))
	}
	if n.opening[env.Session] {
		return false, connect.NewError(connect.CodeUnavailable, fmt.Errorf("session %q is being opened", env.Session))
	}
	n.opening[env.Session] = true
	return false, nil
}

func (n *Node) unclaim(id string) {
	n.mu.Lock()
	delete(n.opening, id)
	n.mu.Unlock()
}

func refuse(format string, a ...any) error {
	return connect.NewError(connect.CodeFailedPrecondition, fmt.Errorf(format, a...))
}

// accept runs the member's checks of a proposal and builds its session.
func (n *Node) accept(peer consortium.Identity, id string, o Open) (*session, error) {
	m, err := Lookup(o.Method)
	if err != nil {
		return nil, refuse("cannot run %q: %v", o.Method, err)
	}
	if peer.Role != m.CoordinatorRole || o.Coordinator != peer.Name {
		return nil, connect.NewError(connect.CodePermissionDenied,
			fmt.Errorf("%s (role %q) may not open a %s session: only the %q role coordinates it", peer.Name, peer.Role, o.Method, m.CoordinatorRole))
	}
	me, ok := o.participant(n.self.Name)
	if !ok {
		return nil, refuse("%s is not a participant of the session", n.self.Name)
	}
	for _, p := range o.Participants {
		fm, err := n.file.Member(p.Name)
		if err != nil || fm.Role != p.Role {
			return nil, refuse("participant %s (role %q) does not match this member's consortium file", p.Name, p.Role)
		}
	}
	if me.Seed != nil && !n.opts.AcceptSeed {
		return nil, refuse("a seeded session is refused: seeded randomness is predictable and carries no privacy guarantee (start the member with --insecure-accept-seed for tests)")
	}
	acct, tracker, err := n.budgetFor(id, me.Budget, me.Delta)
	if err != nil {
		return nil, err
	}
	src := randx.NewSecure()
	if me.Seed != nil {
		src = randx.NewSeeded(*me.Seed)
	}
	s := newSession(n, id, m, o, false)
	s.tracker, s.budget = tracker, me.Budget
	role, err := m.Join(JoinInput{Consortium: n.file, Self: n.self, Session: id, Coordinator: o.Coordinator,
		Participants: o.Participants, Params: me.Params, Accountant: acct, Source: src, Log: n.log.With("session", id),
		Credentials: n.creds})
	if err != nil {
		n.release(id, tracker, budgetstore.ReservationRefused, err.Error())
		return nil, refuse("%v", err)
	}
	if role.ID() != n.self.Name {
		err := fmt.Errorf("%s built a role named %q", n.self.Name, role.ID())
		n.release(id, tracker, budgetstore.ReservationRefused, err.Error())
		return nil, connect.NewError(connect.CodeInternal, err)
	}
	s.role = role
	return s, nil
}

// budgetFor reserves the session's budget in the member's ledger, which
// checks it against the lifetime budget less what is spent and what the
// sessions running hold, and that the session ID is new. A zCDP budget is
// reserved at the session's δ, at which an (ε, δ) lifetime budget counts
// it.
func (n *Node) budgetFor(id string, budget *dp.Guarantee, delta float64) (*privacy.Accountant, *budgetstore.Tracker, error) {
	if n.self.Dataset == nil {
		if budget != nil {
			return nil, nil, refuse("%s holds no data but the session asks it for budget %v", n.self.Name, *budget)
		}
		return nil, nil, nil
	}
	if budget == nil {
		return nil, nil, refuse("%s holds dataset %q but the session gives it no budget", n.self.Name, n.self.DatasetName())
	}
	acct, err := privacy.NewAccountant(privacy.AccountantOptions{Party: n.self.Name, Budget: *budget})
	if err != nil {
		return nil, nil, refuse("%v", err)
	}
	tracker, err := n.ledger.ReserveAt(n.self.DatasetName(), id, *budget, delta, acct)
	if err != nil {
		return nil, nil, refuse("%v", err)
	}
	return acct, tracker, nil
}

// release ends a session's reservation, if it holds one: what it did not
// charge goes back to the dataset's budget.
func (n *Node) release(id string, tracker *budgetstore.Tracker, state, reason string) {
	if tracker == nil {
		return
	}
	r, err := n.ledger.Release(n.self.DatasetName(), id, state, reason)
	if err != nil {
		n.log.Error("could not release a budget reservation", "session", id, "error", err)
		return
	}
	n.log.Info("released the session's budget reservation", "session", id, "state", r.State,
		"budget", r.Budget.String(), "charged", r.Charged.String(), "released", r.Released.String())
}

func budgetText(g *dp.Guarantee) string {
	if g == nil {
		return "none"
	}
	return g.String()
}
