// The view audit's doors: wrappers around the coordinator and S that read
// what they receive and, for the noise-free and sign-unmasked variants,
// rewrite it on the way in.

package audits

import (
	"fmt"
	"math"

	"github.com/dppub/dppub/audit"
	proto "github.com/dppub/dppub/method/pdpmvds/roles"
	"github.com/dppub/dppub/protocol"
)

// pdpDoor sits at the coordinator's door: it reads the requests the
// coordinator sends and the values it receives, and, for
// VariantNoiseFree, rewrites the parties' marginal shares into the exact
// counts before the coordinator reads them.
type pdpDoor struct {
	inner     *protocol.Recorder
	tr        *pdpTrace
	side      audit.Side
	noiseFree bool
	requests  map[uint64]*proto.Request
	totals    map[uint64][]protocol.Envelope
}

func (d *pdpDoor) ID() string { return d.inner.ID() }
func (d *pdpDoor) Done() bool { return d.inner.Done() }

func (d *pdpDoor) Start() ([]protocol.Envelope, error) {
	out, err := d.inner.Start()
	if err != nil {
		return nil, err
	}
	return out, d.read(out)
}

// read notes the requests among the coordinator's messages.
func (d *pdpDoor) read(out []protocol.Envelope) error {
	for _, e := range out {
		if e.Type != pdpTypeRequest {
			continue
		}
		q := new(proto.Request)
		if err := q.UnmarshalBinary(e.Payload); err != nil {
			return err
		}
		d.requests[q.ID] = q
	}
	return nil
}

func (d *pdpDoor) Handle(e protocol.Envelope) ([]protocol.Envelope, error) {
	var m proto.Body
	if err := m.UnmarshalBinary(e.Payload); err != nil {
		return nil, err
	}
	q := d.requests[m.ID]
	if q == nil {
		return nil, fmt.Errorf("audit: %s for request %d, which the coordinator never sent", m.Kind, m.ID)
	}
	switch {
	case m.Kind == "result" && q.Kind != proto.KindSetup:
		if q.Kind == proto.KindMarginal && d.noiseFree {
			exact, _, err := d.tr.h.exact(d.side, q)
			if err != nil {
				return nil, err
			}
			m.Floats = exact
			if e, err = protocol.Seal(e.Session, e.From, e.To, &m); err != nil {
				return nil, err
			}
		}
		d.tr.releases = append(d.tr.releases, pdpRelease{q: q, values: m.Floats})
		return d.pass(e)
	case m.Kind == "totals":
		d.totals[m.ID] = append(d.totals[m.ID], e)
		if len(d.totals[m.ID]) < audit.PipelineParties {
			return nil, nil
		}
		return d.assemble(q, d.totals[m.ID])
	}
	return d.pass(e)
}

func (d *pdpDoor) pass(e protocol.Envelope) ([]protocol.Envelope, error) {
	out, err := d.inner.Handle(e)
	if err != nil {
		return nil, err
	}
	return out, d.read(out)
}

// assemble reads (and for VariantNoiseFree rewrites) the holders' totals
// of one request, then passes them on. A marginal's ring value is its
// count in grid steps plus the noise in grid steps (the commodity
// suite's encoding: fine = 1), so the release is G·Σ words.
func (d *pdpDoor) assemble(q *proto.Request, es []protocol.Envelope) ([]protocol.Envelope, error) {
	bodies := make([]proto.Body, len(es))
	for i, e := range es {
		if err := bodies[i].UnmarshalBinary(e.Payload); err != nil {
			return nil, err
		}
	}
	if q.Kind == proto.KindMarginal {
		exact, grid, err := d.tr.h.exact(d.side, q)
		if err != nil {
			return nil, err
		}
		if d.noiseFree {
			// The first holder's share becomes the exact counts minus
			// the others': no party's noise is left in the release.
			d.tr.noiseless[q.ID] = true
			w := bodies[0].Words
			for c := range w {
				w[c] = uint64(int64(math.Round(exact[c] / grid)))
				for _, b := range bodies[1:] {
					w[c] -= b.Words[c]
				}
			}
			e, err := protocol.Seal(es[0].Session, es[0].From, es[0].To, &bodies[0])
			if err != nil {
				return nil, err
			}
			es[0] = e
		}
		vals := make([]float64, len(bodies[0].Words))
		for c := range vals {
			var sum uint64
			for _, b := range bodies {
				sum += b.Words[c]
			}
			vals[c] = float64(int64(sum)) * grid
		}
		d.tr.releases = append(d.tr.releases, pdpRelease{q: q, values: vals})
	}
	return protocol.HandleEach(es, d.pass)
}

