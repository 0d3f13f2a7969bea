package pdpmvds

import (
	"fmt"
	"io"
	"math/big"

	"github.com/dppub/dppub/crypto/paillier"
	"github.com/dppub/dppub/randx"
)

// Slot packing for the Paillier suite. A plaintext holds `slots` signed
// integers v_s as Σ v_s·B^s with B = 2^bits; as long as every |v_s| < B/2
// and the whole sum stays below N/2, the centred plaintext decodes back
// into its digits (balanced base-B representation). Homomorphic addition
// adds slot-wise, so one ciphertext carries many counts.
//
// Goethals et al.'s scalar product on packed vectors: Alice encrypts, for
// every record, E_r = Enc(B^{pos(r)}) (one-hot over her values, one digit
// per value); Bob multiplies the E_r of his records with value j and a
// fresh Enc(−Σ_s m_s·B^s), so Alice decrypts Σ_s (N_{s,j} − m_s)·B^s: every
// count of her values against Bob's value j at once, each hidden by its
// own mask m_s uniform in [0, 2^{σ+L}) (statistical distance ≤ 2^{−σ} per
// digit, σ = Session.StatBits, L = bit length of n). Shares are integers:
// Alice's N − m, Bob's m.

type packing struct {
	bits, slots int
}

func newPacking(keyBits, slotBits int) (packing, error) {
	slots := (keyBits - 2) / slotBits
	if slots < 1 {
		return packing{}, fmt.Errorf("pdpmvds: a %d-bit key cannot hold a %d-bit slot", keyBits, slotBits)
	}
	return packing{bits: slotBits, slots: slots}, nil
}

// goethalsPacking is the slot layout of scalar-product replies.
func (s *Session) goethalsPacking() (packing, error) {
	return newPacking(s.KeyBits, s.StatBits+s.recordBits()+2)
}

// maskBits is the size of Bob's per-digit masks.
func (s *Session) maskBits() int { return s.StatBits + s.recordBits() }

// pack returns Σ v_s·B^s.
func (p packing) pack(vals []*big.Int) *big.Int {
	out := new(big.Int)
	for s := len(vals) - 1; s >= 0; s-- {
		out.Lsh(out, uint(p.bits))
		if vals[s] != nil {
			out.Add(out, vals[s])
		}
	}
	return out
}

// unpack decodes count balanced digits of the plaintext m of pk, failing
// if anything is left (an overflow).
func (p packing) unpack(pk *paillier.PublicKey, m *big.Int, count int) ([]*big.Int, error) {
	v := pk.Signed(m)
	b := new(big.Int).Lsh(big.NewInt(1), uint(p.bits))
	half := new(big.Int).Rsh(b, 1)
	out := make([]*big.Int, count)
	for s := range out {
		d := new(big.Int).Mod(v, b)
		if d.Cmp(half) >= 0 {
			d.Sub(d, b)
		}
		v.Sub(v, d)
		v.Rsh(v, uint(p.bits))
		out[s] = d
	}
	if v.Sign() != 0 {
		return nil, fmt.Errorf("pdpmvds: packed plaintext overflows its %d slots of %d bits", count, p.bits)
	}
	return out, nil
}

// hornerPack returns Π c_s^{B^s}, an encryption of Σ v_s·B^s when c_s
// encrypts v_s.
func (p packing) hornerPack(pk *paillier.PublicKey, cts []*paillier.Ciphertext, mt *meter) *paillier.Ciphertext {
	b := new(big.Int).Lsh(big.NewInt(1), uint(p.bits))
	acc := cts[len(cts)-1]
	for s := len(cts) - 2; s >= 0; s-- {
		acc = pk.Add(pk.MulPlain(acc, b), cts[s])
		mt.exp.Add(1)
		mt.mul.Add(1)
	}
	return acc
}

// layout places the values of a list of units (attributes, or one
// composite) on consecutive digits of packed plaintexts, a unit possibly
// straddling two blocks: the fewest blocks, hence the fewest encryptions
// per record and the fewest products for Bob.
type layout struct {
	p      packing
	sizes  []int
	starts []int // linear digit index of each unit's value 0
	blocks int
}

func newLayout(p packing, sizes []int) layout {
	l := layout{p: p, sizes: sizes, starts: make([]int, len(sizes))}
	next := 0
	for u, size := range sizes {
		l.starts[u] = next
		next += size
	}
	l.blocks = (next + p.slots - 1) / p.slots
	return l
}

// blocksOf returns the first block and the number of blocks unit u spans.
func (l layout) blocksOf(u int) (first, count int) {
	first = l.starts[u] / l.p.slots
	last := (l.starts[u] + l.sizes[u] - 1) / l.p.slots
	return first, last - first + 1
}

// digit returns the block and slot of value v of unit u.
func (l layout) digit(u, v int) (block, slot int) {
	i := l.starts[u] + v
	return i / l.p.slots, i % l.p.slots
}

// readers returns one independent reader per worker (derived in order,
// so seeded runs stay reproducible).
func readers(src *randx.Source, w int) []io.Reader {
	out := make([]io.Reader, w)
	for i := range out {
		out[i] = paillier.NewReader(src.Child())
	}
	return out
}

