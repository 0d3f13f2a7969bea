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
	var w wire.Writer
	w.Tag("PSB1")
	w.String(m.Origin)
	w.Int(m.Hops)
	w.Bytes(pack(m.Elements))
	return w.Data(), nil
}

func (m *BlindedMsg) UnmarshalBinary(b []byte) error {
	r := wire.NewReader(b)
	r.Tag("PSB1")
	m.Origin = r.String()
	m.Hops = r.Int()
	raw := r.Bytes()
	if err := r.Finish(); err != nil {
		return fmt.Errorf("psi: blinded set: %w", err)
	}
	var err error
	if m.Elements, err = unpack(raw); err != nil {
		return fmt.Errorf("psi: blinded set of %q: %w", m.Origin, err)
	}
	return nil
}

// FullMsg is the set of party Origin blinded by every party, in the order
// Origin sent it.
type FullMsg struct {
	Origin   string
	Elements []cpsi.Element
}

func (FullMsg) MessageType() string { return TypeFull }

func (m FullMsg) MarshalBinary() ([]byte, error) {
	var w wire.Writer
	w.Tag("PSF1")
	w.String(m.Origin)
	w.Bytes(pack(m.Elements))
	return w.Data(), nil
}

func (m *FullMsg) UnmarshalBinary(b []byte) error {
	r := wire.NewReader(b)
	r.Tag("PSF1")
	m.Origin = r.String()
	raw := r.Bytes()
	if err := r.Finish(); err != nil {
		return fmt.Errorf("psi: full set: %w", err)
	}
	var err error
	if m.Elements, err = unpack(raw); err != nil {
		return fmt.Errorf("psi: full set of %q: %w", m.Origin, err)
	}
	return nil
}

// pack concatenates the elements' encodings.
func pack(es []cpsi.Element) []byte {
	out := make([]byte, 0, len(es)*cpsi.ElementSize)
	for _, e := range es {
		out = append(out, e[:]...)
	}
	return out
}

func unpack(b []byte) ([]cpsi.Element, error) {
	if len(b)%cpsi.ElementSize != 0 {
		return nil, fmt.Errorf("%d bytes is not a whole number of %d-byte elements", len(b), cpsi.ElementSize)
	}
	out := make([]cpsi.Element, len(b)/cpsi.ElementSize)
	for i := range out {
		copy(out[i][:], b[i*cpsi.ElementSize:])
	}
	return out, nil
}
