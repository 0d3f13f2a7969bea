package transport

import (
	"context"
	"errors"
	"testing"

	"connectrpc.com/connect"
	"github.com/dppub/dppub/consortium"
)

// A session's inbox holds at most maxInboxBytes of payload: a delivery
// that would pass it waits until the role takes an envelope (a sender
// whose context ends first gets Unavailable, and retries), while an empty
// inbox takes any envelope and a duplicate is acknowledged at once.
func TestInboxHoldsBackASenderWhenFull(t *testing.T) {
	s := &session{n: &Node{}, id: "s", coordinatorName: "curator", self: "curator", coordinator: true,
		members: map[string]string{"curator": "curator", "owner": "owner"}, started: true,
		state: stateRunning, lastSeq: map[string]uint64{}, wake: make(chan struct{}, 1),
		finished: make(chan struct{}), room: make(chan struct{})}
	owner := consortium.Identity{Name: "owner", Role: "owner"}
	chunk := func(seq uint64, n int) envelope {
		return envelope{Session: "s", From: "owner", To: "curator", Type: "rows", Seq: seq, Payload: make([]byte, n)}
	}
	done, cancel := context.WithCancel(context.Background())
	cancel() // a sender that will not wait

	big := maxInboxBytes * 5 / 8
	if _, err := s.accept(done, owner, chunk(1, big)); err != nil {
		t.Fatalf("an empty inbox refused %d bytes: %v", big, err)
	}
	for _, c := range []struct {
		name string
		env  envelope
		code connect.Code // 0: accepted
		dup  bool
	}{
		{"over the bound", chunk(2, big), connect.CodeUnavailable, false},
		{"a duplicate while full", chunk(1, big), 0, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dup, err := s.accept(done, owner, c.env)
			if got := connect.CodeOf(err); err != nil && got != c.code || err == nil && c.code != 0 || dup != c.dup {
				t.Fatalf("got dup %v, %v; want dup %v, code %v", dup, err, c.dup, c.code)
			}
			if len(s.inbox) != 1 || s.queued != big {
				t.Fatalf("inbox holds %d envelopes, %d bytes; want 1, %d", len(s.inbox), s.queued, big)
			}
		})
	}

	// A sender that waits is let in once the role has taken the first.
	accepted := make(chan error, 1)
	go func() {
		_, err := s.accept(context.Background(), owner, chunk(2, big))
		accepted <- err
	}()
	if env, ok := s.next(); !ok || env.Seq != 1 {
		t.Fatalf("next: %v %v", env.Seq, ok)
	}
	if err := <-accepted; err != nil {
		t.Fatalf("the waiting delivery: %v", err)
	}
	if len(s.inbox) != 1 || s.inbox[0].Seq != 2 || s.queued != big {
		t.Fatalf("inbox after the wait: %d envelopes, %d bytes", len(s.inbox), s.queued)
	}

	// A session that ends releases a waiting sender, which is refused.
	go func() {
		_, err := s.accept(context.Background(), owner, chunk(3, big))
		accepted <- err
	}()
	s.mu.Lock()
	s.state, s.err = stateFailed, errors.New("stopped")
	close(s.finished)
	s.mu.Unlock()
	if err := <-accepted; connect.CodeOf(err) != connect.CodeFailedPrecondition {
		t.Fatalf("a delivery to a failed session: %v", err)
	}
}
