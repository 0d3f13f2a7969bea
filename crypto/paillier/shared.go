package paillier

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/big"

	"github.com/dppub/dppub/randx"
)

// Scheme names how a decryption key is shared.
type Scheme string

const (
	// Additive is n-of-n additive sharing of a decryption exponent d over
	// the integers: d = Σ d_i, partial decryption c^{d_i}, combination by
	// product. Every share is needed. Semi-honest: a party can shift the
	// result undetectably by sending a wrong partial decryption.
	Additive Scheme = "additive"
	// Threshold is t-of-n Shamir sharing of d over Z_{N·p'q'} with safe
	// primes, Δ = n!, and verifiable partial decryptions (Shoup 2000;
	// Damgård & Jurik 2001, s = 1; cf. Fouque, Poupard & Stern 2000).
	Threshold Scheme = "threshold"
)

// Sharing is the public description of one sharing of a key's decryption
// exponent, identical in every share of it.
type Sharing struct {
	Scheme    Scheme
	ID        string // random hex label; partial decryptions of different sharings never mix
	Parties   int    // n
	Threshold int    // shares needed: n for Additive, t for Threshold

	// Threshold scheme only: V is a random square in Z*_{N²} and
	// VerificationKeys[i−1] = V^{Δ·s_i} mod N², against which the
	// partial decryption of party i is proved.
	V                *big.Int
	VerificationKeys []*big.Int
}

// KeyShare is one party's share of a decryption key.
type KeyShare struct {
	PublicKey *PublicKey
	Sharing   *Sharing
	Index     int      // 1..Parties
	Secret    *big.Int // d_i (Additive, may be negative) or s_i (Threshold)
}

// PartialDecryption is one party's contribution to decrypting a ciphertext.
type PartialDecryption struct {
	SharingID string
	Index     int
	Value     *big.Int // c^{d_i} (Additive) or c^{2Δ s_i} (Threshold), mod N²
	Proof     *Proof   // Threshold only: proof that Value is correct
}

// shareMaskBits is the statistical hiding parameter of additive shares:
// each share is |d| + shareMaskBits bits long, so any n−1 shares are within
// statistical distance 2^−shareMaskBits of independent of d.
const shareMaskBits = 128

// Deal generates a fresh key of bits bits (≥ MinBits) and splits its
// decryption exponent into parties ≥ 2 additive shares (n-of-n).
//
// The dealer learns the factorisation of N and can decrypt everything: it
// must not be the semi-trusted third party S, nor anyone who sees the
// ciphertexts S handles; ideally it is none of the data owners either (an
// independent dealer that erases the key after dealing). A distributed key
// generation that avoids a dealer is not implemented.
func Deal(random io.Reader, bits, parties int) (*PublicKey, []*KeyShare, error) {
	if bits < MinBits {
		return nil, nil, fmt.Errorf("paillier: key size %d bits below the minimum %d (use DealInsecureTest in tests)", bits, MinBits)
	}
	return dealAdditive(random, bits, parties)
}

// DealInsecureTest is Deal without the size floor (≥ MinInsecureTestBits).
// INSECURE below MinBits: tests only.
func DealInsecureTest(random io.Reader, bits, parties int) (*PublicKey, []*KeyShare, error) {
	if bits < MinInsecureTestBits {
		return nil, nil, fmt.Errorf("paillier: test key size %d bits below %d", bits, MinInsecureTestBits)
	}
	return dealAdditive(random, bits, parties)
}

func dealAdditive(random io.Reader, bits, parties int) (*PublicKey, []*KeyShare, error) {
	if err := checkParties(parties, parties); err != nil {
		return nil, nil, err
	}
	sk, err := generateKey(random, bits, false)
	if err != nil {
		return nil, nil, err
	}
	shares, err := sk.ShareAdditive(random, parties)
	if err != nil {
		return nil, nil, err
	}
	return sk.Public(), shares, nil
}

func checkParties(threshold, parties int) error {
	if parties < 2 || parties > 1000 {
		return fmt.Errorf("paillier: %d parties outside [2, 1000]", parties)
	}
	if threshold < 1 || threshold > parties {
		return fmt.Errorf("paillier: threshold %d outside [1, %d]", threshold, parties)
	}
	return nil
}

// ShareAdditive splits this key's decryption exponent d (d ≡ 0 mod λ,
// d ≡ 1 mod N, so c^d = 1 + mN mod N²) into parties additive integer
// shares. Each call is an independent sharing with its own ID; the paper's
// pairwise keys λ_{x,y}, λ_{y,x} are one ShareAdditive(·, 2) per pair. Note
// that with pairwise sharings any two parties together can decrypt.
func (sk *PrivateKey) ShareAdditive(random io.Reader, parties int) ([]*KeyShare, error) {
	if err := checkParties(parties, parties); err != nil {
		return nil, err
	}
	d := sk.additiveExponent()
	id, err := newSharingID(random)
	if err != nil {
		return nil, err
	}
	sh := &Sharing{Scheme: Additive, ID: id, Parties: parties, Threshold: parties}
	pk := sk.Public()
	shares := make([]*KeyShare, parties)
	rest := new(big.Int).Set(d)
	for i := range parties - 1 {
		di, err := randomBits(random, d.BitLen()+shareMaskBits)
		if err != nil {
			return nil, err
		}
		rest.Sub(rest, di)
		shares[i] = &KeyShare{PublicKey: pk, Sharing: sh, Index: i + 1, Secret: di}
	}
	shares[parties-1] = &KeyShare{PublicKey: pk, Sharing: sh, Index: parties, Secret: rest}
	return shares, nil
}

