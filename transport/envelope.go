package transport

import (
	"fmt"

	"github.com/dppub/dppub/consortium"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/transport/gen/transportv1"
)

// Bounds on envelope header fields; payloads are bounded by the message
// size limit.
const (
	maxSessionLen = 128
	maxTypeLen    = 128
)

// fromProto converts and checks an incoming envelope's header fields.
func fromProto(m *transportv1.Envelope) (protocol.Envelope, error) {
	e := protocol.Envelope{Session: m.GetSession(), From: m.GetFrom(), To: m.GetTo(),
		Seq: m.GetSeq(), Type: m.GetType(), Payload: m.GetPayload()}
	return e, checkHeader(e)
}

func toProto(e protocol.Envelope) *transportv1.Envelope {
	return &transportv1.Envelope{Session: e.Session, From: e.From, To: e.To, Seq: e.Seq, Type: e.Type, Payload: e.Payload}
}

func checkHeader(e protocol.Envelope) error {
	if err := checkToken("session", e.Session, maxSessionLen); err != nil {
		return err
	}
	if err := checkToken("type", e.Type, maxTypeLen); err != nil {
		return err
	}
	if err := consortium.CheckName("member", e.From); err != nil {
		return fmt.Errorf("transport: from: %w", err)
	}
	if err := consortium.CheckName("member", e.To); err != nil {
		return fmt.Errorf("transport: to: %w", err)
	}
	return nil
}

// checkToken accepts 1..max printable ASCII characters without spaces.
func checkToken(what, s string, max int) error {
	if len(s) == 0 || len(s) > max {
		return fmt.Errorf("transport: %s of %d bytes, want 1 to %d", what, len(s), max)
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return fmt.Errorf("transport: %s %q holds a character outside printable ASCII", what, s)
		}
	}
	return nil
}

type envelope = protocol.Envelope
