package marginal

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// A stride sums, multiplies and adds exactly as the per-cell projector of
// the same table and subset does, for subsets at the start, the middle,
// the end and across a table, and for the empty subset.
func TestStrideMatchesProjector(t *testing.T) {
	sizes := []int{3, 4, 2, 5, 3}
	table := newFactor(sizes, []int{0, 1, 2, 3, 4})
	rng := rand.New(rand.NewPCG(1, 2))
	for c := range table.Counts {
		table.Counts[c] = rng.Float64()
	}
	for _, sub := range [][]int{{0}, {0, 1}, {1, 2}, {2, 3}, {3, 4}, {4}, {0, 4}, {1, 3}, {0, 2, 4}, {0, 1, 2, 3, 4}, {}} {
		t.Run(fmt.Sprint(sub), func(t *testing.T) {
			s, full := newStride(table, sub), mustProject(table, sub)
			cells := 1
			for _, a := range sub {
				cells *= sizes[a]
			}
			got, want := make([]float64, cells), make([]float64, cells)
			s.sum(table.Counts, got)
			for c, x := range full {
				want[x] += table.Counts[c]
			}
			closeAll(t, "sum", got, want)
			f := make([]float64, cells)
			for x := range f {
				f[x] = 1 + rng.Float64()
			}
			mul, add := append([]float64(nil), table.Counts...), append([]float64(nil), table.Counts...)
			s.mul(mul, f)
			s.add(add, f)
			wantMul, wantAdd := make([]float64, len(table.Counts)), make([]float64, len(table.Counts))
			for c, x := range full {
				wantMul[c], wantAdd[c] = table.Counts[c]*f[x], table.Counts[c]+f[x]
			}
			closeAll(t, "mul", mul, wantMul)
			closeAll(t, "add", add, wantAdd)
		})
	}
}

func closeAll(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for i := range want {
		if d := got[i] - want[i]; d > 1e-12 || d < -1e-12 {
			t.Fatalf("%s: cell %d is %v, want %v", what, i, got[i], want[i])
		}
	}
}
