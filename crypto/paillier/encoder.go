package paillier

import (
	"fmt"
	"math"
	"math/big"
)

// MaxFracBits bounds Encoder.FracBits.
const MaxFracBits = 1024

// Encoder maps signed reals to plaintexts in fixed point: x is encoded as
// round(x·2^FracBits) mod N, so negative numbers become N − |x̂|.
//
// Homomorphic addition keeps the scale; multiplying two encoded values
// (MulPlain by an encoded scalar) gives a value with 2·FracBits fractional
// bits, to be decoded with Encoder{FracBits: 2·FracBits}.
//
// Decode treats plaintexts whose centred value exceeds N/3 in magnitude as an
// overflow: a legitimate result never gets there if the caller keeps every
// intermediate value below N/3, and a wrapped-around sum lands there with
// high probability.
type Encoder struct {
	FracBits int // fractional bits, in [0, MaxFracBits]
}

func (e Encoder) validate() error {
	if e.FracBits < 0 || e.FracBits > MaxFracBits {
		return fmt.Errorf("paillier: fixed-point FracBits %d outside [0, %d]", e.FracBits, MaxFracBits)
	}
	return nil
}

// Quantize returns round(x·2^FracBits) (halves away from zero) as a signed
// integer, without reduction.
func (e Encoder) Quantize(x float64) (*big.Int, error) {
	if err := e.validate(); err != nil {
		return nil, err
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil, fmt.Errorf("paillier: cannot encode %v", x)
	}
	f := new(big.Float).SetPrec(0).SetFloat64(x) // exact
	f.SetMantExp(f, e.FracBits)                  // exact scaling by 2^FracBits
	half := big.NewFloat(0.5)
	if x < 0 {
		half.Neg(half)
	}
	f.SetPrec(uint(64+e.FracBits+1100)).Add(f, half)
	v, _ := f.Int(nil) // truncates toward zero
	return v, nil
}

// Encode returns the plaintext mod N encoding x. It fails when |x̂| > N/3.
func (e Encoder) Encode(pk *PublicKey, x float64) (*big.Int, error) {
	v, err := e.Quantize(x)
	if err != nil {
		return nil, err
	}
	if err := checkThird(pk, v); err != nil {
		return nil, fmt.Errorf("paillier: encoding %v with %d fractional bits: %w", x, e.FracBits, err)
	}
	return v.Mod(v, pk.N), nil
}

// Decode returns the real encoded by plaintext m, or an error when its
// centred value exceeds N/3 in magnitude (overflow).
func (e Encoder) Decode(pk *PublicKey, m *big.Int) (float64, error) {
	if err := e.validate(); err != nil {
		return 0, err
	}
	v := pk.Signed(m)
	if err := checkThird(pk, v); err != nil {
		return 0, fmt.Errorf("paillier: decoding: %w", err)
	}
	f := new(big.Float).SetInt(v)
	f.SetMantExp(f, -e.FracBits)
	x, _ := f.Float64()
	return x, nil
}

// checkThird fails when |v| > N/3.
func checkThird(pk *PublicKey, v *big.Int) error {
	third := new(big.Int).Quo(pk.N, big.NewInt(3))
	if new(big.Int).Abs(v).Cmp(third) > 0 {
		return fmt.Errorf("value of %d bits exceeds N/3 (overflow)", v.BitLen())
	}
	return nil
}
