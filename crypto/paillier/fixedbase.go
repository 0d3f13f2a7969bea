package paillier

import (
	"fmt"
	"io"
	"math/big"
)

// fixedBaseWindow is the window of the fixed-base table in bits: one table
// row per exponent byte, 255 entries a row.
const fixedBaseWindow = 8

// fixedBase holds hs^(j·256^i) mod N² for j = 1..255 and every exponent byte
// i, so hs^x costs one modular multiplication per byte of x.
type fixedBase struct {
	hs       *big.Int
	expBytes int
	rows     [][]*big.Int
}

// ShortExponentBits returns the length of the random exponent x that
// Precompute uses for a modulus of the given size: twice the symmetric
// security level of the modulus (NIST SP 800-57 Part 1, Table 2), as
// Damgård, Jurik and Nielsen suggest.
func ShortExponentBits(modulusBits int) int {
	switch {
	case modulusBits >= 15360:
		return 2 * 256
	case modulusBits >= 7680:
		return 2 * 192
	case modulusBits >= 3072:
		return 2 * 128
	default:
		return 2 * 112
	}
}

// Precompute switches Encrypt and Rerandomize to the short-exponent
// randomness of Damgård, Jurik and Nielsen ("A generalization of Paillier's
// public-key system with applications to electronic voting", IJIS 2010,
// §4.2): it draws h uniform in Z*_N, sets hs = h^N mod N², and builds a
// fixed-base table so that the randomizer hs^x mod N², with x uniform of
// ShortExponentBits(|N|) bits, costs about |x|/8 multiplications mod N²
// instead of a full |N|-bit exponentiation r^N.
//
// Security assumption (in addition to Paillier's decisional composite
// residuosity): hs^x for such a short random x is computationally
// indistinguishable from a uniform N-th residue (the short-exponent
// indistinguishability assumption used by DJN). h need not be secret; each
// key holder may pick its own.
//
// The table takes about |x|/8 · 255 · |N²| bits (≈ 3.7 MB at 2048 bits) and
// ~7000 multiplications to build. Precompute mutates pk: call it before
// sharing pk between goroutines.
func (pk *PublicKey) Precompute(random io.Reader) error {
	h, err := randomUnit(random, pk.N)
	if err != nil {
		return err
	}
	hs := h.Exp(h, pk.N, pk.NSquared)
	fb, err := newFixedBase(hs, ShortExponentBits(pk.Bits()), pk.NSquared)
	if err != nil {
		return err
	}
	pk.fb = fb
	return nil
}

// IsPrecomputed reports whether Precompute has been called.
func (pk *PublicKey) IsPrecomputed() bool { return pk.fb != nil }

func newFixedBase(hs *big.Int, expBits int, mod *big.Int) (*fixedBase, error) {
	if expBits <= 0 || expBits%fixedBaseWindow != 0 {
		return nil, fmt.Errorf("paillier: short exponent of %d bits is not a positive multiple of %d", expBits, fixedBaseWindow)
	}
	fb := &fixedBase{hs: new(big.Int).Set(hs), expBytes: expBits / fixedBaseWindow}
	fb.rows = make([][]*big.Int, fb.expBytes)
	base := new(big.Int).Set(hs)
	for i := range fb.rows {
		row := make([]*big.Int, 255)
		row[0] = new(big.Int).Set(base)
		for j := 1; j < len(row); j++ {
			row[j] = new(big.Int).Mul(row[j-1], base)
			row[j].Mod(row[j], mod)
		}
		fb.rows[i] = row
		base = new(big.Int).Mul(row[254], base) // base^256
		base.Mod(base, mod)
	}
	return fb, nil
}

// random returns hs^x mod N² for a fresh uniform x of expBytes bytes.
func (fb *fixedBase) random(random io.Reader, mod *big.Int) (*big.Int, error) {
	x := make([]byte, fb.expBytes)
	if _, err := io.ReadFull(random, x); err != nil {
		return nil, fmt.Errorf("paillier: reading randomness: %w", err)
	}
	return fb.exp(x, mod), nil
}

// exp returns hs^x mod N² for x given as little-endian bytes.
func (fb *fixedBase) exp(x []byte, mod *big.Int) *big.Int {
	acc := big.NewInt(1)
	for i, b := range x {
		if b == 0 {
			continue
		}
		acc.Mul(acc, fb.rows[i][b-1])
		acc.Mod(acc, mod)
	}
	return acc
}
