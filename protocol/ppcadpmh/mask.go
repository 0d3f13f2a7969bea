package ppcadpmh

import (
	"math"
	"math/rand/v2"
)

const (
	seedLen = 32
	// fracBits is the fixed-point precision of masked sums: 2^-24 ≈ 6e-8,
	// with room for magnitudes up to 2^39 ≈ 5.5e11 in an int64.
	fracBits = 24
)

// maskStream expands a pairwise seed into mask words with ChaCha8, a
// cryptographically strong generator: the masks are pseudorandom in
// Z_{2^64}, so a masked word reveals nothing about the value under it.
func maskStream(seed []byte, n int) []uint64 {
	var key [32]byte
	copy(key[:], seed)
	g := rand.NewChaCha8(key)
	out := make([]uint64, n)
	for i := range out {
		out[i] = g.Uint64()
	}
	return out
}

func toFixed(v float64) uint64 { return uint64(int64(math.Round(math.Ldexp(v, fracBits)))) }

func fromFixed(w uint64) float64 { return math.Ldexp(float64(int64(w)), -fracBits) }