// additiveExponent returns d = λ·(λ^−1 mod N).
func (sk *PrivateKey) additiveExponent() *big.Int {
	inv := new(big.Int).ModInverse(sk.lambda, sk.N)
	return inv.Mul(inv, sk.lambda)
}

func newSharingID(random io.Reader) (string, error) {
	var b [16]byte
	if _, err := io.ReadFull(random, b[:]); err != nil {
		return "", fmt.Errorf("paillier: reading randomness: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// PartialDecrypt returns this party's partial decryption of c. random feeds
// the zero-knowledge proof of the Threshold scheme (unused for Additive; nil
// is then allowed).
func (ks *KeyShare) PartialDecrypt(random io.Reader, c *Ciphertext) (*PartialDecryption, error) {
	pk := ks.PublicKey
	if err := pk.check(c); err != nil {
		return nil, err
	}
	switch ks.Sharing.Scheme {
	case Additive:
		v := expSigned(c.c, ks.Secret, pk.NSquared)
		return &PartialDecryption{SharingID: ks.Sharing.ID, Index: ks.Index, Value: v}, nil
	case Threshold:
		if random == nil {
			random = NewReader(randx.NewSecure())
		}
		return ks.thresholdPartial(random, c)
	default:
		return nil, fmt.Errorf("paillier: unknown sharing scheme %q", ks.Sharing.Scheme)
	}
}

// expSigned returns base^e mod m for any integer e (base a unit mod m).
func expSigned(base, e, m *big.Int) *big.Int {
	if e.Sign() >= 0 {
		return new(big.Int).Exp(base, e, m)
	}
	inv := new(big.Int).ModInverse(base, m)
	return inv.Exp(inv, new(big.Int).Neg(e), m)
}

// Combine recovers the plaintext of c in [0, N) from partial decryptions
// under sharing sh. It refuses when shares are missing (fewer than
// sh.Threshold distinct valid ones), when a partial belongs to another
// sharing, and, for the Threshold scheme, ignores partials whose proof fails
// (reporting them if too few remain). A combined value that is not of the
// form 1 + mN (wrong or substituted partials) is an error.
func Combine(pk *PublicKey, sh *Sharing, c *Ciphertext, parts []*PartialDecryption) (*big.Int, error) {
	if err := pk.check(c); err != nil {
		return nil, err
	}
	if err := checkParties(sh.Threshold, sh.Parties); err != nil {
		return nil, err
	}
	byIndex, err := indexParts(sh, parts)
	if err != nil {
		return nil, err
	}
	switch sh.Scheme {
	case Additive:
		if len(byIndex) != sh.Parties {
			return nil, fmt.Errorf("paillier: %d of %d partial decryptions present; additive sharing needs all: %w", len(byIndex), sh.Parties, ErrMissingShares)
		}
		return combineAdditive(pk, byIndex)
	case Threshold:
		return combineThreshold(pk, sh, c, byIndex)
	default:
		return nil, fmt.Errorf("paillier: unknown sharing scheme %q", sh.Scheme)
	}
}

// ErrMissingShares is wrapped by Combine when too few partial decryptions
// are given.
var ErrMissingShares = errors.New("paillier: missing key shares")

// ErrBadCombination is wrapped by Combine when the combined value is not an
// encryption-free 1 + mN (a wrong, missing or foreign partial decryption).
var ErrBadCombination = errors.New("paillier: partial decryptions do not combine")

func indexParts(sh *Sharing, parts []*PartialDecryption) (map[int]*PartialDecryption, error) {
	byIndex := make(map[int]*PartialDecryption, len(parts))
	for _, p := range parts {
		if p == nil || p.Value == nil {
			return nil, fmt.Errorf("paillier: nil partial decryption")
		}
		if p.SharingID != sh.ID {
			return nil, fmt.Errorf("paillier: partial decryption of sharing %q, want %q", p.SharingID, sh.ID)
		}
		if p.Index < 1 || p.Index > sh.Parties {
			return nil, fmt.Errorf("paillier: partial decryption index %d outside [1, %d]", p.Index, sh.Parties)
		}
		if _, dup := byIndex[p.Index]; dup {
			return nil, fmt.Errorf("paillier: duplicate partial decryption from party %d", p.Index)
		}
		byIndex[p.Index] = p
	}
	return byIndex, nil
}

func combineAdditive(pk *PublicKey, byIndex map[int]*PartialDecryption) (*big.Int, error) {
	prod := big.NewInt(1)
	for _, p := range byIndex {
		prod.Mul(prod, p.Value).Mod(prod, pk.NSquared)
	}
	return decodeOnePlusMN(pk, prod, one)
}

// decodeOnePlusMN returns L(x)·scaleInv mod N, failing unless x ≡ 1 mod N.
func decodeOnePlusMN(pk *PublicKey, x, scaleInv *big.Int) (*big.Int, error) {
	if new(big.Int).Mod(x, pk.N).Cmp(one) != 0 {
		return nil, ErrBadCombination
	}
	m := lFunc(x, pk.N)
	return m.Mul(m, scaleInv).Mod(m, pk.N), nil
}
