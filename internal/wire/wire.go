// Package wire is dppub's one binary message format: fixed-width
// little-endian integers and floats, and byte strings and slices behind a
// uint64 length prefix. Protocol envelopes and bodies (package protocol and
// its method packages) and the cryptographic messages (crypto/paillier's
// partial decryptions, crypto/dlpa's rounds) are all written with it.
//
// A Reader never allocates more than its input holds: every length prefix
// is checked against MaxFieldLen and the bytes left before anything is
// made, so a malformed or hostile message costs at most its own size.
// Payloads larger than a field may hold travel in chunks (protocol.Chunk).
package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
)

// MaxFieldLen bounds the size in bytes of any one field a Reader accepts
// (a byte string, or a slice's elements times their width), so a
// malformed or hostile message cannot make it allocate without limit.
const MaxFieldLen = 1 << 28

// Writer appends fields in a fixed little-endian, length-prefixed format.
type Writer struct{ buf []byte }

// Data returns the bytes written.
func (w *Writer) Data() []byte { return w.buf }

// Tag writes magic as it is, without a length: a fixed prefix naming a
// message and its version, which Reader.Tag checks.
func (w *Writer) Tag(magic string) { w.buf = append(w.buf, magic...) }

// Uint64 writes v.
func (w *Writer) Uint64(v uint64) { w.buf = binary.LittleEndian.AppendUint64(w.buf, v) }

// Int writes v as a signed 64-bit integer.
func (w *Writer) Int(v int) { w.Uint64(uint64(int64(v))) }

// Float64 writes v.
func (w *Writer) Float64(v float64) { w.Uint64(math.Float64bits(v)) }

// Bytes writes a length-prefixed byte slice.
func (w *Writer) Bytes(b []byte) {
	w.buf = slices.Grow(w.buf, len(b)+8)
	w.Uint64(uint64(len(b)))
	w.buf = append(w.buf, b...)
}

// String writes a length-prefixed string.
func (w *Writer) String(s string) { w.Bytes([]byte(s)) }

// Float64s writes a length-prefixed float slice.
func (w *Writer) Float64s(v []float64) { writeSlice(w, v, w.Float64) }

// Uint64s writes a length-prefixed uint64 slice.
func (w *Writer) Uint64s(v []uint64) { writeSlice(w, v, w.Uint64) }

// Ints writes a length-prefixed int slice (each as its int64 bits).
func (w *Writer) Ints(v []int) { writeSlice(w, v, w.Int) }

// writeSlice writes len(v), then each element of 8 bytes with put.
func writeSlice[T any](w *Writer, v []T, put func(T)) {
	w.buf = slices.Grow(w.buf, 8*len(v)+8)
	w.Uint64(uint64(len(v)))
	for _, x := range v {
		put(x)
	}
}

// Reader reads what a Writer wrote. The first error sticks; check Finish.
type Reader struct {
	buf []byte
	err error
}

// NewReader reads from b.
func NewReader(b []byte) *Reader { return &Reader{buf: b} }

var errShort = errors.New("message truncated")

// Tag consumes the fixed prefix magic, failing when the message does not
// start with it.
func (r *Reader) Tag(magic string) {
	if r.err != nil {
		return
	}
	if len(r.buf) < len(magic) || string(r.buf[:len(magic)]) != magic {
		r.err = fmt.Errorf("not a %q message", magic)
		return
	}
	r.buf = r.buf[len(magic):]
}

// Uint64 reads a uint64.
func (r *Reader) Uint64() uint64 {
	if r.err != nil {
		return 0
	}
	if len(r.buf) < 8 {
		r.err = errShort
		return 0
	}
	v := binary.LittleEndian.Uint64(r.buf)
	r.buf = r.buf[8:]
	return v
}

// Int reads a signed integer.
func (r *Reader) Int() int { return int(int64(r.Uint64())) }

// Float64 reads a float64.
func (r *Reader) Float64() float64 { return math.Float64frombits(r.Uint64()) }

// length reads a length prefix of elements of elem bytes each and checks
// the field's size in bytes, first against MaxFieldLen, then against the
// bytes left; each error names the limit it hit. (The check used to
// compare a count of elements with a limit in bytes, and to report the
// bytes left whichever limit failed.)
func (r *Reader) length(elem int) int {
	n := r.Uint64()
	if r.err != nil {
		return 0
	}
	if n > MaxFieldLen/uint64(elem) {
		r.err = fmt.Errorf("field of %d elements of %d bytes exceeds the field limit of %d bytes (wire.MaxFieldLen)", n, elem, MaxFieldLen)
		return 0
	}
	if size := n * uint64(elem); size > uint64(len(r.buf)) {
		r.err = fmt.Errorf("field of %d bytes exceeds the %d bytes left in the message", size, len(r.buf))
		return 0
	}
	return int(n)
}

// Bytes reads a length-prefixed byte slice (a copy).
func (r *Reader) Bytes() []byte {
	n := r.length(1)
	if r.err != nil {
		return nil
	}
	b := append([]byte(nil), r.buf[:n]...)
	r.buf = r.buf[n:]
	return b
}

// String reads a length-prefixed string.
func (r *Reader) String() string { return string(r.Bytes()) }

// Float64s reads a length-prefixed float slice.
func (r *Reader) Float64s() []float64 { return readSlice(r, r.Float64) }

// Uint64s reads a length-prefixed uint64 slice.
func (r *Reader) Uint64s() []uint64 { return readSlice(r, r.Uint64) }

// Ints reads a length-prefixed int slice.
func (r *Reader) Ints() []int { return readSlice(r, r.Int) }

// readSlice reads a length prefix, then that many elements of 8 bytes
// with get; nil when the prefix is bad.
func readSlice[T any](r *Reader, get func() T) []T {
	n := r.length(8)
	if r.err != nil {
		return nil
	}
	v := make([]T, n)
	for i := range v {
		v[i] = get()
	}
	return v
}

// Err is the first error met, if any.
func (r *Reader) Err() error { return r.err }

// Finish reports the first error, or trailing bytes.
func (r *Reader) Finish() error {
	if r.err != nil {
		return r.err
	}
	if len(r.buf) != 0 {
		return fmt.Errorf("%d unexpected trailing bytes", len(r.buf))
	}
	return nil
}
