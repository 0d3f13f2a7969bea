package protocol

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

type blob []byte

func (blob) MessageType() string              { return "blob" }
func (b blob) MarshalBinary() ([]byte, error) { return b, nil }

// streamer sends total one-byte chunks to its peer through More and
// checks, at every call, that every chunk it sent before was delivered.
type streamer struct {
	t           *testing.T
	sink        *sink
	sent, total int
}

func (s *streamer) ID() string                          { return "src" }
func (s *streamer) Start() ([]Envelope, error)          { return nil, nil }
func (s *streamer) Handle(Envelope) ([]Envelope, error) { return nil, nil }
func (s *streamer) Done() bool                          { return s.sent == s.total }
func (s *streamer) More() ([]Envelope, error) {
	if s.sink.got != s.sent {
		s.t.Errorf("More called with %d of %d chunks undelivered", s.sent-s.sink.got, s.sent)
	}
	if s.sent == s.total {
		return nil, nil
	}
	s.sent++
	e, err := Seal("s", "src", "dst", blob{byte(s.sent)})
	return []Envelope{e}, err
}

type sink struct{ got, want int }

func (k *sink) ID() string                 { return "dst" }
func (k *sink) Start() ([]Envelope, error) { return nil, nil }
func (k *sink) Handle(e Envelope) ([]Envelope, error) {
	k.got++
	if int(e.Payload[0]) != k.got {
		return nil, fmt.Errorf("chunk %d arrived as number %d", e.Payload[0], k.got)
	}
	return nil, nil
}
func (k *sink) Done() bool { return k.got == k.want }

// RunLocal asks a Streamer for its next batch only after the previous one
// was delivered, in order, so a stream of any length is held one batch
// at a time; a Recorder passes the stream through.
func TestRunLocalStreamsOneBatchAtATime(t *testing.T) {
	k := &sink{want: 50}
	s := &streamer{t: t, sink: k, total: 50}
	st, err := RunLocal(context.Background(), &Recorder{Role: s}, k)
	if err != nil {
		t.Fatal(err)
	}
	if st.Messages != 50 || k.got != 50 {
		t.Fatalf("%d messages, %d chunks received; want 50", st.Messages, k.got)
	}
}

// Seal refuses a body over MaxPayload and names that limit.
func TestSealRefusesOversizedPayload(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 256 MiB; skipped with -short")
	}
	if _, err := Seal("s", "a", "b", make(blob, MaxPayload)); err != nil {
		t.Fatalf("a payload of exactly MaxPayload: %v", err)
	}
	_, err := Seal("s", "a", "b", make(blob, MaxPayload+1))
	if err == nil || !strings.Contains(err.Error(), "exceeds the message limit of 268435456 bytes") {
		t.Fatalf("got %v", err)
	}
}

func TestRowsPerChunk(t *testing.T) {
	for _, c := range []struct{ row, want int }{{848, ChunkBytes / 848}, {ChunkBytes * 2, 1}, {1, ChunkBytes}} {
		if got := RowsPerChunk(c.row); got != c.want {
			t.Errorf("RowsPerChunk(%d) = %d, want %d", c.row, got, c.want)
		}
	}
}
