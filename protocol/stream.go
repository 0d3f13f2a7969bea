package protocol

import "github.com/dppub/dppub/internal/wire"

// MaxPayload bounds one message body: Seal refuses a larger one, naming
// the limit, instead of letting the receiver fail on the envelope's field
// limit (wire.MaxFieldLen). Anything that grows with the number of records
// (synthetic rows, projections) goes in chunks of at most ChunkBytes
// instead.
const MaxPayload = wire.MaxFieldLen

// ChunkBytes is the payload size a streamed message aims for: big enough
// that per-message overhead is negligible, small enough that a role holds
// little more than one chunk at a time.
const ChunkBytes = 4 << 20

// RowsPerChunk is how many rows of rowBytes bytes each one chunk carries
// (at least one).
func RowsPerChunk(rowBytes int) int {
	if rowBytes <= 0 {
		panic("protocol: RowsPerChunk of a non-positive row size")
	}
	return max(1, ChunkBytes/rowBytes)
}

// Streamer is a Role whose output can be too large to hold at once, such
// as an owner's synthetic rows. After each Start or Handle the driver
// calls More until it returns no envelopes, sending each batch before it
// asks for the next, so the role holds about one batch at a time. More
// must not charge an accountant (drivers commit charges per step), and
// Done must stay false while More has envelopes left.
type Streamer interface {
	Role
	More() ([]Envelope, error)
}

// More forwards to the recorded role when it streams.
func (r *Recorder) More() ([]Envelope, error) {
	if s, ok := r.Role.(Streamer); ok {
		return s.More()
	}
	return nil, nil
}
