package roles

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dppub/dppub/method/ppcadpmh/ppca"
)

const (
	seedLen = 32
	// fixedLimit bounds the magnitude of the curator's decoded sums, in
	// grid steps: each of m owners keeps its word within ±fixedLimit/m, so
	// the sum of the m words stays inside int64 and never wraps.
	fixedLimit = 1 << 62
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

// checkFixedRange makes sure an owner's n rows fit the fixed-point words:
// every entry of Σx and Σxxᵀ lies in [0, n], so its rounded value is at
// most n/g grid steps; with the noise share it must stay within
// ±2^62/m (half of that is left to the share).
func checkFixedRange(plan *ppca.Plan, n, owners int) error {
	g := math.Min(plan.SumNoise.Grid, plan.OuterNoise.Grid)
	if steps := float64(n) / g; steps > float64(fixedLimit/uint64(owners))/2 {
		return fmt.Errorf("%d rows are %g grid steps of %g, beyond the fixed-point range ±2^61/%d of secure aggregation", n, steps, g, owners)
	}
	return nil
}

// decode reads the curator's sum of the owners' words for the packed
// entries: a two's-complement integer count of grid steps of each
// entry's block, scaled by the block's grid g (a power of two: exact).
func decode(plan *ppca.Plan, p int, total []uint64) ([]float64, error) {
	out := make([]float64, len(total))
	for i, w := range total {
		v := int64(w)
		if v > fixedLimit || v < -fixedLimit {
			return nil, fmt.Errorf("ppcadpmh: aggregate entry %d is %d grid steps, outside the fixed-point range ±2^62 (an owner's word was out of range)", i, v)
		}
		out[i] = float64(v) * plan.BlockNoise(i, p).Grid
	}
	return out, nil
}

// onGrid checks that local-mode statistics lie on the plan's public
// grids (every entry an integer multiple of its block's grid step, the
// structural zeros exactly 0), as every owner's release does.
func onGrid(plan *ppca.Plan, p int, packed []float64) error {
	for i, v := range packed {
		if !plan.Noised[i] {
			if v != 0 {
				return fmt.Errorf("structural zero %d is %v", i, v)
			}
			continue
		}
		g := plan.BlockNoise(i, p).Grid
		if u := v / g; math.IsNaN(u) || math.IsInf(u, 0) || u != math.Trunc(u) {
			return fmt.Errorf("entry %d = %v is not on the public grid %g", i, v, g)
		}
	}
	return nil
}
