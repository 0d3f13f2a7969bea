package sspp

import (
	"fmt"
	"math/big"

	"github.com/dppub/dppub/crypto/paillier"
)

// Packing is a slot layout of Paillier plaintexts: a plaintext holds Slots
// signed integers v_s as Σ v_s·B^s with B = 2^Bits. As long as every
// |v_s| < B/2 and the sum stays below N/2, the centred plaintext decodes
// back into its digits (balanced base-B representation). Homomorphic
// addition adds slot-wise, so one ciphertext carries many counts.
type Packing struct {
	Bits, Slots int
}

// NewPacking returns the most slots of slotBits bits a keyBits-bit
// modulus holds with room for the sign: ⌊(keyBits − 2)/slotBits⌋.
func NewPacking(keyBits, slotBits int) (Packing, error) {
	if slotBits < 2 {
		return Packing{}, fmt.Errorf("sspp: slots of %d bits cannot hold a signed digit", slotBits)
	}
	slots := (keyBits - 2) / slotBits
	if slots < 1 {
		return Packing{}, fmt.Errorf("sspp: a %d-bit key cannot hold a %d-bit slot", keyBits, slotBits)
	}
	return Packing{Bits: slotBits, Slots: slots}, nil
}

// base returns B = 2^Bits.
func (p Packing) base() *big.Int { return new(big.Int).Lsh(big.NewInt(1), uint(p.Bits)) }

// Pack returns Σ v_s·B^s (a nil value counts as 0). At most Slots values.
func (p Packing) Pack(vals []*big.Int) *big.Int {
	if len(vals) > p.Slots {
		panic(fmt.Sprintf("sspp: packing %d values into %d slots", len(vals), p.Slots))
	}
	out := new(big.Int)
	for s := len(vals) - 1; s >= 0; s-- {
		out.Lsh(out, uint(p.Bits))
		if vals[s] != nil {
			out.Add(out, vals[s])
		}
	}
	return out
}

// Unpack decodes count balanced digits of the plaintext m of pk, failing
// if anything is left over (an overflow).
func (p Packing) Unpack(pk *paillier.PublicKey, m *big.Int, count int) ([]*big.Int, error) {
	v := pk.Signed(m)
	b := p.base()
	half := new(big.Int).Rsh(b, 1)
	out := make([]*big.Int, count)
	for s := range out {
		d := new(big.Int).Mod(v, b)
		if d.Cmp(half) >= 0 {
			d.Sub(d, b)
		}
		v.Sub(v, d)
		v.Rsh(v, uint(p.Bits))
		out[s] = d
	}
	if v.Sign() != 0 {
		return nil, fmt.Errorf("sspp: packed plaintext overflows its %d slots of %d bits", count, p.Bits)
	}
	return out, nil
}

// PackCiphertexts returns Π c_s^{B^s} (Horner's rule), an encryption of
// Σ v_s·B^s when c_s encrypts v_s: len(cts) − 1 exponentiations and as
// many multiplications. Whoever holds only the ciphertexts can pack them.
func (p Packing) PackCiphertexts(pk *paillier.PublicKey, cts []*paillier.Ciphertext) *paillier.Ciphertext {
	b := p.base()
	acc := cts[len(cts)-1]
	for s := len(cts) - 2; s >= 0; s-- {
		acc = pk.Add(pk.MulPlain(acc, b), cts[s])
	}
	return acc
}

// PackAll packs consecutive runs of Slots ciphertexts (the last run may be
// shorter) with PackCiphertexts, in parallel: len(cts) − blocks
// exponentiations and multiplications in all.
func (p Packing) PackAll(pk *paillier.PublicKey, cts []*paillier.Ciphertext, workers int) []*paillier.Ciphertext {
	var runs [][]*paillier.Ciphertext
	for lo := 0; lo < len(cts); lo += p.Slots {
		runs = append(runs, cts[lo:min(lo+p.Slots, len(cts))])
	}
	out := make([]*paillier.Ciphertext, len(runs))
	chunks(len(runs), heavyWorkers(len(runs), workers), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] = p.PackCiphertexts(pk, runs[i])
		}
	})
	return out
}

// Layout places the values of a list of units (attributes, or one
// composite of attributes) on consecutive digits of packed plaintexts, a
// unit possibly straddling two blocks: the fewest blocks, hence the fewest
// encryptions per record and the fewest products for Bob.
type Layout struct {
	Packing
	sizes  []int
	starts []int // linear digit index of each unit's value 0
	// Blocks is the number of plaintexts (ciphertexts per record).
	Blocks int
}

// NewLayout lays out units of the given sizes (numbers of values).
func NewLayout(p Packing, sizes []int) Layout {
	l := Layout{Packing: p, sizes: sizes, starts: make([]int, len(sizes))}
	next := 0
	for u, size := range sizes {
		l.starts[u] = next
		next += size
	}
	l.Blocks = (next + p.Slots - 1) / p.Slots
	return l
}

// BlocksOf returns the first block and the number of blocks unit u spans.
func (l Layout) BlocksOf(u int) (first, count int) {
	first = l.starts[u] / l.Slots
	last := (l.starts[u] + l.sizes[u] - 1) / l.Slots
	return first, last - first + 1
}

// Digit returns the block and slot of value v of unit u.
func (l Layout) Digit(u, v int) (block, slot int) {
	i := l.starts[u] + v
	return i / l.Slots, i % l.Slots
}
