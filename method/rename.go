package method

import (
	"fmt"

	"github.com/dppub/dppub/protocol"
)

// Rename runs a protocol role under the members' names: a protocol that
// addresses its roles by fixed IDs (party-1, third-party, coordinator)
// meets a run that addresses them by member names. Incoming envelopes
// are renamed to the protocol's IDs (the transport has already checked
// that the sender is the member its certificate names); outgoing ones to
// the members'. toNet maps every protocol ID to its member's name.
func Rename(r protocol.Role, session string, toNet map[string]string) protocol.Role {
	toProto := map[string]string{}
	for p, n := range toNet {
		toProto[n] = p
	}
	return &renamed{inner: r, session: session, toNet: toNet, toProto: toProto}
}

type renamed struct {
	inner   protocol.Role
	session string
	toNet   map[string]string
	toProto map[string]string
}

func (r *renamed) ID() string                          { return r.toNet[r.inner.ID()] }
func (r *renamed) Done() bool                          { return r.inner.Done() }
func (r *renamed) Unwrap() protocol.Role               { return r.inner }
func (r *renamed) Start() ([]protocol.Envelope, error) { return r.out(r.inner.Start()) }

func (r *renamed) Handle(e protocol.Envelope) ([]protocol.Envelope, error) {
	from, ok := r.toProto[e.From]
	if !ok {
		return nil, fmt.Errorf("message from %q, not a member of the session", e.From)
	}
	e.From, e.To = from, r.inner.ID()
	return r.out(r.inner.Handle(e))
}

func (r *renamed) out(es []protocol.Envelope, err error) ([]protocol.Envelope, error) {
	if err != nil {
		return nil, err
	}
	for i, e := range es {
		from, to := r.toNet[e.From], r.toNet[e.To]
		if from == "" || to == "" {
			return nil, fmt.Errorf("%s sent %s to %q, a role with no member", e.From, e.Type, e.To)
		}
		es[i].From, es[i].To, es[i].Session = from, to, r.session
	}
	return es, nil
}

// Unwrap peels the wrappers (renaming, staying) off a role.
func Unwrap(r protocol.Role) protocol.Role {
	for {
		w, ok := r.(interface{ Unwrap() protocol.Role })
		if !ok {
			return r
		}
		r = w.Unwrap()
	}
}
