package dlpa

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
)

// Wire formats: a 5-byte magic (4 letters and a version), a big-endian
// uint32 party index, then length-prefixed (uint32) big-endian ciphertexts.
const (
	sharesMagic       = "DLSH\x01"
	contributionMagic = "DLCT\x01"
	maxField          = 1 << 16
)

// MessageType names the message for the protocol envelope.
func (m *SharesMessage) MessageType() string { return "dlpa.shares" }

// MarshalBinary encodes the message.
func (m *SharesMessage) MarshalBinary() ([]byte, error) {
	b := binary.BigEndian.AppendUint32([]byte(sharesMagic), uint32(m.From))
	for _, c := range m.Ciphertexts {
		if c == nil {
			return nil, errors.New("dlpa: incomplete shares message")
		}
		b = appendField(b, c.Bytes())
	}
	return b, nil
}

// UnmarshalBinary decodes what MarshalBinary wrote; Contribute validates the
// ciphertexts against the shared key.
func (m *SharesMessage) UnmarshalBinary(b []byte) error {
	r, err := newReader(b, sharesMagic)
	if err != nil {
		return err
	}
	out := SharesMessage{From: int(r.uint32())}
	for j := range out.Ciphertexts {
		out.Ciphertexts[j] = new(big.Int).SetBytes(r.field())
	}
	if err := r.finish(); err != nil {
		return err
	}
	*m = out
	return nil
}

// MessageType names the message for the protocol envelope.
func (c *Contribution) MessageType() string { return "dlpa.contribution" }

// MarshalBinary encodes the contribution.
func (c *Contribution) MarshalBinary() ([]byte, error) {
	if c.Ciphertext == nil {
		return nil, errors.New("dlpa: empty contribution")
	}
	b := binary.BigEndian.AppendUint32([]byte(contributionMagic), uint32(c.From))
	return appendField(b, c.Ciphertext.Bytes()), nil
}

// UnmarshalBinary decodes what MarshalBinary wrote; Combine validates the
// ciphertext.
func (c *Contribution) UnmarshalBinary(b []byte) error {
	r, err := newReader(b, contributionMagic)
	if err != nil {
		return err
	}
	out := Contribution{From: int(r.uint32())}
	out.Ciphertext = new(big.Int).SetBytes(r.field())
	if err := r.finish(); err != nil {
		return err
	}
	*c = out
	return nil
}

func appendField(b, f []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(f)))
	return append(b, f...)
}

type reader struct {
	b   []byte
	err error
}

func newReader(b []byte, magic string) (*reader, error) {
	if len(b) < len(magic) || string(b[:len(magic)]) != magic {
		return nil, fmt.Errorf("dlpa: not a %q message", magic[:4])
	}
	return &reader{b: b[len(magic):]}, nil
}

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n > len(r.b) {
		r.err = errors.New("dlpa: message truncated")
		return nil
	}
	f := r.b[:n]
	r.b = r.b[n:]
	return f
}

func (r *reader) uint32() uint32 {
	b := r.take(4)
	if b == nil {
		return 0
	}
	return binary.BigEndian.Uint32(b)
}

func (r *reader) field() []byte {
	n := r.uint32()
	if n > maxField {
		r.err = fmt.Errorf("dlpa: field of %d bytes too long", n)
		return nil
	}
	return r.take(int(n))
}

func (r *reader) finish() error {
	if r.err != nil {
		return r.err
	}
	if len(r.b) != 0 {
		return fmt.Errorf("dlpa: %d trailing bytes", len(r.b))
	}
	return nil
}