// pdpSDoor sits at S's door: it holds each score's two sign queries until
// both are there, notes their sum V (what S learns), and, for
// VariantSignUnmasked, rewrites the first so that the sum is
// sign(t)·|V|, then puts S's reply back to the bits of the sound V.
type pdpSDoor struct {
	inner    protocol.Role
	tr       *pdpTrace
	side     audit.Side
	unmasked bool
	requests map[uint64]*proto.Request
	queries  map[uint64][]protocol.Envelope
	// bits are the sound sign bits by request (VariantSignUnmasked).
	bits map[uint64][]uint64
}

func (d *pdpSDoor) ID() string { return d.inner.ID() }

// Done: a held query is work in flight.
func (d *pdpSDoor) Done() bool { return d.inner.Done() && len(d.queries) == 0 }

func (d *pdpSDoor) Start() ([]protocol.Envelope, error) { return d.pass(d.inner.Start()) }

func (d *pdpSDoor) Handle(e protocol.Envelope) ([]protocol.Envelope, error) {
	switch e.Type {
	case pdpTypeRequest:
		q := new(proto.Request)
		if err := q.UnmarshalBinary(e.Payload); err != nil {
			return nil, err
		}
		d.requests[q.ID] = q
	case pdpTypeSignQuery:
		var m proto.Body
		if err := m.UnmarshalBinary(e.Payload); err != nil {
			return nil, err
		}
		d.queries[m.ID] = append(d.queries[m.ID], e)
		if len(d.queries[m.ID]) < audit.PipelineParties {
			return nil, nil
		}
		return d.signStep(m.ID)
	}
	return d.pass(d.inner.Handle(e))
}

// signStep notes (and for VariantSignUnmasked rewrites) the pair's
// queries of request id, then hands them to S.
func (d *pdpSDoor) signStep(id uint64) ([]protocol.Envelope, error) {
	es := d.queries[id]
	delete(d.queries, id)
	q := d.requests[id]
	if q == nil || q.Kind != proto.KindScore || len(q.Attrs) != 2 {
		return nil, fmt.Errorf("audit: S received sign queries for request %d, which is not a pair score it was sent: %v", id, q)
	}
	bodies := make([]proto.Body, len(es))
	for i, e := range es {
		if err := bodies[i].UnmarshalBinary(e.Payload); err != nil {
			return nil, err
		}
		if len(bodies[i].Words) != len(bodies[0].Words) {
			return nil, fmt.Errorf("audit: sign queries of %d and %d words for request %d", len(bodies[0].Words), len(bodies[i].Words), id)
		}
	}
	v := make([]uint64, len(bodies[0].Words))
	for c := range v {
		v[c] = bodies[0].Words[c] + bodies[1].Words[c]
	}
	if d.unmasked {
		neg, err := d.tr.h.negativeT(d.side, q)
		if err != nil {
			return nil, err
		}
		if len(neg) != len(v) {
			return nil, fmt.Errorf("audit: sign queries of %d words for request %d of %d cells", len(v), id, len(neg))
		}
		bits := make([]uint64, len(v))
		for c, x := range v {
			if int64(x) < 0 {
				bits[c] = 1
			}
			// Without the coin s, V = r·t + r', which has |V| and the
			// sign of t (or is ≥ 0 when t = 0).
			abs := x
			if int64(x) < 0 {
				abs = -x
			}
			if neg[c] {
				abs = -abs
			}
			v[c] = abs
			bodies[0].Words[c] = abs - bodies[1].Words[c]
		}
		d.bits[id] = bits
		e, err := protocol.Seal(es[0].Session, es[0].From, es[0].To, &bodies[0])
		if err != nil {
			return nil, err
		}
		es[0] = e
	}
	d.tr.signs = append(d.tr.signs, pdpSigns{q: q, v: v})
	return protocol.HandleEach(es, func(e protocol.Envelope) ([]protocol.Envelope, error) { return d.pass(d.inner.Handle(e)) })
}

// pass returns S's messages, its sign replies put back to the sound bits
// for VariantSignUnmasked.
func (d *pdpSDoor) pass(out []protocol.Envelope, err error) ([]protocol.Envelope, error) {
	if err != nil || !d.unmasked {
		return out, err
	}
	for i, e := range out {
		if e.Type != pdpTypeSigns {
			continue
		}
		var m proto.Body
		if err := m.UnmarshalBinary(e.Payload); err != nil {
			return nil, err
		}
		bits, ok := d.bits[m.ID]
		if !ok || len(bits) != len(m.Words) {
			return nil, fmt.Errorf("audit: S replied %d signs for request %d, whose queries it was not handed", len(m.Words), m.ID)
		}
		m.Words = bits
		if out[i], err = protocol.Seal(e.Session, e.From, e.To, &m); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Envelope types the doors read.
var (
	pdpTypeRequest   = (*proto.Request)(nil).MessageType()
	pdpTypeSignQuery = (&proto.Body{Kind: "sign-query"}).MessageType()
	pdpTypeSigns     = (&proto.Body{Kind: "signs"}).MessageType()
)
