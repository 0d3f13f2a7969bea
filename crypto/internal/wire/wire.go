// Package wire is the length-prefixed, big-endian message format shared by
// dppub's cryptographic packages: a magic prefix naming the message and its
// version, then fixed-width integers and uint32-length-prefixed fields.
package wire

import (
	"encoding/binary"
	"fmt"
)

// AppendField appends f with its uint32 length prefix.
func AppendField(b, f []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(f)))
	return append(b, f...)
}

// Reader reads a message; the first error sticks (check Finish or Err).
type Reader struct {
	b        []byte
	err      error
	pkg      string
	maxField uint32
}

// NewReader checks the magic prefix. Errors are prefixed with pkg, and no
// field longer than maxField bytes is accepted, so a hostile length cannot
// make a reader allocate without limit.
func NewReader(b []byte, magic, pkg string, maxField uint32) (*Reader, error) {
	if len(b) < len(magic) || string(b[:len(magic)]) != magic {
		return nil, fmt.Errorf("%s: not a %q message", pkg, magic[:4])
	}
	return &Reader{b: b[len(magic):], pkg: pkg, maxField: maxField}, nil
}

// Take returns the next n bytes.
func (r *Reader) Take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b) {
		r.err = fmt.Errorf("%s: message truncated", r.pkg)
		return nil
	}
	f := r.b[:n]
	r.b = r.b[n:]
	return f
}

// Uint32 reads a big-endian uint32.
func (r *Reader) Uint32() uint32 {
	if b := r.Take(4); b != nil {
		return binary.BigEndian.Uint32(b)
	}
	return 0
}

// Field reads a length-prefixed field.
func (r *Reader) Field() []byte {
	n := r.Uint32()
	if n > r.maxField {
		r.err = fmt.Errorf("%s: field of %d bytes too long", r.pkg, n)
		return nil
	}
	return r.Take(int(n))
}

// Err is the first error met, if any.
func (r *Reader) Err() error { return r.err }

// Finish reports the first error, or trailing bytes.
func (r *Reader) Finish() error {
	if r.err != nil {
		return r.err
	}
	if len(r.b) != 0 {
		return fmt.Errorf("%s: %d trailing bytes", r.pkg, len(r.b))
	}
	return nil
}
