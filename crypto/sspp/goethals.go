package sspp

import (
	"errors"
	"fmt"
	"io"
	"math/big"

	"github.com/dppub/dppub/crypto/paillier"
	"github.com/dppub/dppub/randx"
)

// The packed Goethals et al. scalar product. Alice encrypts, for every
// record r, E_r = Enc(Σ_u B^{digit(u, x_u[r])}) (one-hot over her values,
// one digit per value) under her own key; Bob multiplies the E_r of his
// records with value j and a fresh Enc(−Σ_s m_s·B^s), so Alice decrypts
// Σ_s (N_{s,j} − m_s)·B^s: every count of her values against Bob's value
// j at once, each hidden by its own mask m_s uniform in [0, 2^maskBits).
// Shares are integers: Alice's N − m, Bob's m.

// EncryptOneHots is Alice's (the client's) step: for every block of l and
// every record r, Enc(Σ_u B^{slot(u, values[u][r])}) over the units u whose
// digit falls in the block (an encryption of 0 otherwise). values holds one
// column per unit of l, each value in [0, size of the unit). Alice's
// vector can be reused against any number of Bob's columns. Bob learns
// nothing from it (Paillier's semantic security). Cost: Blocks
// encryptions per record, in parallel on up to workers goroutines
// (0: GOMAXPROCS).
func EncryptOneHots(pk *paillier.PublicKey, l Layout, values [][]int32, src *randx.Source, workers int) ([][]*paillier.Ciphertext, error) {
	n, err := checkColumns(l, values)
	if err != nil {
		return nil, err
	}
	out := make([][]*paillier.Ciphertext, l.Blocks)
	for b := range out {
		out[b] = make([]*paillier.Ciphertext, n)
	}
	w := heavyWorkers(n, workers)
	rs := readers(src, w)
	err = tryEach(n, w, func(k, r int) error {
		m := make([]*big.Int, l.Blocks)
		for b := range m {
			m[b] = new(big.Int)
		}
		for u, col := range values {
			b, s := l.Digit(u, int(col[r]))
			m[b].SetBit(m[b], s*l.Bits, 1)
		}
		for b := range m {
			c, err := pk.Encrypt(rs[k], m[b])
			if err != nil {
				return err
			}
			out[b][r] = c
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sspp: encrypting one-hot vectors: %w", err)
	}
	return out, nil
}

// checkColumns checks one column per unit of l, all of the same length,
// with values in range, and returns the length.
func checkColumns(l Layout, values [][]int32) (int, error) {
	if len(values) != len(l.sizes) || len(values) == 0 {
		return 0, fmt.Errorf("sspp: %d columns for a layout of %d units", len(values), len(l.sizes))
	}
	n := len(values[0])
	for u, col := range values {
		if len(col) != n {
			return 0, fmt.Errorf("sspp: column %d has %d records, column 0 has %d", u, len(col), n)
		}
		if err := checkValues(col, l.sizes[u]); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// checkValues checks that every value of col lies in [0, size).
func checkValues(col []int32, size int) error {
	for r, v := range col {
		if v < 0 || int(v) >= size {
			return fmt.Errorf("sspp: record %d has value %d, outside [0, %d)", r, v, size)
		}
	}
	return nil
}

// Select is a middle party's step for a product over more than two
// parties: it keeps (rerandomised) the ciphertexts of the records whose
// col value is k and replaces the others by fresh encryptions of 0, so
// the next party can multiply by its own indicator without learning which
// records were kept. One encryption per record; the middle party learns
// nothing (it never decrypts).
func Select(pk *paillier.PublicKey, cts []*paillier.Ciphertext, col []int32, k int32, src *randx.Source, workers int) ([]*paillier.Ciphertext, error) {
	if len(cts) != len(col) {
		return nil, fmt.Errorf("sspp: %d ciphertexts for %d records", len(cts), len(col))
	}
	out := make([]*paillier.Ciphertext, len(cts))
	w := heavyWorkers(len(cts), workers)
	rs := readers(src, w)
	zero := new(big.Int)
	err := tryEach(len(cts), w, func(t, r int) error {
		var err error
		if col[r] == k {
			out[r], err = pk.Rerandomize(rs[t], cts[r])
		} else {
			out[r], err = pk.Encrypt(rs[t], zero)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("sspp: selecting records: %w", err)
	}
	return out, nil
}

// Reply is Bob's (the server's) step: for every value j in [0, groups) of
// his column, the homomorphic dot product of Alice's packed vector cts
// with his indicator of j (the product of the ciphertexts of his records
// with value j), times a fresh Enc(−Σ_s m_s·B^s). It returns the replies
// for Alice and Bob's shares, the masks m[j][s], uniform in
// [0, 2^maskBits), which must leave two bits of slot headroom (maskBits ≤
// Bits − 2) and exceed the counts' bit length by the statistical security
// parameter σ (Alice then learns N − m within 2^−σ of uniform per digit).
// Bob learns nothing. Cost: one multiplication per record, one encryption
// and one multiplication per group.
func Reply(pk *paillier.PublicKey, p Packing, cts []*paillier.Ciphertext, col []int32, groups, maskBits int, src *randx.Source, workers int) ([]*paillier.Ciphertext, [][]*big.Int, error) {
	if len(cts) != len(col) {
		return nil, nil, fmt.Errorf("sspp: %d ciphertexts for %d records", len(cts), len(col))
	}
	if maskBits < 1 || maskBits > p.Bits-2 {
		return nil, nil, fmt.Errorf("sspp: %d-bit masks in %d-bit slots", maskBits, p.Bits)
	}
	if err := checkValues(col, groups); err != nil {
		return nil, nil, err
	}
	prods := groupProducts(pk, cts, col, groups, workers)
	return maskReplies(pk, p, prods, maskBits, src, workers)
}

// groupProducts returns, for every group j, the product of the
// ciphertexts of the records whose col value is j (nil for an empty
// group: maskReplies' fresh encryption stands in).
func groupProducts(pk *paillier.PublicKey, cts []*paillier.Ciphertext, col []int32, groups, workers int) []*paillier.Ciphertext {
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
	if out == nil { // no records
		out = make([]*paillier.Ciphertext, groups)
	}
	for _, p := range parts[1:] {
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
	return out
}

// maskReplies multiplies every group product by a fresh Enc(−Σ_s m_s·B^s)
// and returns the replies and the masks m (per group, per slot).
func maskReplies(pk *paillier.PublicKey, p Packing, prods []*paillier.Ciphertext, maskBits int, src *randx.Source, workers int) ([]*paillier.Ciphertext, [][]*big.Int, error) {
	g := len(prods)
	replies := make([]*paillier.Ciphertext, g)
	masks := make([][]*big.Int, g)
	// Masks are drawn sequentially so that a seeded run is reproducible.
	rnd := paillier.NewReader(src.Child())
	bound := new(big.Int).Lsh(big.NewInt(1), uint(maskBits))
	for j := range masks {
		masks[j] = make([]*big.Int, p.Slots)
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
	err := tryEach(g, w, func(k, j int) error {
		neg := p.Pack(masks[j])
		neg.Neg(neg)
		c, err := pk.Encrypt(rs[k], neg)
		if err != nil {
			return err
		}
		if prods[j] != nil {
			c = pk.Add(prods[j], c)
		}
		replies[j] = c
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("sspp: masking replies: %w", err)
	}
	return replies, masks, nil
}

// randInt draws uniformly from [0, bound) (bias below 2^−128).
func randInt(r io.Reader, bound *big.Int) (*big.Int, error) {
	n := (bound.BitLen() + 7) / 8
	buf := make([]byte, n+16) // 128 extra bits make the modular bias negligible
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, fmt.Errorf("sspp: randomness: %w", err)
	}
	v := new(big.Int).SetBytes(buf)
	return v.Mod(v, bound), nil
}

// DecryptReplies is Alice's finishing step: it decrypts every reply with
// her key and unpacks its slots, giving her shares N − m per group and
// slot (u + v = N with Bob's masks, exactly, in the integers). One
// decryption per reply, in parallel.
func DecryptReplies(sk *paillier.PrivateKey, p Packing, replies []*paillier.Ciphertext, workers int) ([][]*big.Int, error) {
	out := make([][]*big.Int, len(replies))
	w := heavyWorkers(len(replies), workers)
	err := tryEach(len(replies), w, func(_, j int) error {
		m, err := sk.Decrypt(replies[j])
		if err == nil {
			out[j], err = p.Unpack(&sk.PublicKey, m, p.Slots)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("sspp: decrypting scalar-product replies: %w", err)
	}
	return out, nil
}

// EncryptBatch encrypts every plaintext under pk, in parallel (one
// independent reader per worker, drawn from src in order). A holder uses
// it to re-encrypt its integer shares under the parties' shared key.
func EncryptBatch(pk *paillier.PublicKey, plains []*big.Int, src *randx.Source, workers int) ([]*paillier.Ciphertext, error) {
	out := make([]*paillier.Ciphertext, len(plains))
	w := heavyWorkers(len(plains), workers)
	rs := readers(src, w)
	err := tryEach(len(plains), w, func(k, i int) error {
		var err error
		out[i], err = pk.Encrypt(rs[k], plains[i])
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("sspp: encrypting: %w", err)
	}
	return out, nil
}

// PartialDecryptBatch is one key holder's partial decryption of every
// ciphertext, in parallel; paillier.Combine with the other holders'
// partials gives the plaintexts.
func PartialDecryptBatch(share *paillier.KeyShare, cts []*paillier.Ciphertext, workers int) ([]*paillier.PartialDecryption, error) {
	if share == nil {
		return nil, errors.New("sspp: no key share")
	}
	out := make([]*paillier.PartialDecryption, len(cts))
	w := heavyWorkers(len(cts), workers)
	err := tryEach(len(cts), w, func(_, i int) error {
		var err error
		out[i], err = share.PartialDecrypt(nil, cts[i])
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("sspp: partial decryption: %w", err)
	}
	return out, nil
}
