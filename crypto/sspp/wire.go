package sspp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"

	"github.com/dppub/dppub/crypto/paillier"
)

// maxField bounds one length-prefixed field, so a hostile length cannot
// make a reader allocate without limit.
const maxField = 1 << 28

func appendField(b, f []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(f)))
	return append(b, f...)
}

// reader reads big-endian fields; the first error sticks.
type reader struct {
	b   []byte
	err error
}

func newReader(b []byte, magic string) (*reader, error) {
	if len(b) < len(magic) || string(b[:len(magic)]) != magic {
		return nil, fmt.Errorf("sspp: not a %q message", magic[:4])
	}
	return &reader{b: b[len(magic):]}, nil
}

var errTruncated = errors.New("sspp: message truncated")

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b) {
		r.err = errTruncated
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

func (r *reader) uint64() uint64 {
	b := r.take(8)
	if b == nil {
		return 0
	}
	return binary.BigEndian.Uint64(b)
}

func (r *reader) field() []byte {
	n := r.uint32()
	if n > maxField {
		r.err = fmt.Errorf("sspp: field of %d bytes too long", n)
		return nil
	}
	return r.take(int(n))
}

func (r *reader) publicKey() (*paillier.PublicKey, error) {
	n := r.field()
	if r.err != nil {
		return nil, r.err
	}
	pk, err := paillier.NewPublicKey(new(big.Int).SetBytes(n))
	if err != nil {
		return nil, fmt.Errorf("sspp: %w", err)
	}
	return pk, nil
}

// rest returns the unread bytes.
func (r *reader) rest() []byte { return r.take(len(r.b)) }

// finish reports the sticky error or trailing bytes.
func (r *reader) finish() error {
	if r.err != nil {
		return r.err
	}
	if len(r.b) != 0 {
		return fmt.Errorf("sspp: %d trailing bytes", len(r.b))
	}
	return nil
}
