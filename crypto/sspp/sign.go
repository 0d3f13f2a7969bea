package sspp

import (
	"fmt"
	"math"
	"math/big"

	"github.com/dppub/dppub/crypto/paillier"
	"github.com/dppub/dppub/randx"
)

// The sign step of PDP-MVDS's Algorithm 1 under the parties' shared
// Paillier key: S holds both parties' encrypted shares of n·N_c per cell
// c and the public fixed-point Â_c; it forms C[t_c] with
// t_c = Â_c − n·2^f·N_c, blinds it to C[t_c·r_c + r'_c] with r_c uniform in
// [1, 2^σ) and r'_c in [0, r_c) (r' keeps the sign and hides t's
// divisors), and packs the blinded values for the pair's joint
// decryption. The pair learns t·r + r' per cell, i.e. sign(t) and |t| up
// to an unknown factor; S learns the signs the pair returns, and then
// C[Σ|t|] = Π C[±t_c] (AbsSum).

// FixedPoint returns round(x·2^frac), halves away from zero, as an
// integer. Only public values go through it (the score's reference
// products Â).
func FixedPoint(x float64, frac int) (*big.Int, error) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil, fmt.Errorf("sspp: cannot encode %v", x)
	}
	f := new(big.Float).SetFloat64(x)
	f.SetMantExp(f, frac)
	if x >= 0 {
		f.Add(f, big.NewFloat(0.5))
	} else {
		f.Sub(f, big.NewFloat(0.5))
	}
	out, _ := f.Int(nil) // truncation toward zero after ±½: round half away
	return out, nil
}

// BlindSigns is S's step: for every cell c, t[c] = C[ahat[c]]·(cx[c]·cy[c])^scale
// (scale = −n·2^f turns shares of N_c into t_c) and blinded[c] =
// C[t_c·r_c + r'_c] with fresh r_c ∈ [1, 2^statBits) and r'_c ∈ [0, r_c),
// drawn in cell order from one child of src. Cost per cell: 3
// multiplications and 2 exponentiations. The plaintexts t_c·r_c + r'_c
// must fit the packing the pair decodes with (DecodeSigns).
func BlindSigns(pk *paillier.PublicKey, cx, cy []*paillier.Ciphertext, ahat []*big.Int, scale *big.Int, statBits int, src *randx.Source, workers int) (t, blinded []*paillier.Ciphertext, err error) {
	cells := len(ahat)
	if len(cx) != cells || len(cy) != cells {
		return nil, nil, fmt.Errorf("sspp: shares of %d and %d cells for %d cells", len(cx), len(cy), cells)
	}
	if statBits < 1 {
		return nil, nil, fmt.Errorf("sspp: %d-bit sign blinding", statBits)
	}
	// Masks are drawn in order (reproducible for a seeded source).
	rnd := paillier.NewReader(src.Child())
	bound := new(big.Int).Lsh(big.NewInt(1), uint(statBits))
	bound.Sub(bound, big.NewInt(1))
	rs, offs := make([]*big.Int, cells), make([]*big.Int, cells)
	for c := range cells {
		r, err := randInt(rnd, bound)
		if err != nil {
			return nil, nil, err
		}
		r.Add(r, big.NewInt(1))
		off, err := randInt(rnd, r)
		if err != nil {
			return nil, nil, err
		}
		rs[c], offs[c] = r, off
	}
	t = make([]*paillier.Ciphertext, cells)
	blinded = make([]*paillier.Ciphertext, cells)
	chunks(cells, heavyWorkers(cells, workers), func(_, lo, hi int) {
		for c := lo; c < hi; c++ {
			tc := pk.AddPlain(pk.MulPlain(pk.Add(cx[c], cy[c]), scale), ahat[c])
			t[c] = tc
			blinded[c] = pk.AddPlain(pk.MulPlain(tc, rs[c]), offs[c])
		}
	})
	return t, blinded, nil
}

// DecodeSigns is the pair's step after jointly decrypting the packed
// blinded values: one word per cell, 1 when t·r + r' (hence t) is
// negative. The decoder learns t·r + r' for every cell.
func DecodeSigns(pk *paillier.PublicKey, p Packing, plains []*big.Int, cells int) ([]uint64, error) {
	bits := make([]uint64, 0, cells)
	for _, m := range plains {
		count := min(p.Slots, cells-len(bits))
		d, err := p.Unpack(pk, m, count)
		if err != nil {
			return nil, err
		}
		for _, v := range d {
			if v.Sign() < 0 {
				bits = append(bits, 1)
			} else {
				bits = append(bits, 0)
			}
		}
	}
	if len(bits) != cells {
		return nil, fmt.Errorf("sspp: decoded %d signs for %d cells", len(bits), cells)
	}
	return bits, nil
}

// AbsSum is S's step once the signs are back: C[Σ_c |t_c|] = Π_c C[±t_c],
// t_c negated where negative[c] = 1 (Algorithm 1, steps 6 and 8). One
// multiplication per cell.
func AbsSum(pk *paillier.PublicKey, t []*paillier.Ciphertext, negative []uint64) (*paillier.Ciphertext, error) {
	if len(t) != len(negative) || len(t) == 0 {
		return nil, fmt.Errorf("sspp: %d signs for %d cells", len(negative), len(t))
	}
	var sum *paillier.Ciphertext
	for i, c := range t {
		if negative[i] == 1 {
			c = pk.Neg(c)
		}
		if sum == nil {
			sum = c
		} else {
			sum = pk.Add(sum, c)
		}
	}
	return sum, nil
}
