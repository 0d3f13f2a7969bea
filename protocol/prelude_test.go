package protocol

import (
	"strings"
	"testing"
)

// recorder is a next role that records the types it handles, in order.
type recorder struct{ got []string }

func (r *recorder) ID() string                 { return "m" }
func (r *recorder) Start() ([]Envelope, error) { return nil, nil }
func (r *recorder) Done() bool                 { return false }
func (r *recorder) Handle(e Envelope) ([]Envelope, error) {
	r.got = append(r.got, e.Type)
	return nil, nil
}

// TestPrelude checks that a prelude holds what overtakes the awaited
// message (up to its limit), refuses the awaited message from anyone but
// the coordinator, hands the held messages to the next role in order,
// forwards later ones, and treats a repeat as its options say.
func TestPrelude(t *testing.T) {
	for _, repeatOK := range []bool{false, true} {
		t.Run(map[bool]string{false: "repeat refused", true: "repeat dropped"}[repeatOK], func(t *testing.T) {
			next := &recorder{}
			var p Prelude
			p = NewPrelude(PreludeOptions{Package: "test", Member: "m", Coordinator: "c", Awaited: "go",
				Describe: "the signal", Limit: 2, RepeatOK: repeatOK,
				Take: func([]byte) ([]Envelope, error) { return p.Begin(func() (Role, error) { return next, nil }) }})
			steps := []struct {
				e    Envelope
				want string // error text, "" for none
			}{
				{Envelope{From: "x", Type: "a"}, ""},
				{Envelope{From: "x", Type: "b"}, ""},
				{Envelope{From: "x", Type: "c"}, "test: m holds 2 messages and has not been told the signal"},
				{Envelope{From: "x", Type: "go"}, "not from the coordinator c"},
				{Envelope{From: "c", Type: "go"}, ""},
				{Envelope{From: "x", Type: "d"}, ""},
				{Envelope{From: "c", Type: "go"}, map[bool]string{false: "after it had begun", true: ""}[repeatOK]},
			}
			for i, s := range steps {
				_, err := p.Handle(s.e)
				if (err == nil) != (s.want == "") || (err != nil && !strings.Contains(err.Error(), s.want)) {
					t.Fatalf("step %d (%s from %s): error %v, want %q", i, s.e.Type, s.e.From, err, s.want)
				}
			}
			if got := strings.Join(next.got, ","); got != "a,b,d" || p.Unwrap() != next {
				t.Fatalf("the next role got %q, want a,b,d", got)
			}
			if _, err := p.Begin(func() (Role, error) { return next, nil }); err == nil {
				t.Fatal("a second Begin was accepted")
			}
		})
	}
}

// TestBroadcast checks that Broadcast seals one envelope a recipient, in
// order, each the message Seal makes, and nothing for no recipients.
func TestBroadcast(t *testing.T) {
	out, err := Broadcast("s", "c", []string{"a", "b"}, pingMsg{n: 3})
	if err != nil || len(out) != 2 || out[0].To != "a" || out[1].To != "b" {
		t.Fatalf("Broadcast gave %v, %v", out, err)
	}
	want, _ := Seal("s", "c", "b", pingMsg{n: 3})
	if out[1].From != "c" || out[1].Session != "s" || out[1].Type != want.Type || string(out[1].Payload) != string(want.Payload) {
		t.Fatalf("Broadcast's envelope %+v, Seal's %+v", out[1], want)
	}
	if out, err := Broadcast("s", "c", nil, pingMsg{}); err != nil || out != nil {
		t.Fatalf("Broadcast to nobody gave %v, %v", out, err)
	}
}
