package paillier

import (
	"fmt"
	"io"
	"math/big"
)

const (
	// MinBits is the smallest modulus GenerateKey and Deal accept (NIST SP
	// 800-57: 2048-bit factoring moduli give about 112 bits of security).
	MinBits = 2048
	// MinInsecureTestBits is the smallest modulus the INSECURE test
	// generators accept.
	MinInsecureTestBits = 256
	// maxBits guards against absurd requests.
	maxBits = 16384
)

// PublicKey is a Paillier public key with generator g = N+1.
//
// After Precompute it holds a fixed-base table and must not be modified; it
// is then safe for concurrent use (Precompute itself is not).
type PublicKey struct {
	N        *big.Int // modulus N = p·q
	NSquared *big.Int // N²

	fb *fixedBase // short-exponent randomness table, nil until Precompute
}

// NewPublicKey returns the public key for modulus n after sanity checks (odd,
// at least MinInsecureTestBits bits). It cannot check that n is a product of
// two large primes.
func NewPublicKey(n *big.Int) (*PublicKey, error) {
	if n == nil || n.Sign() <= 0 || n.Bit(0) == 0 {
		return nil, fmt.Errorf("paillier: modulus %v is not a positive odd integer", n)
	}
	if n.BitLen() < MinInsecureTestBits || n.BitLen() > maxBits {
		return nil, fmt.Errorf("paillier: modulus of %d bits outside [%d, %d]", n.BitLen(), MinInsecureTestBits, maxBits)
	}
	return &PublicKey{N: new(big.Int).Set(n), NSquared: new(big.Int).Mul(n, n)}, nil
}

// Bits returns the bit length of N.
func (pk *PublicKey) Bits() int { return pk.N.BitLen() }

// Equal reports whether two public keys have the same modulus.
func (pk *PublicKey) Equal(other *PublicKey) bool {
	return other != nil && pk.N.Cmp(other.N) == 0
}

// PrivateKey is a Paillier private key; decryption uses the CRT over p² and q².
type PrivateKey struct {
	PublicKey
	P, Q *big.Int // the prime factors of N

	lambda   *big.Int // lcm(p−1, q−1)
	pSquared *big.Int
	qSquared *big.Int
	hp, hq   *big.Int // L_p(g^(p−1) mod p²)^−1 mod p, and for q
	qInvP    *big.Int // q^−1 mod p, for CRT recombination
}

// GenerateKey returns a fresh key with a modulus of exactly bits bits
// (bits ≥ MinBits).
func GenerateKey(random io.Reader, bits int) (*PrivateKey, error) {
	if bits < MinBits {
		return nil, fmt.Errorf("paillier: key size %d bits below the minimum %d (use GenerateInsecureTestKey in tests)", bits, MinBits)
	}
	return generateKey(random, bits, false)
}

// GenerateInsecureTestKey is GenerateKey without the size floor: it accepts
// any bits ≥ MinInsecureTestBits. Keys below MinBits are INSECURE (factorable)
// and exist only to keep tests fast. Never use them for real data.
func GenerateInsecureTestKey(random io.Reader, bits int) (*PrivateKey, error) {
	if bits < MinInsecureTestBits {
		return nil, fmt.Errorf("paillier: test key size %d bits below %d", bits, MinInsecureTestBits)
	}
	return generateKey(random, bits, false)
}

func generateKey(random io.Reader, bits int, safe bool) (*PrivateKey, error) {
	if bits > maxBits {
		return nil, fmt.Errorf("paillier: key size %d bits above %d", bits, maxBits)
	}
	for {
		p, err := keyPrime(random, (bits+1)/2, safe)
		if err != nil {
			return nil, err
		}
		q, err := keyPrime(random, bits/2, safe)
		if err != nil {
			return nil, err
		}
		if !primesFarApart(p, q, bits) {
			continue
		}
		sk, err := NewPrivateKey(p, q)
		if err != nil {
			return nil, err
		}
		if sk.N.BitLen() == bits {
			return sk, nil
		}
	}
}

