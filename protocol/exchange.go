package protocol

import (
	"context"
	"fmt"
)

// Exchange lets a coordinating role run a sequential computation (an
// engine that asks for one measurement after another) while staying a
// step object: the computation runs in its own goroutine and blocks in
// Ask; the role takes each question with Next, turns it into messages,
// and hands the computed answer back with Answer once the replies are in.
// Roles do no I/O, so a question is answered by the next Handle calls,
// whether the other roles are in this process or across a network.
type Exchange[Q, A any] struct {
	ctx     context.Context
	cancel  context.CancelFunc
	asks    chan Q
	answers chan exchangeAnswer[A]
	ended   chan error
}

type exchangeAnswer[A any] struct {
	value A
	err   error
}

// StartExchange runs compute in a goroutine. Cancelling ctx, or Stop,
// ends it at its next Ask.
func StartExchange[Q, A any](ctx context.Context, compute func(ctx context.Context, ask func(context.Context, Q) (A, error)) error) *Exchange[Q, A] {
	ctx, cancel := context.WithCancel(ctx)
	x := &Exchange[Q, A]{ctx: ctx, cancel: cancel, asks: make(chan Q), answers: make(chan exchangeAnswer[A]), ended: make(chan error, 1)}
	go func() { x.ended <- compute(ctx, x.ask) }()
	return x
}

// ask hands a question to the role and waits for its answer; it runs in
// the computation's goroutine.
func (x *Exchange[Q, A]) ask(ctx context.Context, q Q) (A, error) {
	var zero A
	select {
	case x.asks <- q:
	case <-ctx.Done():
		return zero, ctx.Err()
	}
	select {
	case a := <-x.answers:
		return a.value, a.err
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

// Next waits for the computation's next question (more true) or its end
// (more false, with the computation's error).
func (x *Exchange[Q, A]) Next() (q Q, more bool, err error) {
	select {
	case q := <-x.asks:
		return q, true, nil
	case err := <-x.ended:
		x.cancel()
		return q, false, err
	case <-x.ctx.Done():
		return q, false, fmt.Errorf("protocol: %w", x.ctx.Err())
	}
}

// Answer hands the computation the answer to its current question.
func (x *Exchange[Q, A]) Answer(a A, err error) error {
	select {
	case x.answers <- exchangeAnswer[A]{value: a, err: err}:
		return nil
	case <-x.ctx.Done():
		return fmt.Errorf("protocol: %w", x.ctx.Err())
	}
}

// Stop ends the computation (for a session that failed); idempotent.
func (x *Exchange[Q, A]) Stop() { x.cancel() }
