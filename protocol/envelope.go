package protocol

import (
	"fmt"

	"github.com/dppub/dppub/internal/wire"
)

// Envelope is one message between two roles.
type Envelope struct {
	Session string
	From    string
	To      string
	Seq     uint64 // per (From, To) pair, starting at 1
	Type    string
	Payload []byte
}

// fields lists the envelope's fields in their wire order.
func (e *Envelope) fields() []any {
	return []any{&e.Session, &e.From, &e.To, &e.Seq, &e.Type, &e.Payload}
}

// MarshalBinary encodes the envelope.
func (e *Envelope) MarshalBinary() ([]byte, error) { return wire.Marshal(e.fields()...), nil }

// UnmarshalBinary decodes what MarshalBinary wrote.
func (e *Envelope) UnmarshalBinary(b []byte) error {
	return wire.Unmarshal(b, "protocol: envelope", e.fields()...)
}

// Message is a protocol message body.
type Message interface {
	MessageType() string
	MarshalBinary() ([]byte, error)
}

// Seal wraps a message in an envelope (Seq is set by whoever sends it). It
// refuses a body over MaxPayload: such a payload must be streamed.
func Seal(session, from, to string, m Message) (Envelope, error) {
	b, err := m.MarshalBinary()
	if err != nil {
		return Envelope{}, fmt.Errorf("protocol: marshal %s: %w", m.MessageType(), err)
	}
	if len(b) > MaxPayload {
		return Envelope{}, fmt.Errorf("protocol: %s of %d bytes exceeds the message limit of %d bytes (protocol.MaxPayload); it must be sent in chunks", m.MessageType(), len(b), MaxPayload)
	}
	return Envelope{Session: session, From: from, To: to, Type: m.MessageType(), Payload: b}, nil
}

// Broadcast seals m from from to each of to, in order (Seal).
func Broadcast(session, from string, to []string, m Message) ([]Envelope, error) {
	var out []Envelope
	for _, id := range to {
		e, err := Seal(session, from, id, m)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// Role is one participant of a protocol.
type Role interface {
	// ID is the role's unique name in the session (e.g. "owner-2").
	ID() string
	// Start returns the role's first messages.
	Start() ([]Envelope, error)
	// Handle processes one incoming message and returns the replies.
	Handle(Envelope) ([]Envelope, error)
	// Done reports whether the role has finished its part.
	Done() bool
}