func keyPrime(random io.Reader, bits int, safe bool) (*big.Int, error) {
	if safe {
		p, _, err := randomSafePrime(random, bits)
		return p, err
	}
	return randomPrime(random, bits)
}

// primesFarApart rejects |p − q| < 2^(bits/2 − 100), which Fermat's method
// would factor (the FIPS 186 check for RSA).
func primesFarApart(p, q *big.Int, bits int) bool {
	d := new(big.Int).Sub(p, q)
	return d.Abs(d).BitLen() > bits/2-100
}

// NewPrivateKey builds the private key for N = p·q. p and q must be distinct
// odd primes with gcd(N, (p−1)(q−1)) = 1 (not re-tested for primality).
func NewPrivateKey(p, q *big.Int) (*PrivateKey, error) {
	if p == nil || q == nil || p.Cmp(q) == 0 || p.Bit(0) == 0 || q.Bit(0) == 0 || p.Cmp(two) <= 0 || q.Cmp(two) <= 0 {
		return nil, fmt.Errorf("paillier: factors %v and %v are not distinct odd primes", p, q)
	}
	n := new(big.Int).Mul(p, q)
	pk, err := NewPublicKey(n)
	if err != nil {
		return nil, err
	}
	pm1 := new(big.Int).Sub(p, one)
	qm1 := new(big.Int).Sub(q, one)
	phi := new(big.Int).Mul(pm1, qm1)
	if new(big.Int).GCD(nil, nil, n, phi).Cmp(one) != 0 {
		return nil, fmt.Errorf("paillier: gcd(N, φ(N)) ≠ 1 for factors %v, %v", p, q)
	}
	sk := &PrivateKey{
		PublicKey: *pk,
		P:         new(big.Int).Set(p),
		Q:         new(big.Int).Set(q),
		lambda:    new(big.Int).Div(phi, new(big.Int).GCD(nil, nil, pm1, qm1)),
		pSquared:  new(big.Int).Mul(p, p),
		qSquared:  new(big.Int).Mul(q, q),
		qInvP:     new(big.Int).ModInverse(q, p),
	}
	sk.hp = crtH(sk.N, p, sk.pSquared)
	sk.hq = crtH(sk.N, q, sk.qSquared)
	return sk, nil
}

// crtH returns L_p(g^(p−1) mod p²)^−1 mod p for g = N+1.
func crtH(n, p, pSquared *big.Int) *big.Int {
	g := new(big.Int).Add(n, one)
	x := new(big.Int).Exp(g, new(big.Int).Sub(p, one), pSquared)
	return new(big.Int).ModInverse(lFunc(x, p), p)
}

// lFunc is Paillier's L(x) = (x − 1)/n.
func lFunc(x, n *big.Int) *big.Int {
	l := new(big.Int).Sub(x, one)
	return l.Quo(l, n)
}

// Public returns the public half of the key.
func (sk *PrivateKey) Public() *PublicKey {
	return &PublicKey{N: sk.N, NSquared: sk.NSquared, fb: sk.fb}
}

// Decrypt returns the plaintext in [0, N) of c.
func (sk *PrivateKey) Decrypt(c *Ciphertext) (*big.Int, error) {
	if err := sk.PublicKey.check(c); err != nil {
		return nil, err
	}
	mp := sk.decryptModPrime(c.c, sk.P, sk.pSquared, sk.hp)
	mq := sk.decryptModPrime(c.c, sk.Q, sk.qSquared, sk.hq)
	// m = mq + q·((mp − mq)·q^−1 mod p)
	m := new(big.Int).Sub(mp, mq)
	m.Mul(m, sk.qInvP).Mod(m, sk.P)
	m.Mul(m, sk.Q).Add(m, mq)
	return m, nil
}

func (sk *PrivateKey) decryptModPrime(c, p, pSquared, h *big.Int) *big.Int {
	x := new(big.Int).Mod(c, pSquared)
	x.Exp(x, new(big.Int).Sub(p, one), pSquared)
	m := lFunc(x, p)
	return m.Mul(m, h).Mod(m, p)
}