// encryptOneHots returns, for every block of l and every record,
// Enc(Σ_u B^{slot(u, values[u][r])}) over the units whose digit falls in
// the block (an encryption of 0 otherwise).
func encryptOneHots(pk *paillier.PublicKey, l layout, values [][]int32, n int, src *randx.Source, workers int, mt *meter) ([][]*paillier.Ciphertext, error) {
	out := make([][]*paillier.Ciphertext, l.blocks)
	for b := range out {
		out[b] = make([]*paillier.Ciphertext, n)
	}
	w := heavyWorkers(n, workers)
	rs := readers(src, w)
	errs := make([]error, w)
	chunks(n, w, func(k, lo, hi int) {
		m := make([]*big.Int, l.blocks)
		for r := lo; r < hi; r++ {
			for b := range m {
				m[b] = new(big.Int)
			}
			for u, col := range values {
				b, s := l.digit(u, int(col[r]))
				m[b].SetBit(m[b], s*l.p.bits, 1)
			}
			for b := range m {
				c, err := pk.Encrypt(rs[k], m[b])
				if err != nil {
					errs[k] = err
					return
				}
				out[b][r] = c
			}
			mt.enc.Add(int64(l.blocks))
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("pdpmvds: encrypting one-hot vectors: %w", err)
		}
	}
	return out, nil
}

// groupProducts returns, for every group j, the product of the
// ciphertexts of the records whose col value is j (Enc(0)'s neutral
// element 1 for an empty group; the caller rerandomises).
func groupProducts(pk *paillier.PublicKey, cts []*paillier.Ciphertext, col []int32, groups, workers int, mt *meter) []*paillier.Ciphertext {
	n := len(col)
	w := heavyWorkers(n/1024+1, workers)
	parts := make([][]*paillier.Ciphertext, w)
	chunks(n, w, func(k, lo, hi int) {
		acc := make([]*paillier.Ciphertext, groups)
		for r := lo; r < hi; r++ {
			j := col[r]
			if acc[j] == nil {
				acc[j] = cts[r]
			} else {
				acc[j] = pk.Add(acc[j], cts[r])
			}
		}
		parts[k] = acc
	})
	out := parts[0]
	for _, p := range parts[1:] {
		if p == nil {
			continue
		}
		for j, c := range p {
			switch {
			case c == nil:
			case out[j] == nil:
				out[j] = c
			default:
				out[j] = pk.Add(out[j], c)
			}
		}
	}
	mt.mul.Add(int64(n))
	return out
}

// maskReplies multiplies every group product by a fresh Enc(−Σ_s m_s·B^s)
// and returns the replies and the masks m (per group, per slot), drawn
// uniformly in [0, 2^maskBits).
func maskReplies(pk *paillier.PublicKey, p packing, prods []*paillier.Ciphertext, maskBits int, src *randx.Source, workers int, mt *meter) ([]*paillier.Ciphertext, [][]*big.Int, error) {
	g := len(prods)
	replies := make([]*paillier.Ciphertext, g)
	masks := make([][]*big.Int, g)
	// Masks are drawn sequentially so that a seeded run is reproducible.
	rnd := paillier.NewReader(src.Child())
	bound := new(big.Int).Lsh(big.NewInt(1), uint(maskBits))
	for j := range masks {
		masks[j] = make([]*big.Int, p.slots)
		for s := range masks[j] {
			m, err := randInt(rnd, bound)
			if err != nil {
				return nil, nil, err
			}
			masks[j][s] = m
		}
	}
	w := heavyWorkers(g, workers)
	rs := readers(src, w)
	errs := make([]error, w)
	chunks(g, w, func(k, lo, hi int) {
		for j := lo; j < hi; j++ {
			neg := p.pack(masks[j])
			neg.Neg(neg)
			c, err := pk.Encrypt(rs[k], neg)
			if err != nil {
				errs[k] = err
				return
			}
			if prods[j] != nil {
				c = pk.Add(prods[j], c)
			}
			replies[j] = c
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, nil, fmt.Errorf("pdpmvds: masking replies: %w", err)
		}
	}
	mt.enc.Add(int64(g))
	mt.mul.Add(int64(g))
	return replies, masks, nil
}

// randInt draws uniformly from [0, bound).
func randInt(r io.Reader, bound *big.Int) (*big.Int, error) {
	n := (bound.BitLen() + 7) / 8
	buf := make([]byte, n+16) // 128 extra bits make the modular bias negligible
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, fmt.Errorf("pdpmvds: randomness: %w", err)
	}
	v := new(big.Int).SetBytes(buf)
	return v.Mod(v, bound), nil
}

// decryptReplies decrypts every reply with Alice's key and unpacks its
// slots: Alice's shares N − m, per reply and slot.
func decryptReplies(sk *paillier.PrivateKey, p packing, replies []*paillier.Ciphertext, workers int, mt *meter) ([][]*big.Int, error) {
	out := make([][]*big.Int, len(replies))
	w := heavyWorkers(len(replies), workers)
	errs := make([]error, w)
	chunks(len(replies), w, func(k, lo, hi int) {
		for j := lo; j < hi; j++ {
			m, err := sk.Decrypt(replies[j])
			if err == nil {
				out[j], err = p.unpack(&sk.PublicKey, m, p.slots)
			}
			if err != nil {
				errs[k] = err
				return
			}
		}
	})
	mt.dec.Add(int64(len(replies)))
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("pdpmvds: decrypting scalar-product replies: %w", err)
		}
	}
	return out, nil
}
