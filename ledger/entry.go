package ledger

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/mod/sumdb/tlog"
)

// Entry kinds used by dppub's protocols. Kind is free text; these are the
// conventional values.
const (
	KindStatisticsSubmitted = "statistics-submitted"
	KindDirectionComputed   = "direction-computed"
	KindArtifactPublished   = "artifact-published"
	KindBudgetSpent         = "budget-spent"
)

// Limits on entry fields, so that a hostile encoding cannot make a reader
// allocate without bound.
const (
	MaxKindLen    = 64
	MaxNameLen    = 64
	MaxSessionLen = 256
	MaxPayloadLen = 16 << 20
	maxSigLen     = 255
)

// entryVersion is the first byte of every encoded entry.
const entryVersion = 1

// signingDomain separates entry signatures from any other use of the keys.
const signingDomain = "dppub ledger entry v1\n"

// Entry is one record of the ledger.
type Entry struct {
	// Seq is the entry's index in the ledger, signed so that a sender also
	// commits to the position.
	Seq uint64
	// Kind says what the entry records, e.g. KindStatisticsSubmitted.
	Kind string
	// Sender is the name of the member who signed the entry.
	Sender string
	// Session identifies the release the entry belongs to.
	Session string
	// Time is the sender's clock; it is encoded in UTC to the nanosecond.
	Time time.Time
	// Payload is the canonical bytes of the content (for instance JSON).
	Payload []byte
	// PrevHash is the Hash of the previous entry; zero for the first.
	PrevHash [32]byte
	// Signature is Ed25519 by Sender over SigningMessage.
	Signature []byte
}

// ErrMalformed marks bytes that are not a valid entry encoding.
var ErrMalformed = errors.New("malformed entry")

// MarshalBinary returns the canonical encoding:
//
//	version(1) seq(8) kind sender session seconds(8) nanos(4) payload prev(32) signature
//
// where integers are big-endian and each variable field is a 4-byte length
// followed by its bytes. Equal entries have equal encodings, and
// UnmarshalBinary accepts exactly the encodings MarshalBinary produces.
func (e *Entry) MarshalBinary() ([]byte, error) {
	if err := e.checkFields(); err != nil {
		return nil, err
	}
	if len(e.Signature) > maxSigLen {
		return nil, fmt.Errorf("ledger: signature of %d bytes exceeds %d", len(e.Signature), maxSigLen)
	}
	b := e.appendUnsigned(make([]byte, 0, e.encodedLen()))
	return appendField(b, e.Signature), nil
}

// SigningMessage is what the sender signs: a domain prefix followed by the
// encoding of every field except Signature.
func (e *Entry) SigningMessage() ([]byte, error) {
	if err := e.checkFields(); err != nil {
		return nil, err
	}
	b := append(make([]byte, 0, len(signingDomain)+e.encodedLen()), signingDomain...)
	return e.appendUnsigned(b), nil
}

// Hash is the RFC 6962 leaf hash of the entry's encoding: the next entry's
// PrevHash and this entry's leaf in the Merkle tree.
func (e *Entry) Hash() (tlog.Hash, error) {
	enc, err := e.MarshalBinary()
	if err != nil {
		return tlog.Hash{}, err
	}
	return tlog.RecordHash(enc), nil
}

func (e *Entry) encodedLen() int {
	return 1 + 8 + 4*5 + len(e.Kind) + len(e.Sender) + len(e.Session) + 12 + len(e.Payload) + 32 + len(e.Signature)
}

func (e *Entry) appendUnsigned(b []byte) []byte {
	b = append(b, entryVersion)
	b = binary.BigEndian.AppendUint64(b, e.Seq)
	b = appendField(b, []byte(e.Kind))
	b = appendField(b, []byte(e.Sender))
	b = appendField(b, []byte(e.Session))
	b = binary.BigEndian.AppendUint64(b, uint64(e.Time.Unix()))
	b = binary.BigEndian.AppendUint32(b, uint32(e.Time.Nanosecond()))
	b = appendField(b, e.Payload)
	return append(b, e.PrevHash[:]...)
}

func appendField(b, field []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(field)))
	return append(b, field...)
}

