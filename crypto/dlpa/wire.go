package dlpa

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/dppub/dppub/internal/wire"
)

// Wire formats (internal/wire): a 5-byte magic (4 letters and a version),
// the party index, then the ciphertexts as big-endian byte strings.
const (
	sharesMagic       = "DLSH\x01"
	contributionMagic = "DLCT\x01"
)

// MessageType names the message for the protocol envelope.
func (m *SharesMessage) MessageType() string { return "dlpa.shares" }

// MarshalBinary encodes the message.
func (m *SharesMessage) MarshalBinary() ([]byte, error) {
	var w wire.Writer
	w.Tag(sharesMagic)
	w.Int(m.From)
	for _, c := range m.Ciphertexts {
		if c == nil {
			return nil, errors.New("dlpa: incomplete shares message")
		}
		w.Bytes(c.Bytes())
	}
	return w.Data(), nil
}

// UnmarshalBinary decodes what MarshalBinary wrote; Contribute validates the
// ciphertexts against the shared key.
func (m *SharesMessage) UnmarshalBinary(b []byte) error {
	r := wire.NewReader(b)
	r.Tag(sharesMagic)
	out := SharesMessage{From: r.Int()}
	for j := range out.Ciphertexts {
		out.Ciphertexts[j] = new(big.Int).SetBytes(r.Bytes())
	}
	if err := r.Finish(); err != nil {
		return fmt.Errorf("dlpa: shares message: %w", err)
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
	ct := c.Ciphertext.Bytes()
	return wire.Marshal(wire.Tag(contributionMagic), &c.From, &ct), nil
}

// UnmarshalBinary decodes what MarshalBinary wrote; Combine validates the
// ciphertext.
func (c *Contribution) UnmarshalBinary(b []byte) error {
	var from int
	var ct []byte
	if err := wire.Unmarshal(b, "dlpa: contribution", wire.Tag(contributionMagic), &from, &ct); err != nil {
		return err
	}
	*c = Contribution{From: from, Ciphertext: new(big.Int).SetBytes(ct)}
	return nil
}
