package protocol

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// panicker panics in the step its field names.
type panicker struct {
	pinger
	in string // "start", "handle" or "more"
	// more counts the batches More has sent.
	more int
}

func (p *panicker) Start() ([]Envelope, error) {
	if p.in == "start" {
		panic("boom in start")
	}
	return p.pinger.Start()
}

func (p *panicker) Handle(e Envelope) ([]Envelope, error) {
	if p.in == "handle" {
		var m map[string]int
		m["x"] = 1 // a nil map: a programming error reached by a message
	}
	return p.pinger.Handle(e)
}

func (p *panicker) More() ([]Envelope, error) {
	if p.in == "more" {
		var s []int
		_ = s[p.more]
	}
	return nil, nil
}

// A panic inside a role's step is a *PanicError naming the role and the
// step, not a crash of the process that runs every role. Before RunLocal
// recovered panics, each of these cases crashed the test binary.
func TestRunLocalRecoversPanics(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"start", "b panicked while start: boom in start"},
		{"handle", "b panicked while handling ping from a: assignment to entry in nil map"},
		{"more", "b panicked while streaming: runtime error: index out of range [0] with length 0"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			a := &pinger{id: "a", peer: "b", n: 4, first: true}
			b := &panicker{pinger: pinger{id: "b", peer: "a", n: 4}, in: tc.in}
			_, err := RunLocal(context.Background(), a, b)
			if err == nil {
				t.Fatal("the run succeeded")
			}
			var pe *PanicError
			if !errors.As(err, &pe) || pe.Role != "b" || len(pe.Stack) == 0 {
				t.Fatalf("error %v is not a PanicError of role b with its stack", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q lacks %q", err, tc.want)
			}
		})
	}
}
