package protocol

import (
	"context"
	"strings"
	"testing"

	"github.com/dppub/dppub/internal/wire"
)

type pingMsg struct{ n uint64 }

func (pingMsg) MessageType() string { return "ping" }
func (m pingMsg) MarshalBinary() ([]byte, error) {
	var w wire.Writer
	w.Uint64(m.n)
	return w.Data(), nil
}

// pinger sends n pings to its peer and is done after receiving n replies.
type pinger struct {
	id, peer string
	n, got   uint64
	first    bool
}

func (p *pinger) ID() string { return p.id }
func (p *pinger) Start() ([]Envelope, error) {
	if !p.first {
		return nil, nil
	}
	e, err := Seal("s", p.id, p.peer, pingMsg{1})
	return []Envelope{e}, err
}
func (p *pinger) Handle(e Envelope) ([]Envelope, error) {
	r := wire.NewReader(e.Payload)
	v := r.Uint64()
	if err := r.Finish(); err != nil {
		return nil, err
	}
	p.got++
	if v >= p.n {
		return nil, nil
	}
	out, err := Seal("s", p.id, p.peer, pingMsg{v + 1})
	return []Envelope{out}, err
}
func (p *pinger) Done() bool { return p.got >= p.n/2 }

func TestRunLocalDeliversAndCounts(t *testing.T) {
	a := &pinger{id: "a", peer: "b", n: 10, first: true}
	b := &pinger{id: "b", peer: "a", n: 10}
	st, err := RunLocal(context.Background(), a, b)
	if err != nil {
		t.Fatal(err)
	}
	if st.Messages != 10 || a.got != 5 || b.got != 5 {
		t.Fatalf("messages %d, a got %d, b got %d; want 10, 5, 5", st.Messages, a.got, b.got)
	}
}

func TestRunLocalReportsStuckRoles(t *testing.T) {
	a := &pinger{id: "a", peer: "b", n: 10}
	b := &pinger{id: "b", peer: "a", n: 10}
	_, err := RunLocal(context.Background(), a, b)
	if err == nil || !strings.Contains(err.Error(), "a, b not done") {
		t.Fatalf("want a stuck-roles error, got %v", err)
	}
}

func TestEnvelopeRejectsTruncated(t *testing.T) {
	var e Envelope
	if err := e.UnmarshalBinary([]byte{1, 2, 3}); err == nil {
		t.Fatal("truncated envelope accepted")
	}
}

func FuzzEnvelope(f *testing.F) {
	e := Envelope{Session: "s", From: "a", To: "b", Seq: 3, Type: "t", Payload: []byte("xyz")}
	b, _ := e.MarshalBinary()
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		var e Envelope
		if e.UnmarshalBinary(data) != nil {
			return
		}
		again, _ := e.MarshalBinary()
		var e2 Envelope
		if err := e2.UnmarshalBinary(again); err != nil || e2.Seq != e.Seq || string(e2.Payload) != string(e.Payload) {
			t.Fatalf("round trip failed: %v", err)
		}
	})
}
