package roles

import (
	"context"
	"errors"
	"fmt"

	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/protocol"
)

// Engine is the computation that the coordinating party runs over the
// protocol: it measures through m (marginal.Synthesize, for instance) and
// returns when it needs no more measurements.
type Engine func(ctx context.Context, m measurement.Measurer) error

// Driver is the coordinator's role for a whole run in one protocol
// session, as needed when the roles are separate processes: where the
// Measurer runs one RunLocal session per measurement, the Driver runs the
// engine in a goroutine and turns each of its measurements into a request
// to the parties and S, one after another, and, when the engine returns,
// sends every role a Close. Parties and S then stay in the session until
// that Close (wrap them with Stay). Like every role it does no I/O; its
// Start and Handle block while the engine computes between measurements.
type Driver struct {
	s      Session
	ctx    context.Context
	engine Engine
	x      *protocol.Exchange[*Request, []float64]
	cur    *coordinator
	done   bool
}

var _ protocol.Role = (*Driver)(nil)

// NewDriver prepares the coordinator's role for s; engine runs when the
// role starts. Cancelling ctx (or a failure of the session, see Stop)
// stops the engine.
func NewDriver(ctx context.Context, s Session, engine Engine) (*Driver, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if engine == nil {
		return nil, fmt.Errorf("pdpmvds: a driver needs an engine")
	}
	return &Driver{s: s, ctx: ctx, engine: engine}, nil
}

// ID is the coordinator's protocol name.
func (d *Driver) ID() string { return CoordinatorID }

// Done reports whether the engine has finished and every role was told.
func (d *Driver) Done() bool { return d.done }

// Stop ends the engine (for a session that failed); idempotent.
func (d *Driver) Stop() {
	if d.x != nil {
		d.x.Stop()
	}
}

// Start runs the engine to its first measurement and sends it.
func (d *Driver) Start() ([]protocol.Envelope, error) {
	d.x = protocol.StartExchange(d.ctx, func(ctx context.Context, ask func(context.Context, *Request) ([]float64, error)) error {
		return d.engine(ctx, &Measurer{s: d.s, remote: ask})
	})
	return d.next()
}

// Handle passes a reply to the current request; once the request is
// complete, its values go back to the engine, which runs to its next
// measurement (or its end).
func (d *Driver) Handle(e protocol.Envelope) ([]protocol.Envelope, error) {
	if d.cur == nil {
		return nil, fmt.Errorf("pdpmvds: coordinator: %s from %s while no request is open", e.Type, e.From)
	}
	out, err := d.cur.Handle(e)
	if err != nil {
		d.Stop()
		return nil, err
	}
	if !d.cur.done {
		return out, nil
	}
	if err := d.x.Answer(d.cur.result, nil); err != nil {
		return nil, fmt.Errorf("pdpmvds: coordinator: %w", err)
	}
	d.cur = nil
	more, err := d.next()
	return append(out, more...), err
}

// next waits for the engine's next measurement, or its end.
func (d *Driver) next() ([]protocol.Envelope, error) {
	for {
		q, more, err := d.x.Next()
		if err != nil {
			return nil, fmt.Errorf("pdpmvds: coordinator: %w", err)
		}
		if !more {
			d.done = true
			return d.closeAll()
		}
		c, err := newCoordinator(d.s, q)
		if err != nil {
			if err := d.x.Answer(nil, err); err != nil {
				return nil, fmt.Errorf("pdpmvds: coordinator: %w", err)
			}
			continue
		}
		d.cur = c
		return c.Start()
	}
}

// closeAll tells every party and S that the run is over.
func (d *Driver) closeAll() ([]protocol.Envelope, error) {
	to := []string{ThirdPartyID}
	for k := range d.s.Parties {
		to = append(to, PartyID(k))
	}
	return protocol.Broadcast("", CoordinatorID, to, Close{})
}

// Close ends a run driven by a Driver.
type Close struct{}

// TypeClose is Close's message type.
const TypeClose = typePrefix + "close"

func (Close) MessageType() string { return TypeClose }

func (Close) MarshalBinary() ([]byte, error) { return []byte{}, nil }

func (*Close) UnmarshalBinary(b []byte) error {
	if len(b) != 0 {
		return fmt.Errorf("pdpmvds: close message of %d bytes, want 0", len(b))
	}
	return nil
}

// Staying is a party's or S's role in a run driven by a Driver: it is done
// only once the coordinator has closed the run and no request is in
// flight.
type Staying struct {
	inner  protocol.Role
	closed bool
}

// Stay wraps a Party or a ThirdParty for a driven run.
func Stay(r protocol.Role) *Staying { return &Staying{inner: r} }

func (s *Staying) ID() string                          { return s.inner.ID() }
func (s *Staying) Unwrap() protocol.Role               { return s.inner }
func (s *Staying) Start() ([]protocol.Envelope, error) { return s.inner.Start() }
func (s *Staying) Done() bool                          { return s.closed && s.inner.Done() }

// Handle takes the Close, and passes everything else on.
func (s *Staying) Handle(e protocol.Envelope) ([]protocol.Envelope, error) {
	if e.Type != TypeClose {
		if s.closed {
			return nil, fmt.Errorf("pdpmvds: %s: %s from %s after the run was closed", s.ID(), e.Type, e.From)
		}
		return s.inner.Handle(e)
	}
	if e.From != CoordinatorID {
		return nil, fmt.Errorf("pdpmvds: %s: close from %q, not the coordinator", s.ID(), e.From)
	}
	var c Close
	if err := c.UnmarshalBinary(e.Payload); err != nil {
		return nil, err
	}
	if !s.inner.Done() {
		return nil, errors.New("pdpmvds: " + s.ID() + ": the run was closed with a request in flight")
	}
	s.closed = true
	return nil, nil
}
