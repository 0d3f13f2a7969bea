package sspp

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"

	"github.com/dppub/dppub/randx"
)

// Du & Atallah's commodity-server scalar product in matrix form, mod 2^64
// (uint64 wrap-around).
//
// A holds U (n × du, any words; a one-hot matrix in the two-party case), B
// holds a one-hot matrix Z (n × dz) given by each record's value. S deals
// masks Ra (n × du) to A and Rb (n × dz) to B as seeds, and a correction:
// in Sum mode ra = RaᵀRb − rb (du × dz), rb from a seed to B; in Row mode
// (an outer product per record, for products over more than two parties)
// ra_r = Ra_r ⊗ Rb_r − rb_r. A sends U + Ra, B sends Z + Rb, both
// uniformly distributed whatever U and Z are. Then
//
//	Sum:  u = ra − Raᵀ(Z + Rb),       v = (U + Ra)ᵀZ + rb,
//	Row:  u_r = ra_r − Ra_r ⊗ (Z_r + Rb_r),  v_r = (U_r + Ra_r) ⊗ Z_r + rb_r,
//
// and u + v = UᵀZ (resp. U_r ⊗ Z_r) mod 2^64. A mask reused with fresh
// corrections reveals nothing more: each party's view stays uniform.
// Layouts are row-major with U's index slower than Z's.

// Seed is a 32-byte seed of a mask or of common randomness.
type Seed = [32]byte

// NewSeed draws a seed from src (32 draws, one byte each).
func NewSeed(src *randx.Source) Seed {
	var s Seed
	for i := range s {
		s[i] = byte(src.Uint64())
	}
	return s
}

// Expand returns n words of the AES-128-CTR keystream keyed by the seed's
// first 16 bytes, with its last 16 bytes as the initial counter block (a
// pseudorandom generator: AES runs at several GB/s with AES-NI, and masks
// are the hot path of the commodity product).
func Expand(s Seed, n int) []uint64 {
	block, err := aes.NewCipher(s[:16])
	if err != nil {
		panic(err) // a 16-byte key is always valid
	}
	ctr := cipher.NewCTR(block, s[16:])
	out := make([]uint64, n)
	var buf [8192]byte
	for lo := 0; lo < n; lo += len(buf) / 8 {
		hi := min(n, lo+len(buf)/8)
		b := buf[:8*(hi-lo)]
		clear(b)
		ctr.XORKeyStream(b, b)
		for i := lo; i < hi; i++ {
			out[i] = binary.LittleEndian.Uint64(b[8*(i-lo):])
		}
	}
	return out
}

// MaskOneHot is B's (or a one-hot A's) masked input: onehot(col) + R with
// R = Expand(s, n·d), n = len(col), values of col in [0, d). Uniform words.
func MaskOneHot(col []int32, d int, s Seed) ([]uint64, error) {
	if err := checkValues(col, d); err != nil {
		return nil, err
	}
	out := Expand(s, len(col)*d)
	for r, v := range col {
		out[r*d+int(v)]++
	}
	return out, nil
}

// MaskWords is A's masked input when U is a matrix of words (a previous
// product's shares): U + Expand(s, len(U)). Uniform words.
func MaskWords(u []uint64, s Seed) []uint64 {
	out := Expand(s, len(u))
	AddInto(out, u)
	return out
}

// Mode says whether a product sums over records or keeps them.
type Mode uint8

// The two product modes.
const (
	// Sum: u + v = UᵀZ (du × dz).
	Sum Mode = iota + 1
	// Row: u_r + v_r = U_r ⊗ Z_r for every record (n × du·dz).
	Row
)

// outLen is the number of words of a product's shares over n records.
func (m Mode) outLen(n, du, dz int) int {
	if m == Row {
		return n * du * dz
	}
	return du * dz
}

// Correction is S's (the commodity server's) step: A's correction ra
// given both masks (Ra, n × du, and Rb, n × dz) and the seed of B's rb.
// S learns nothing of U, Z or the product.
func Correction(mode Mode, du, dz int, ra, rb []uint64, srb Seed, workers int) ([]uint64, error) {
	n, err := records(ra, du, rb, dz)
	if err != nil {
		return nil, err
	}
	p := product(mode, du, dz, ra, rb, workers)
	subInto(p, p, Expand(srb, mode.outLen(n, du, dz)))
	return p, nil
}

// ShareA is A's share: Sum ra − Raᵀ(Z+Rb), Row ra_r − Ra_r ⊗ (Z+Rb)_r,
// from its mask ra = Ra, S's correction corr and B's masked input. A
// learns only this uniformly random share.
func ShareA(mode Mode, du, dz int, ra, corr, maskedZ []uint64, workers int) ([]uint64, error) {
	n, err := records(ra, du, maskedZ, dz)
	if err != nil {
		return nil, err
	}
	if want := mode.outLen(n, du, dz); len(corr) != want {
		return nil, fmt.Errorf("sspp: correction of %d words, want %d", len(corr), want)
	}
	p := product(mode, du, dz, ra, maskedZ, workers)
	subInto(p, corr, p)
	return p, nil
}

// ShareB is B's share: Sum (U+Ra)ᵀZ + rb, Row (U+Ra)_r ⊗ e_{z_r} + rb_r,
// from A's masked input, B's column (values in [0, dz)) and the seed of
// rb. B learns only this uniformly random share.
func ShareB(mode Mode, du, dz int, maskedU []uint64, col []int32, srb Seed, workers int) ([]uint64, error) {
	if du < 1 || len(maskedU) != len(col)*du {
		return nil, fmt.Errorf("sspp: masked input of %d words for %d records of %d values", len(maskedU), len(col), du)
	}
	if err := checkValues(col, dz); err != nil {
		return nil, err
	}
	var p []uint64
	if mode == Sum {
		p = transposeOneHot(maskedU, du, col, dz, workers)
	} else {
		p = rowOneHot(maskedU, du, col, dz)
	}
	AddInto(p, Expand(srb, len(p)))
	return p, nil
}

