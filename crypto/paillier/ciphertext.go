package paillier

import (
	"fmt"
	"io"
	"math/big"
)

// Ciphertext is an element of Z*_{N²}. Values built by this package (Encrypt,
// the homomorphic operations, ParseCiphertext) are always valid for their key;
// a Ciphertext is immutable.
type Ciphertext struct{ c *big.Int }

// Value returns a copy of the ciphertext as an integer.
func (c *Ciphertext) Value() *big.Int { return new(big.Int).Set(c.c) }

// NewCiphertext validates v as a ciphertext for pk: 0 < v < N² and
// gcd(v, N) = 1.
func (pk *PublicKey) NewCiphertext(v *big.Int) (*Ciphertext, error) {
	if v == nil || v.Sign() <= 0 || v.Cmp(pk.NSquared) >= 0 {
		return nil, fmt.Errorf("paillier: ciphertext outside (0, N²)")
	}
	r := new(big.Int).Mod(v, pk.N)
	if r.GCD(nil, nil, r, pk.N).Cmp(one) != 0 {
		return nil, fmt.Errorf("paillier: ciphertext not a unit mod N²")
	}
	return &Ciphertext{c: new(big.Int).Set(v)}, nil
}

// check rejects a nil Ciphertext or one out of range for pk (a zero value,
// or one from a larger key); it does not repeat the unit test.
func (pk *PublicKey) check(c *Ciphertext) error {
	if c == nil || c.c == nil {
		return fmt.Errorf("paillier: nil ciphertext")
	}
	if c.c.Sign() <= 0 || c.c.Cmp(pk.NSquared) >= 0 {
		return fmt.Errorf("paillier: ciphertext outside (0, N²) for a %d-bit key", pk.Bits())
	}
	return nil
}

// mustCheck is check for the homomorphic operations, whose callers hold
// ciphertexts built by this package: a foreign one is a programmer error.
func (pk *PublicKey) mustCheck(cs ...*Ciphertext) {
	for _, c := range cs {
		if err := pk.check(c); err != nil {
			panic(err)
		}
	}
}

// Encrypt returns an encryption of m mod N (negative m wraps to N − |m|).
// It uses the fixed-base short-exponent randomness when Precompute has been
// called, and the standard r^N otherwise.
func (pk *PublicKey) Encrypt(random io.Reader, m *big.Int) (*Ciphertext, error) {
	rn, err := pk.randomizer(random)
	if err != nil {
		return nil, err
	}
	return pk.encryptWith(m, rn), nil
}

// EncryptStandard returns (1+N)^m · r^N mod N² for a uniform r ∈ Z*_N,
// ignoring any precomputation (Paillier 1999, the textbook scheme).
func (pk *PublicKey) EncryptStandard(random io.Reader, m *big.Int) (*Ciphertext, error) {
	rn, err := pk.standardRandomizer(random)
	if err != nil {
		return nil, err
	}
	return pk.encryptWith(m, rn), nil
}

// EncryptInt64 is Encrypt for a machine integer.
func (pk *PublicKey) EncryptInt64(random io.Reader, m int64) (*Ciphertext, error) {
	return pk.Encrypt(random, big.NewInt(m))
}

// encryptWith returns (1 + mN)·rn mod N², using (1+N)^m = 1 + mN mod N².
func (pk *PublicKey) encryptWith(m, rn *big.Int) *Ciphertext {
	c := pk.plainEncoding(m)
	c.Mul(c, rn).Mod(c, pk.NSquared)
	return &Ciphertext{c: c}
}

// plainEncoding returns 1 + (m mod N)·N, the randomness-free encryption of m.
func (pk *PublicKey) plainEncoding(m *big.Int) *big.Int {
	g := new(big.Int).Mod(m, pk.N)
	g.Mul(g, pk.N)
	return g.Add(g, one)
}

// randomizer returns a fresh random N-th residue.
func (pk *PublicKey) randomizer(random io.Reader) (*big.Int, error) {
	if pk.fb != nil {
		return pk.fb.random(random, pk.NSquared)
	}
	return pk.standardRandomizer(random)
}

func (pk *PublicKey) standardRandomizer(random io.Reader) (*big.Int, error) {
	r, err := randomUnit(random, pk.N)
	if err != nil {
		return nil, err
	}
	return r.Exp(r, pk.N, pk.NSquared), nil
}

// Add returns an encryption of a + b.
func (pk *PublicKey) Add(a, b *Ciphertext) *Ciphertext {
	pk.mustCheck(a, b)
	c := new(big.Int).Mul(a.c, b.c)
	return &Ciphertext{c: c.Mod(c, pk.NSquared)}
}

