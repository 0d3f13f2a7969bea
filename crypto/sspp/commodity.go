package sspp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/dppub/dppub/randx"
)

// Role says which party a Correlation or MaskedVector belongs to.
type Role uint8

// The two parties of a scalar product.
const (
	RoleAlice Role = 1
	RoleBob   Role = 2
)

func (r Role) String() string {
	switch r {
	case RoleAlice:
		return "Alice"
	case RoleBob:
		return "Bob"
	}
	return fmt.Sprintf("Role(%d)", uint8(r))
}

// MaxLength bounds vector lengths in the commodity protocol.
const MaxLength = 1 << 28

// CommodityServerOptions configures the commodity server S.
type CommodityServerOptions struct {
	// Random defaults to randx.NewSecure().
	Random *randx.Source
}

// CommodityServer is S in the Du–Atallah protocol: it deals correlated
// randomness and never sees data. Not safe for concurrent use with a
// seeded Source.
type CommodityServer struct{ random *randx.Source }

// NewCommodityServer returns S.
func NewCommodityServer(opts CommodityServerOptions) (*CommodityServer, error) {
	random := opts.Random
	if random == nil {
		random = randx.NewSecure()
	}
	return &CommodityServer{random: random}, nil
}

// Correlation is what S sends one party for one scalar product: a seed that
// expands (ChaCha8) to the party's mask vector R (Ra or Rb) and a scalar r
// with ra + rb = Ra·Rb mod 2^64. Single use.
type Correlation struct {
	Session [16]byte // pairs Alice's and Bob's correlations and messages
	Role    Role
	Length  int
	Seed    [32]byte
	Share   uint64
}

// Deal returns the correlations for one scalar product of length n.
func (s *CommodityServer) Deal(n int) (alice, bob *Correlation, err error) {
	if n <= 0 || n > MaxLength {
		return nil, nil, fmt.Errorf("sspp: vector length %d outside [1, %d]", n, MaxLength)
	}
	var session [16]byte
	fillRandom(s.random, session[:])
	alice = &Correlation{Session: session, Role: RoleAlice, Length: n}
	bob = &Correlation{Session: session, Role: RoleBob, Length: n}
	fillRandom(s.random, alice.Seed[:])
	fillRandom(s.random, bob.Seed[:])
	alice.Share = s.random.Uint64()
	bob.Share = dotMod64(alice.mask(), bob.mask()) - alice.Share
	return alice, bob, nil
}

func fillRandom(src *randx.Source, b []byte) {
	var w [8]byte
	for i := 0; i < len(b); i += 8 {
		binary.LittleEndian.PutUint64(w[:], src.Uint64())
		copy(b[i:], w[:])
	}
}

// mask expands the correlation's seed to its mask vector.
func (c *Correlation) mask() []uint64 {
	prg := rand.NewChaCha8(c.Seed)
	r := make([]uint64, c.Length)
	for i := range r {
		r[i] = prg.Uint64()
	}
	return r
}