// records checks that x (n × dx) and y (n × dy) have as many rows and
// returns n.
func records(x []uint64, dx int, y []uint64, dy int) (int, error) {
	if dx < 1 || dy < 1 || len(x)%dx != 0 || len(y)%dy != 0 || len(x)/dx != len(y)/dy {
		return 0, fmt.Errorf("sspp: matrices of %d words (%d columns) and %d words (%d columns) do not match", len(x), dx, len(y), dy)
	}
	return len(x) / dx, nil
}

// product returns XᵀY (Sum) or the per-record outer products (Row).
func product(mode Mode, dx, dy int, x, y []uint64, workers int) []uint64 {
	if mode == Sum {
		return transposeProduct(x, dx, y, dy, workers)
	}
	return rowOuter(x, dx, y, dy, workers)
}

// AddInto adds b to dst element-wise mod 2^64: how additive shares combine.
func AddInto(dst, b []uint64) {
	for i := range dst {
		dst[i] += b[i]
	}
}

// subInto sets dst = a − b element-wise (dst may alias a).
func subInto(dst, a, b []uint64) {
	for i := range dst {
		dst[i] = a[i] - b[i]
	}
}

// MaskCache keeps expanded masks that are reused (the setup masks of
// single attributes), keyed by seed.
type MaskCache map[Seed][]uint64

// Get returns Expand(s, n), from the cache when keep is set.
func (c MaskCache) Get(s Seed, n int, keep bool) []uint64 {
	if !keep {
		return Expand(s, n)
	}
	if v, ok := c[s]; ok && len(v) == n {
		return v
	}
	v := Expand(s, n)
	c[s] = v
	return v
}

// SplitWords splits words into parts additive shares mod 2^64: the first
// parts−1 uniform (drawn from src in order), the last the rest. Any
// parts−1 of them reveal nothing about words.
func SplitWords(words []uint64, parts int, src *randx.Source) [][]uint64 {
	out := make([][]uint64, parts)
	rest := make([]uint64, len(words))
	copy(rest, words)
	for i := range parts - 1 {
		out[i] = make([]uint64, len(words))
		for c := range words {
			out[i][c] = src.Uint64()
			rest[c] -= out[i][c]
		}
	}
	out[parts-1] = rest
	return out
}

// The commodity sign step on additive shares t = a + b mod 2^64 (|t| <
// 2^62 / 2^SignMaskBits): the pair shares a seed unknown to S; per cell
// it derives a multiplier r ∈ [1, 2^SignMaskBits), an offset r' ∈ [0, r)
// and a sign s ∈ {±1}; each sends S its part of s·(r·t + r')
// (SignQuery), S returns one bit per cell, 1 when the sum is negative
// (SignBits), and each flips its share where s and that bit disagree
// (AbsShare), giving shares of Σ|t|. S learns |r·t + r'| per cell, not
// the sign of t.

// SignMaskBits is the size of the sign step's multiplier r.
const SignMaskBits = 15

// signStream returns the pair's common randomness for request id.
func signStream(pair Seed, id uint64) *rand.ChaCha8 {
	h := sha256.New()
	h.Write(pair[:])
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], id)
	h.Write(b[:])
	var k Seed
	copy(k[:], h.Sum(nil))
	return rand.NewChaCha8(k)
}

func signMask(c *rand.ChaCha8) (r, off uint64, neg bool) {
	r = 1 + c.Uint64()%((1<<SignMaskBits)-1)
	off = c.Uint64() % r
	neg = c.Uint64()&1 == 1
	return r, off, neg
}

// SignQuery is one pair member's message to S: s·(r·t_c + r') for its
// shares t_c, the offset added by the member with first set only.
func SignQuery(pair Seed, id uint64, tShare []uint64, first bool) []uint64 {
	c := signStream(pair, id)
	w := make([]uint64, len(tShare))
	for i, t := range tShare {
		r, off, neg := signMask(c)
		v := r * t
		if first {
			v += off
		}
		if neg {
			v = -v
		}
		w[i] = v
	}
	return w
}

// SignBits is S's step: one word per cell, 1 when the sum of the pair's
// queries is negative (as a signed 64-bit integer).
func SignBits(qa, qb []uint64) ([]uint64, error) {
	if len(qa) != len(qb) {
		return nil, fmt.Errorf("sspp: sign queries of %d and %d words", len(qa), len(qb))
	}
	bits := make([]uint64, len(qa))
	for i := range bits {
		if int64(qa[i]+qb[i]) < 0 {
			bits[i] = 1
		}
	}
	return bits, nil
}

// AbsShare is a pair member's final step: its share of Σ_c |t_c|, each
// share t_c flipped where sign(t_c) = s_c·σ_c is negative (exactly one of
// the pair's sign s_c and S's bit σ_c is −1).
func AbsShare(pair Seed, id uint64, tShare, bits []uint64) (uint64, error) {
	if len(bits) != len(tShare) {
		return 0, fmt.Errorf("sspp: %d signs for %d cells", len(bits), len(tShare))
	}
	c := signStream(pair, id)
	var abs uint64
	for i, t := range tShare {
		_, _, neg := signMask(c)
		if neg != (bits[i] == 1) {
			abs -= t
		} else {
			abs += t
		}
	}
	return abs, nil
}
