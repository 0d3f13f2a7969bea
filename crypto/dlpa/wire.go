package dlpa

import (
	"encoding/binary"
	"errors"
	"github.com/dppub/dppub/crypto/internal/wire"
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
		b = wire.AppendField(b, c.Bytes())
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
	out := SharesMessage{From: int(r.Uint32())}
	for j := range out.Ciphertexts {
		out.Ciphertexts[j] = new(big.Int).SetBytes(r.Field())
	}
	if err := r.Finish(); err != nil {
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
	return wire.AppendField(b, c.Ciphertext.Bytes()), nil
}

// UnmarshalBinary decodes what MarshalBinary wrote; Combine validates the
// ciphertext.
func (c *Contribution) UnmarshalBinary(b []byte) error {
	r, err := newReader(b, contributionMagic)
	if err != nil {
		return err
	}
	out := Contribution{From: int(r.Uint32())}
	out.Ciphertext = new(big.Int).SetBytes(r.Field())
	if err := r.Finish(); err != nil {
		return err
	}
	*c = out
	return nil
}

func newReader(b []byte, magic string) (*wire.Reader, error) {
	return wire.NewReader(b, magic, "dlpa", maxField)
}