// UnmarshalBinary decodes a canonical encoding, refusing anything else
// (unknown version, oversized or invalid fields, trailing bytes).
func (e *Entry) UnmarshalBinary(data []byte) error {
	d := decoder{buf: data}
	if v := d.byte(); v != entryVersion && d.err == nil {
		return fmt.Errorf("ledger: %w: version %d, want %d", ErrMalformed, v, entryVersion)
	}
	var out Entry
	out.Seq = d.uint64()
	out.Kind = string(d.field("kind", MaxKindLen))
	out.Sender = string(d.field("sender", MaxNameLen))
	out.Session = string(d.field("session", MaxSessionLen))
	sec, nsec := int64(d.uint64()), d.uint32()
	if d.err == nil && nsec >= 1e9 {
		return fmt.Errorf("ledger: %w: nanoseconds %d out of range", ErrMalformed, nsec)
	}
	out.Time = time.Unix(sec, int64(nsec)).UTC()
	if p := d.field("payload", MaxPayloadLen); len(p) > 0 {
		out.Payload = append([]byte(nil), p...)
	}
	copy(out.PrevHash[:], d.bytes(32))
	if s := d.field("signature", maxSigLen); len(s) > 0 {
		out.Signature = append([]byte(nil), s...)
	}
	if d.err == nil && len(d.buf) != 0 {
		d.err = fmt.Errorf("ledger: %w: %d trailing bytes", ErrMalformed, len(d.buf))
	}
	if d.err != nil {
		return d.err
	}
	if err := out.checkFields(); err != nil {
		return fmt.Errorf("ledger: %w: %w", ErrMalformed, err)
	}
	*e = out
	return nil
}

// decoder reads big-endian fields and remembers the first error.
type decoder struct {
	buf []byte
	err error
}

func (d *decoder) bytes(n int) []byte {
	if d.err != nil {
		return nil
	}
	if len(d.buf) < n {
		d.err = fmt.Errorf("ledger: %w: truncated after %d more bytes, need %d", ErrMalformed, len(d.buf), n)
		return nil
	}
	b := d.buf[:n]
	d.buf = d.buf[n:]
	return b
}

func (d *decoder) byte() byte {
	if b := d.bytes(1); b != nil {
		return b[0]
	}
	return 0
}

func (d *decoder) uint32() uint32 {
	if b := d.bytes(4); b != nil {
		return binary.BigEndian.Uint32(b)
	}
	return 0
}

func (d *decoder) uint64() uint64 {
	if b := d.bytes(8); b != nil {
		return binary.BigEndian.Uint64(b)
	}
	return 0
}

func (d *decoder) field(name string, limit int) []byte {
	n := d.uint32()
	if d.err == nil && n > uint32(limit) {
		d.err = fmt.Errorf("ledger: %w: %s length %d exceeds %d", ErrMalformed, name, n, limit)
	}
	return d.bytes(int(n))
}

// checkFields validates the fields an encoding may hold.
func (e *Entry) checkFields() error {
	if err := checkText("kind", e.Kind, 1, MaxKindLen); err != nil {
		return err
	}
	if err := CheckName(e.Sender); err != nil {
		return err
	}
	if err := checkText("session", e.Session, 0, MaxSessionLen); err != nil {
		return err
	}
	if len(e.Payload) > MaxPayloadLen {
		return fmt.Errorf("ledger: payload of %d bytes exceeds %d", len(e.Payload), MaxPayloadLen)
	}
	return nil
}

// checkText accepts printable UTF-8 without spaces of min..max bytes: such
// text is safe to print one entry per line.
func checkText(what, s string, minLen, maxLen int) error {
	if len(s) < minLen || len(s) > maxLen {
		return fmt.Errorf("ledger: %s %q: length %d outside [%d, %d]", what, s, len(s), minLen, maxLen)
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("ledger: %s %q is not valid UTF-8", what, s)
	}
	for _, r := range s {
		if !unicode.IsPrint(r) || unicode.IsSpace(r) {
			return fmt.Errorf("ledger: %s %q contains %U, not a printable non-space character", what, s, r)
		}
	}
	return nil
}

// CheckName validates a member name: 1 to MaxNameLen bytes of printable
// UTF-8 without spaces or '+', so that it is also a valid note key name.
func CheckName(name string) error {
	if err := checkText("member name", name, 1, MaxNameLen); err != nil {
		return err
	}
	for _, r := range name {
		if r == '+' {
			return fmt.Errorf("ledger: member name %q contains '+'", name)
		}
	}
	return nil
}
