package randx

import (
	cryptorand "crypto/rand"
	"encoding/binary"
	"math/rand/v2"
	"sync"
)

// Source is a random stream. NewSecure's Source is safe for concurrent use;
// seeded Sources and children are not (give each goroutine its own Child).
type Source struct {
	*rand.Rand
	secure bool
	seed   uint64
}

// NewSecure returns a Source backed by crypto/rand. This is the default
// everywhere in dppub.
func NewSecure() *Source {
	return &Source{Rand: rand.New(&cryptoSource{}), secure: true}
}

// NewSeeded returns a deterministic, INSECURE Source for tests and
// reproducible experiments. Never use it for a real release.
func NewSeeded(seed uint64) *Source {
	return &Source{Rand: rand.New(rand.NewChaCha8(seedBytes(seed))), seed: seed}
}

// IsSecure reports whether the Source is backed by the OS CSPRNG.
func (s *Source) IsSecure() bool { return s.secure }

// Describe names the source for privacy reports.
func (s *Source) Describe() string {
	if s.secure {
		return "crypto/rand (OS CSPRNG)"
	}
	return "seeded ChaCha8 (INSECURE: reproducible, for tests and experiments only)"
}

// Child returns an independent stream for one goroutine or role. For a
// secure parent it is a ChaCha8 stream keyed with 32 fresh bytes from
// crypto/rand: still a cryptographically secure generator, but without a
// lock or system call per draw. For a seeded parent it is a seeded Source
// whose seed is drawn from the parent, so that runs stay reproducible.
func (s *Source) Child() *Source {
	if s.secure {
		var key [32]byte
		_, _ = cryptorand.Read(key[:])
		return &Source{Rand: rand.New(rand.NewChaCha8(key)), secure: true}
	}
	return NewSeeded(s.Uint64())
}

func seedBytes(seed uint64) [32]byte {
	var b [32]byte
	binary.LittleEndian.PutUint64(b[:8], seed)
	copy(b[8:], "dppub randx seeded stream v1")
	return b
}

// cryptoSource is a rand.Source over crypto/rand with a small buffer so that
// one draw does not cost one system call.
type cryptoSource struct {
	mu  sync.Mutex
	buf [512]byte
	off int
}

func (c *cryptoSource) Uint64() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.off == 0 || c.off+8 > len(c.buf) {
		// crypto/rand.Read never returns an error since Go 1.24.
		_, _ = cryptorand.Read(c.buf[:])
		c.off = 0
	}
	v := binary.LittleEndian.Uint64(c.buf[c.off:])
	c.off += 8
	return v
}
