//go:build unix

package testenv

import (
	"slices"
	"testing"
)

// spin does n units of arithmetic no compiler folds away.
func spin(n int) uint64 {
	x := uint64(1)
	for i := range n * 1_000_000 {
		x = x*6364136223846793005 + uint64(i)
	}
	return x
}

var sink uint64

// BenchPair runs both configurations in every iteration, on the same
// seeds 1, 2, …, and reports their CPU seconds and ratios. No bound is
// put on the figures themselves: timings on a shared machine are the
// benchmarks' business, not a test's.
func TestBenchPair(t *testing.T) {
	var seeds [2][]uint64
	r := testing.Benchmark(func(b *testing.B) {
		seeds = [2][]uint64{}
		BenchPair(b, [2]string{"one", "two"}, func(k int, seed uint64) {
			seeds[k] = append(seeds[k], seed)
			sink += spin(20 * (k + 1))
		})
	})
	if len(seeds[0]) == 0 || !slices.Equal(seeds[0], seeds[1]) || seeds[0][0] != 1 || seeds[0][len(seeds[0])-1] != uint64(len(seeds[0])) {
		t.Fatalf("seeds %v", seeds)
	}
	for _, m := range []string{"one-cpu-s/op", "two-cpu-s/op", "cpu-ratio", "wall-ratio"} {
		if !(r.Extra[m] > 0) {
			t.Errorf("%s = %v, want a positive figure (all: %v)", m, r.Extra[m], r.Extra)
		}
	}
}
