package roles

import (
	"crypto/ecdh"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/randx"
)

// NoiseMode says who draws each release's noise (dp.NoiseMode, the
// vocabulary every multi-party method shares).
type NoiseMode = dp.NoiseMode

const (
	// NoiseInsiderSafe: the owners and the coordinator each add a share;
	// any K of the K+1 make up the calibrated noise.
	NoiseInsiderSafe = dp.NoiseInsiderSafe
	// NoiseExact: the K owners' shares sum to the calibrated noise.
	NoiseExact = dp.NoiseExact
)

// CoordinatorID is the coordinator's protocol name.
const CoordinatorID = "coordinator"

// OwnerID is owner k's protocol name (k from 0).
func OwnerID(k int) string { return fmt.Sprintf("owner-%d", k+1) }

// Params are the public parameters every role holds.
type Params struct {
	// Session binds the masks to this run.
	Session string
	// Owners is the number K of owners.
	Owners int
	// Schema is the owners' shared schema.
	Schema data.Schema
	// Bins and BinsFor discretise numeric attributes whose bins are not
	// chosen from the data (domain.Options).
	Bins    int
	BinsFor map[string]int
	Noise   NoiseMode
	// Neighbours is the relation every role calibrates to (empty:
	// replace-one). Under add/remove the owners' record counts are
	// private: an owner's hello carries none, the total is released first
	// as one noisy secure-aggregated count (KindCount) and every count's
	// sensitivity is 1. An owner takes it from the session it joined and
	// refuses a request that names another (Request.Neighbours).
	Neighbours dp.Neighbours
}

// Validate checks the parameters.
func (p Params) Validate() error {
	switch {
	case p.Session == "":
		return fmt.Errorf("rowsynth: the parameters name no session")
	case p.Owners < 1:
		return fmt.Errorf("rowsynth: %d owners", p.Owners)
	case len(p.Schema.Attributes) == 0:
		return fmt.Errorf("rowsynth: the schema has no attributes")
	case p.Noise.Check() != nil:
		return fmt.Errorf("rowsynth: noise: %w", p.Noise.Check())
	case p.Neighbours.Check() != nil:
		return fmt.Errorf("rowsynth: %w", p.Neighbours.Check())
	}
	return nil
}

// parts is how many shares sum to the calibrated noise: the owners' (the
// coordinator's share, in insider-safe mode, comes on top).
func (p Params) parts() int { return p.Owners }

// publicRecords reports whether the owners' record counts are public
// (replace-one) and so may be sent and used as they are.
func (p Params) publicRecords() bool { return p.Neighbours.PublicCount() }

// coordinatorDraws reports whether the coordinator adds a noise share.
func (p Params) coordinatorDraws() bool { return p.Noise == NoiseInsiderSafe }

// OwnerKey draws an X25519 key from the owner's randomness (so that a
// seeded run is reproducible; the masks cancel, so the output does not
// depend on the keys at all). It is an owner's first draw. OwnerKey,
// PairSeed and AddMask are exported for the audits that recompute an
// owner's view (method/rowsynth/audits/run.go).
func OwnerKey(src *randx.Source) (*ecdh.PrivateKey, error) {
	var b [32]byte
	for i := range 4 {
		binary.LittleEndian.PutUint64(b[8*i:], src.Uint64())
	}
	k, err := ecdh.X25519().NewPrivateKey(b[:])
	if err != nil {
		return nil, fmt.Errorf("rowsynth: %w", err)
	}
	return k, nil
}

// PairSeed is the seed owners a < b share: SHA-256 over a domain label,
// the session, the pair and their X25519 secret.
func PairSeed(session string, a, b int, secret []byte) [32]byte {
	h := sha256.New()
	h.Write([]byte("dppub rowsynth pairwise mask v1\x00"))
	h.Write([]byte(session))
	var buf [16]byte
	binary.LittleEndian.PutUint64(buf[:8], uint64(a))
	binary.LittleEndian.PutUint64(buf[8:], uint64(b))
	h.Write(buf[:])
	h.Write(secret)
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// AddMask adds sign·PRG(seed, request) to every word, mod 2^64: a ChaCha8
// stream keyed by SHA-256(seed ‖ request digest) (Request.Digest), uniform
// on 64-bit words. Keying by the digest of the whole request, not by its
// ID alone, means a coordinator that sends two different requests under
// one ID cannot subtract the answers to cancel the masks.
func AddMask(words []uint64, seed [32]byte, request [32]byte, negate bool) {
	var in [64]byte
	copy(in[:32], seed[:])
	copy(in[32:], request[:])
	prg := rand.NewChaCha8(sha256.Sum256(in[:]))
	for i := range words {
		m := prg.Uint64()
		if negate {
			words[i] -= m
		} else {
			words[i] += m
		}
	}
}

// KeyAuth authenticates the owners' key-agreement keys to each other: an
// owner signs its own key, and checks every other owner's signature with
// that owner's identity, which it holds itself (the consortium's
// certificates across machines, keys made in the process in one
// process). Without it a coordinator that relays the keys could
// substitute its own and unmask every owner.
type KeyAuth interface {
	// Sign signs msg as this owner.
	Sign(msg []byte) ([]byte, error)
	// Verify checks that sig is owner k's signature of msg.
	Verify(k int, msg, sig []byte) error
}

// KeyStatement is what owner k signs for its X25519 public key: a domain
// label, the session, its place and the key.
func KeyStatement(session string, k int, key []byte) []byte {
	b := []byte("dppub rowsynth owner key v1\x00")
	b = append(b, session...)
	b = append(b, 0)
	b = binary.LittleEndian.AppendUint64(b, uint64(k))
	return append(b, key...)
}