func dotMod64(a, b []uint64) uint64 {
	var s uint64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// MaskedVector is a party's message to the other: its vector plus its mask,
// mod 2^64 (uniformly distributed whatever the vector).
type MaskedVector struct {
	Session [16]byte
	From    Role
	Values  []uint64
}

// commodityParty is the state shared by Alice's and Bob's sides.
type commodityParty struct {
	corr   *Correlation
	r      []uint64 // mask vector
	own    []uint64 // own vector mod 2^64
	masked bool
	done   bool
}

func newCommodityParty(c *Correlation, want Role) (*commodityParty, error) {
	if c == nil {
		return nil, errors.New("sspp: nil correlation")
	}
	if c.Role != want {
		return nil, fmt.Errorf("sspp: correlation for %v given to %v", c.Role, want)
	}
	if c.Length <= 0 || c.Length > MaxLength {
		return nil, fmt.Errorf("sspp: correlation length %d outside [1, %d]", c.Length, MaxLength)
	}
	return &commodityParty{corr: c, r: c.mask()}, nil
}

// mask returns own + R, refusing a second use of the correlation (two
// vectors masked by the same R would reveal their difference).
func (p *commodityParty) mask(v []int64) (*MaskedVector, error) {
	if p.masked {
		return nil, errors.New("sspp: correlation already used: ask S for a fresh one")
	}
	if len(v) != p.corr.Length {
		return nil, fmt.Errorf("sspp: vector of length %d, correlation for %d", len(v), p.corr.Length)
	}
	p.masked = true
	p.own = make([]uint64, len(v))
	out := &MaskedVector{Session: p.corr.Session, From: p.corr.Role, Values: make([]uint64, len(v))}
	for i, x := range v {
		p.own[i] = uint64(x)
		out.Values[i] = p.own[i] + p.r[i]
	}
	return out, nil
}

func (p *commodityParty) checkPeer(m *MaskedVector) error {
	switch {
	case !p.masked:
		return errors.New("sspp: Finish before Mask")
	case p.done:
		return errors.New("sspp: Finish called twice")
	case m == nil:
		return errors.New("sspp: nil masked vector")
	case m.Session != p.corr.Session:
		return errors.New("sspp: masked vector from another session")
	case m.From == p.corr.Role:
		return fmt.Errorf("sspp: masked vector from %v sent to %v", m.From, p.corr.Role)
	case len(m.Values) != p.corr.Length:
		return fmt.Errorf("sspp: masked vector of length %d, want %d", len(m.Values), p.corr.Length)
	}
	return nil
}

// CommodityAlice is Alice's side of the Du–Atallah protocol.
type CommodityAlice struct{ p *commodityParty }

// NewCommodityAlice takes Alice's correlation from S.
func NewCommodityAlice(c *Correlation) (*CommodityAlice, error) {
	p, err := newCommodityParty(c, RoleAlice)
	if err != nil {
		return nil, err
	}
	return &CommodityAlice{p: p}, nil
}

// Mask returns x + Ra mod 2^64 for Bob.
func (a *CommodityAlice) Mask(x []int64) (*MaskedVector, error) { return a.p.mask(x) }

// Finish returns Alice's share u = ra − Ra·(y + Rb) mod 2^64.
func (a *CommodityAlice) Finish(fromBob *MaskedVector) (uint64, error) {
	if err := a.p.checkPeer(fromBob); err != nil {
		return 0, err
	}
	a.p.done = true
	return a.p.corr.Share - dotMod64(a.p.r, fromBob.Values), nil
}

// CommodityBob is Bob's side of the Du–Atallah protocol.
type CommodityBob struct{ p *commodityParty }

// NewCommodityBob takes Bob's correlation from S.
func NewCommodityBob(c *Correlation) (*CommodityBob, error) {
	p, err := newCommodityParty(c, RoleBob)
	if err != nil {
		return nil, err
	}
	return &CommodityBob{p: p}, nil
}

// Mask returns y + Rb mod 2^64 for Alice.
func (b *CommodityBob) Mask(y []int64) (*MaskedVector, error) { return b.p.mask(y) }

// Finish returns Bob's share v = (x + Ra)·y + rb mod 2^64.
func (b *CommodityBob) Finish(fromAlice *MaskedVector) (uint64, error) {
	if err := b.p.checkPeer(fromAlice); err != nil {
		return 0, err
	}
	b.p.done = true
	return dotMod64(fromAlice.Values, b.p.own) + b.p.corr.Share, nil
}

// SumMod64 returns u + v mod 2^64 as a signed integer: x·y exactly when
// |x·y| < 2^63.
func SumMod64(u, v uint64) int64 { return int64(u + v) }

const (
	correlationMagic  = "SPCR\x01"
	maskedVectorMagic = "SPMV\x01"
)

// MessageType names the message for the protocol envelope.
func (c *Correlation) MessageType() string { return "sspp.commodity.correlation" }

// MarshalBinary encodes c: magic, session, role, uint32 length, seed,
// uint64 share (big-endian). It is secret to its recipient: send it over a
// confidential channel.
func (c *Correlation) MarshalBinary() ([]byte, error) {
	b := append([]byte(correlationMagic), c.Session[:]...)
	b = append(b, byte(c.Role))
	b = binary.BigEndian.AppendUint32(b, uint32(c.Length))
	b = append(b, c.Seed[:]...)
	return binary.BigEndian.AppendUint64(b, c.Share), nil
}

// UnmarshalBinary decodes what MarshalBinary wrote.
func (c *Correlation) UnmarshalBinary(b []byte) error {
	r, err := newReader(b, correlationMagic)
	if err != nil {
		return err
	}
	var out Correlation
	copy(out.Session[:], r.Take(16))
	role := r.Take(1)
	out.Length = int(r.Uint32())
	copy(out.Seed[:], r.Take(32))
	out.Share = r.Uint64()
	if err := r.Finish(); err != nil {
		return fmt.Errorf("sspp: correlation: %w", err)
	}
	out.Role = Role(role[0])
	if out.Role != RoleAlice && out.Role != RoleBob {
		return fmt.Errorf("sspp: correlation for unknown role %d", role[0])
	}
	*c = out
	return nil
}

// MessageType names the message for the protocol envelope.
func (m *MaskedVector) MessageType() string { return "sspp.commodity.masked-vector" }

// MarshalBinary encodes m: magic, session, role, uint32 count, then the
// values as big-endian uint64.
func (m *MaskedVector) MarshalBinary() ([]byte, error) {
	b := append([]byte(maskedVectorMagic), m.Session[:]...)
	b = append(b, byte(m.From))
	b = binary.BigEndian.AppendUint32(b, uint32(len(m.Values)))
	for _, v := range m.Values {
		b = binary.BigEndian.AppendUint64(b, v)
	}
	return b, nil
}

// UnmarshalBinary decodes what MarshalBinary wrote.
func (m *MaskedVector) UnmarshalBinary(b []byte) error {
	r, err := newReader(b, maskedVectorMagic)
	if err != nil {
		return err
	}
	var out MaskedVector
	copy(out.Session[:], r.Take(16))
	role := r.Take(1)
	n := int(r.Uint32())
	if r.Err() == nil && (n > MaxLength || 8*n != r.Remaining()) {
		return fmt.Errorf("sspp: masked vector of %d values in %d bytes", n, r.Remaining())
	}
	out.Values = make([]uint64, n)
	for i := range out.Values {
		out.Values[i] = r.Uint64()
	}
	if err := r.Finish(); err != nil {
		return fmt.Errorf("sspp: masked vector: %w", err)
	}
	out.From = Role(role[0])
	*m = out
	return nil
}