// AddPlain returns an encryption of a + m. Like MulPlain, the result is a
// deterministic function of its inputs: Rerandomize it before it leaves the
// party that knows m.
func (pk *PublicKey) AddPlain(a *Ciphertext, m *big.Int) *Ciphertext {
	pk.mustCheck(a)
	c := pk.plainEncoding(m)
	return &Ciphertext{c: c.Mul(c, a.c).Mod(c, pk.NSquared)}
}

// MulPlain returns an encryption of k·a for any integer k (negative k
// included): k is reduced to the representative of least magnitude mod N,
// and a negative exponent uses the inverse ciphertext.
func (pk *PublicKey) MulPlain(a *Ciphertext, k *big.Int) *Ciphertext {
	pk.mustCheck(a)
	e := pk.Signed(k)
	base := a.c
	if e.Sign() < 0 {
		base = new(big.Int).ModInverse(a.c, pk.NSquared)
		e.Neg(e)
	}
	return &Ciphertext{c: new(big.Int).Exp(base, e, pk.NSquared)}
}

// Neg returns an encryption of −a.
func (pk *PublicKey) Neg(a *Ciphertext) *Ciphertext {
	pk.mustCheck(a)
	return &Ciphertext{c: new(big.Int).ModInverse(a.c, pk.NSquared)}
}

// Sub returns an encryption of a − b.
func (pk *PublicKey) Sub(a, b *Ciphertext) *Ciphertext {
	return pk.Add(a, pk.Neg(b))
}

// Rerandomize returns a fresh-looking encryption of the same plaintext:
// a multiplied by a new random N-th residue.
func (pk *PublicKey) Rerandomize(random io.Reader, a *Ciphertext) (*Ciphertext, error) {
	pk.mustCheck(a)
	rn, err := pk.randomizer(random)
	if err != nil {
		return nil, err
	}
	return &Ciphertext{c: rn.Mul(rn, a.c).Mod(rn, pk.NSquared)}, nil
}

// Signed returns the representative of m mod N in (−N/2, N/2].
func (pk *PublicKey) Signed(m *big.Int) *big.Int {
	v := new(big.Int).Mod(m, pk.N)
	half := new(big.Int).Rsh(pk.N, 1)
	if v.Cmp(half) > 0 {
		v.Sub(v, pk.N)
	}
	return v
}

// CiphertextSize is the fixed width, in bytes, of a ciphertext on the wire.
func (pk *PublicKey) CiphertextSize() int { return (pk.NSquared.BitLen() + 7) / 8 }

// AppendCiphertext appends c as a big-endian integer of CiphertextSize bytes.
func (pk *PublicKey) AppendCiphertext(dst []byte, c *Ciphertext) []byte {
	pk.mustCheck(c)
	n := len(dst)
	dst = append(dst, make([]byte, pk.CiphertextSize())...)
	c.c.FillBytes(dst[n:])
	return dst
}

// ParseCiphertext reads one ciphertext of exactly CiphertextSize bytes and
// validates it (range and unit).
func (pk *PublicKey) ParseCiphertext(b []byte) (*Ciphertext, error) {
	if len(b) != pk.CiphertextSize() {
		return nil, fmt.Errorf("paillier: ciphertext of %d bytes, want %d", len(b), pk.CiphertextSize())
	}
	return pk.NewCiphertext(new(big.Int).SetBytes(b))
}

// MarshalCiphertexts encodes cs as their fixed-width concatenation.
func (pk *PublicKey) MarshalCiphertexts(cs []*Ciphertext) []byte {
	out := make([]byte, 0, len(cs)*pk.CiphertextSize())
	for _, c := range cs {
		out = pk.AppendCiphertext(out, c)
	}
	return out
}

// UnmarshalCiphertexts decodes and validates what MarshalCiphertexts wrote.
func (pk *PublicKey) UnmarshalCiphertexts(b []byte) ([]*Ciphertext, error) {
	size := pk.CiphertextSize()
	if len(b)%size != 0 {
		return nil, fmt.Errorf("paillier: %d bytes is not a whole number of %d-byte ciphertexts", len(b), size)
	}
	cs := make([]*Ciphertext, len(b)/size)
	for i := range cs {
		c, err := pk.ParseCiphertext(b[i*size : (i+1)*size])
		if err != nil {
			return nil, fmt.Errorf("paillier: ciphertext %d: %w", i, err)
		}
		cs[i] = c
	}
	return cs, nil
}
