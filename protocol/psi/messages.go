package psi

import (
	"fmt"

	cpsi "github.com/dppub/dppub/crypto/psi"
	"github.com/dppub/dppub/internal/wire"
)

// Message types.
const (
	TypeBlinded = "psi/blinded"
	TypeFull    = "psi/full"
)

// BlindedMsg is the set of party Origin, blinded by Hops parties so far,
// on its way round the ring.
type BlindedMsg struct {
	Origin   string
	Hops     int
	Elements []cpsi.Element
}

func (BlindedMsg) MessageType() string { return TypeBlinded }

func (m BlindedMsg) MarshalBinary() ([]byte, error) {
	raw := pack(m.Elements)
	return wire.Marshal(wire.Tag("PSB1"), &m.Origin, &m.Hops, &raw), nil
}

func (m *BlindedMsg) UnmarshalBinary(b []byte) error {
	var raw []byte
	if err := wire.Unmarshal(b, "psi: blinded set", wire.Tag("PSB1"), &m.Origin, &m.Hops, &raw); err != nil {
		return err
	}
	return unpackInto(&m.Elements, raw, "blinded set", m.Origin)
}

// FullMsg is the set of party Origin blinded by every party, in the order
// Origin sent it.
type FullMsg struct {
	Origin   string
	Elements []cpsi.Element
}

func (FullMsg) MessageType() string { return TypeFull }

func (m FullMsg) MarshalBinary() ([]byte, error) {
	raw := pack(m.Elements)
	return wire.Marshal(wire.Tag("PSF1"), &m.Origin, &raw), nil
}

func (m *FullMsg) UnmarshalBinary(b []byte) error {
	var raw []byte
	if err := wire.Unmarshal(b, "psi: full set", wire.Tag("PSF1"), &m.Origin, &raw); err != nil {
		return err
	}
	return unpackInto(&m.Elements, raw, "full set", m.Origin)
}

// pack concatenates the elements' encodings.
func pack(es []cpsi.Element) []byte {
	out := make([]byte, 0, len(es)*cpsi.ElementSize)
	for _, e := range es {
		out = append(out, e[:]...)
	}
	return out
}

// unpackInto splits b into *es, refusing a partial element; its error
// names the set (what) and the party it came from.
func unpackInto(es *[]cpsi.Element, b []byte, what, origin string) error {
	if len(b)%cpsi.ElementSize != 0 {
		return fmt.Errorf("psi: %s of %q: %d bytes is not a whole number of %d-byte elements", what, origin, len(b), cpsi.ElementSize)
	}
	out := make([]cpsi.Element, len(b)/cpsi.ElementSize)
	for i := range out {
		copy(out[i][:], b[i*cpsi.ElementSize:])
	}
	*es = out
	return nil
}
