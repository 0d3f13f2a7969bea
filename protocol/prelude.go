package protocol

import "fmt"

// Prelude is the opening of a member's role that cannot be built before
// one message from its coordinator arrives (a linkage's record count, a
// domain's bin edges): until then it holds the messages that overtake
// that one; once that one arrives, its Take decodes it and calls Begin,
// which builds the next role and hands it the held messages; every later
// message goes to that role. Awaiting (package psi) and Binning
// (PDP-MVDS) embed one, which is their Handle.
type Prelude struct {
	pkg, id, coordinator string
	awaited, describe    string
	limit                int
	repeatOK             bool
	take                 func(payload []byte) ([]Envelope, error)
	inner                Role
	held                 Held
}

// PreludeOptions say what a Prelude waits for.
type PreludeOptions struct {
	// Package prefixes its errors ("psi").
	Package string
	// Member and Coordinator are the member's ID and the one whose
	// message it awaits.
	Member, Coordinator string
	// Awaited is the message's type; Describe names it in errors ("the
	// linkage's count").
	Awaited, Describe string
	// Limit bounds the messages held.
	Limit int
	// RepeatOK drops a repeat of the awaited message once the next role
	// is built (a replay) instead of refusing it.
	RepeatOK bool
	// Take decodes the awaited message's payload and calls Begin.
	Take func(payload []byte) ([]Envelope, error)
}

// NewPrelude waits as o says.
func NewPrelude(o PreludeOptions) Prelude {
	return Prelude{pkg: o.Package, id: o.Member, coordinator: o.Coordinator, awaited: o.Awaited,
		describe: o.Describe, limit: o.Limit, repeatOK: o.RepeatOK, take: o.Take}
}

// ID is the member's.
func (p *Prelude) ID() string { return p.id }

// Done reports whether the next role is done.
func (p *Prelude) Done() bool { return p.inner != nil && p.inner.Done() }

// Unwrap is the next role once built, nil before.
func (p *Prelude) Unwrap() Role { return p.inner }

// Handle forwards e to the next role once it is built; before, it holds
// any other message and takes the awaited one from the coordinator.
func (p *Prelude) Handle(e Envelope) ([]Envelope, error) {
	switch {
	case p.inner != nil && e.Type != p.awaited:
		return p.inner.Handle(e)
	case p.inner != nil && p.repeatOK:
		return nil, nil
	case p.inner != nil:
		return nil, fmt.Errorf("%s: %s got %s from %s after it had begun", p.pkg, p.id, p.describe, e.From)
	case e.Type != p.awaited:
		if !p.held.Hold(e, p.limit) {
			return nil, fmt.Errorf("%s: %s holds %d messages and has not been told %s", p.pkg, p.id, p.limit, p.describe)
		}
		return nil, nil
	case e.From != p.coordinator:
		return nil, fmt.Errorf("%s: %s got %s from %s, not from the coordinator %s", p.pkg, p.id, p.describe, e.From, p.coordinator)
	}
	return p.take(e.Payload)
}

// Begin builds the next role with next, once, and starts it with the
// messages held so far.
func (p *Prelude) Begin(next func() (Role, error)) ([]Envelope, error) {
	if p.inner != nil {
		return nil, fmt.Errorf("%s: %s has already begun", p.pkg, p.id)
	}
	inner, err := next()
	if err != nil {
		return nil, err
	}
	p.inner = inner
	return p.held.Start(inner)
}
