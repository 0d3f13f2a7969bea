package roles

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/dppub/dppub/crypto/sspp"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/internal/wire"
)

// Message types. Every body but the request is a Body; its kind says
// what its fields hold:
//
//	(Words travel as one little-endian byte field.)
//
//	cuts           party → coordinator, then coordinator → parties and S: bin edges (Cuts, bins.go; before the setup)
//	request        coordinator → roles: a Request
//	result         party → coordinator: Floats = the released values
//	ready          role → coordinator: setup finished
//	totals         party → coordinator: Words = its additive share of the noisy values (commodity)
//	pair-seed      party → party: Words = 32-byte seed of the pair's common randomness (commodity)
//	mask-seeds     S → party: Words = (attribute, recipient, 4 seed words)… for the cached masks (commodity)
//	masked         party → party: Words = a masked matrix; Index = attribute (setup) or product number
//	deal           S → party: Words = the party's correlated randomness for a request (commodity)
//	noise          contributor → holder: Words = one additive part of a noise share (commodity)
//	sign-query     party → S: Words = masked sign values (commodity)
//	signs          S → parties: Words = one bit per cell
//	public-key     party → party: Blobs[0] = its own Paillier modulus (Paillier)
//	vector         party → party: Blobs[0] = ciphertexts of one block of packed one-hot vectors; Index = block
//	selected       party → party: Blobs = selected, rerandomised vectors, one per (value, block)
//	replies        party → party: Blobs[0] = masked group products; Index = block
//	cell-shares    party → S: Blobs[0] = shares under the shared key, one per cell
//	sign-ciphers   S → parties: Blobs[0] = packed encryptions of t·r + r'
//	noise-ciphers  contributor → S: Blobs[0] = encrypted noise shares
//	out-shares     party → S: Blobs[0] = packed encrypted output shares
//	result-ciphers S → parties: Blobs[0] = the encrypted noisy result
//	partials       party → party: Blobs = partial decryptions; Stage says of what
//	dlpa-commit    party → party: Blobs = DLPA round-1 messages, one per cell
//	dlpa-contrib   party → S: Blobs = DLPA round-2 contributions, one per cell
const typePrefix = "pdp-mvds/"

// Request kinds.
const (
	KindSetup    = "setup"
	KindMarginal = "marginal"
	KindScore    = "score"
)

// Request asks the roles for one measurement (or the setup).
type Request struct {
	ID      uint64
	Kind    string
	Attrs   []int
	Release measurement.Release
	// RefA and RefB are the public reference one-way counts of a score.
	RefA, RefB []float64
}

// MessageType names the message for the protocol envelope.
func (*Request) MessageType() string { return typePrefix + "request" }

// fields lists the request's fields in their wire order, the noise's
// mechanism and its three parameters (sensitivity, scale, ρ) as given.
func (q *Request) fields(mechanism *string, noise *[]float64) []any {
	return []any{&q.ID, &q.Kind, &q.Attrs, &q.Release.Purpose, &q.Release.Parties, mechanism, noise, &q.RefA, &q.RefB}
}

// MarshalBinary encodes the request.
func (q *Request) MarshalBinary() ([]byte, error) {
	n := q.Release.Noise
	mechanism, noise := string(n.Mechanism), []float64{n.Sensitivity, n.Scale, n.Rho}
	return wire.Marshal(q.fields(&mechanism, &noise)...), nil
}

// UnmarshalBinary decodes what MarshalBinary wrote.
func (q *Request) UnmarshalBinary(b []byte) error {
	var mechanism string
	var p []float64
	if err := wire.Unmarshal(b, "pdpmvds: request", q.fields(&mechanism, &p)...); err != nil {
		return err
	}
	if len(p) != 3 {
		return fmt.Errorf("pdpmvds: request: noise has %d parameters, want 3", len(p))
	}
	q.Release.Noise.Mechanism = measurement.Mechanism(mechanism)
	q.Release.Noise.Sensitivity, q.Release.Noise.Scale, q.Release.Noise.Rho = p[0], p[1], p[2]
	switch q.Kind {
	case KindSetup, KindMarginal, KindScore:
	default:
		return fmt.Errorf("pdpmvds: request of unknown kind %q", q.Kind)
	}
	for _, v := range append(q.RefA, q.RefB...) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("pdpmvds: request %d carries a non-finite reference count", q.ID)
		}
	}
	return nil
}

// Body is every other message: which fields are used depends on Kind
// (see the list above).
type Body struct {
	Kind   string
	ID     uint64
	Stage  int
	Index  int
	Words  []uint64
	Floats []float64
	Blobs  [][]byte
}

// MessageType names the message for the protocol envelope.
func (m *Body) MessageType() string { return typePrefix + m.Kind }

// fields lists the body's fields in their wire order, the words as
// their little-endian bytes.
func (m *Body) fields(words *[]byte) []any {
	return []any{&m.Kind, &m.ID, &m.Stage, &m.Index, words, &m.Floats, &m.Blobs}
}

// MarshalBinary encodes the body.
func (m *Body) MarshalBinary() ([]byte, error) {
	wb := wordBytes(m.Words)
	return wire.Marshal(m.fields(&wb)...), nil
}

// maxBlobs bounds the number of byte fields of one body.
const maxBlobs = 1 << 20

// UnmarshalBinary decodes what MarshalBinary wrote.
func (m *Body) UnmarshalBinary(b []byte) error {
	var wb []byte
	if err := wire.Unmarshal(b, "pdpmvds: body", m.fields(&wb)...); err != nil {
		return err
	}
	if len(m.Blobs) > maxBlobs {
		return fmt.Errorf("pdpmvds: body with %d byte fields", len(m.Blobs))
	}
	if len(wb)%8 != 0 {
		return fmt.Errorf("pdpmvds: %s: %d bytes of words", m.Kind, len(wb))
	}
	m.Words = bytesWords(wb)
	return nil
}

// wordBytes encodes words little-endian (a tight loop: word vectors are
// the commodity suite's bulk traffic).
func wordBytes(v []uint64) []byte {
	out := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(out[8*i:], x)
	}
	return out
}

func bytesWords(b []byte) []uint64 {
	if len(b) == 0 {
		return nil
	}
	out := make([]uint64, len(b)/8)
	for i := range out {
		out[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return out
}

// seedWords and wordsSeed convert a 32-byte seed to and from 4 words.
func seedWords(s sspp.Seed) []uint64 {
	out := make([]uint64, 4)
	for i := range out {
		for b := range 8 {
			out[i] |= uint64(s[8*i+b]) << (8 * b)
		}
	}
	return out
}

func wordsSeed(w []uint64) sspp.Seed {
	var s sspp.Seed
	for i := range 4 {
		for b := range 8 {
			s[8*i+b] = byte(w[i] >> (8 * b))
		}
	}
	return s
}
