package protocol

import (
	"fmt"
	"runtime/debug"
)

// PanicError is a panic inside one step of a role (Start, Handle or a
// Streamer's More), recovered by the driver that ran the step: a message
// a role cannot handle must end the session with an error, never crash
// the process that holds every other role and its ledger. Drivers that
// know the role's accountant say beside it what was charged, since a step
// may panic after its charge was recorded.
type PanicError struct {
	// Role is the role's ID; Step what it was doing ("start", "handling
	// <type> from <sender>", "streaming").
	Role, Step string
	// Value is what the role panicked with; Stack where.
	Value any
	Stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("%s panicked while %s: %v", e.Role, e.Step, e.Value)
}

// Safely runs one step of role, turning a panic into a *PanicError.
func Safely(role, step string, f func() ([]Envelope, error)) (out []Envelope, err error) {
	defer func() {
		if v := recover(); v != nil {
			out, err = nil, &PanicError{Role: role, Step: step, Value: v, Stack: debug.Stack()}
		}
	}()
	return f()
}
