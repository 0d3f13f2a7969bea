package infer

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/dppub/dppub/engine/marginal/internal/attrset"
	"github.com/dppub/dppub/randx"
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
	// {3, 4} and {2, 3, 4} map the span onto the subset in order; {0, 3,
	// 4} and {1, 3, 4} in runs of 15 cells; {4} and {0, 4} cell by cell.
	for _, sub := range [][]int{{0}, {0, 1}, {1, 2}, {2, 3}, {3, 4}, {4}, {0, 4}, {1, 3}, {0, 2, 4}, {2, 3, 4}, {0, 3, 4}, {1, 3, 4}, {0, 1, 2, 3, 4}, {}} {
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

// With a binary attribute last, every subset ending just before it sums and
// multiplies runs of two cells (stride's inner = 2 branch) as the per-cell
// projector does, to the bit.
// A binary attribute last in the table (Adult's label) takes the pair
// kernels: when the subset lacks it, each pair of cells is summed and
// added (sumPairs, scalePairs); when the subset holds it but not the
// attribute before, each pair maps to two consecutive subset cells
// (addPairs, mulPairs). Both give the per-cell projector's sums and
// products to the bit.
func TestStrideBinaryLastMatchesProjector(t *testing.T) {
	sizes := []int{3, 4, 5, 2}
	table := newFactor(sizes, []int{0, 1, 2, 3})
	rng := rand.New(rand.NewPCG(3, 4))
	for c := range table.Counts {
		table.Counts[c] = rng.Float64()
	}
	for _, sub := range [][]int{{2}, {0, 2}, {1, 2}, {0, 1, 2}, {3}, {0, 3}, {1, 3}, {0, 1, 3}} {
		t.Run(fmt.Sprint(sub), func(t *testing.T) {
			s, full := newStride(table, sub), mustProject(table, sub)
			pairsSummed := !slices.Contains(sub, 3)
			if pairsSummed && s.inner != 2 || !pairsSummed && (s.inner != 1 || s.run != 2) {
				t.Fatalf("inner %d, run %d: not a pair kernel's stride", s.inner, s.run)
			}
			cells := 1
			for _, a := range sub {
				cells *= sizes[a]
			}
			got, want := make([]float64, cells), make([]float64, cells)
			s.sum(table.Counts, got)
			for c := 0; c < len(full); c += 2 {
				if pairsSummed {
					want[full[c]] += table.Counts[c] + table.Counts[c+1]
				} else {
					want[full[c]] += table.Counts[c]
					want[full[c+1]] += table.Counts[c+1]
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("sum %v, want %v", got, want)
			}
			f := make([]float64, cells)
			for x := range f {
				f[x] = 1 + rng.Float64()
			}
			mul := make([]float64, len(table.Counts))
			s.mulTo(mul, table.Counts, f)
			for c, x := range full {
				if w := table.Counts[c] * f[x]; mul[c] != w {
					t.Fatalf("mul cell %d: %v, want %v", c, mul[c], w)
				}
			}
		})
	}
}

// A sweep's blocks, with each target's base, multiply and sum exactly as
// the per-cell projector does, for every subset of a table cut into
// blocks of its last attribute, its last two, its last three and the
// whole table (3, 15, 30 and 360 cells), and of a two-attribute table.
func TestSweepMatchesProjector(t *testing.T) {
	sizes := []int{3, 4, 2, 5, 3}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		attrs          []int
		maxBlock, want int
	}{{[]int{0, 1, 2, 3, 4}, 1, 3}, {[]int{0, 1, 2, 3, 4}, 15, 15}, {[]int{0, 1, 2, 3, 4}, 59, 30}, {[]int{0, 1, 2, 3, 4}, 1024, 360}, {[]int{1, 3}, 1024, 20}} {
		attrs := c.attrs
		table := newFactor(sizes, attrs)
		for c := range table.Counts {
			table.Counts[c] = rng.Float64()
		}
		sw := newSweepOf(table, c.maxBlock)
		if sw.block != c.want {
			t.Fatalf("blocks of %v at most %d cells: %d cells, want %d", attrs, c.maxBlock, sw.block, c.want)
		}
		for mask := range 1 << len(attrs) {
			var sub []int
			for k, a := range attrs {
				if mask&(1<<k) != 0 {
					sub = append(sub, a)
				}
			}
			t.Run(fmt.Sprint(attrs, c.maxBlock, sub), func(t *testing.T) {
				full, cells := mustProject(table, sub), int(tableCells(sizes, sub))
				f := make([]float64, cells)
				for x := range f {
					f[x] = 1 + rng.Float64()
				}
				got, prod := make([]float64, cells), make([]float64, len(table.Counts))
				tg := []target{sw.target(sub)}
				sw.walk(tg, func(lo int, base []int) {
					tg[0].in.mulTo(prod[lo:lo+sw.block], table.Counts[lo:lo+sw.block], f[base[0]:])
					tg[0].in.addTo(table.Counts[lo:lo+sw.block], got[base[0]:])
				})
				want, wantProd := make([]float64, cells), make([]float64, len(table.Counts))
				for c, x := range full {
					want[x] += table.Counts[c]
					wantProd[c] = table.Counts[c] * f[x]
				}
				closeAll(t, "sum", got, want)
				closeAll(t, "mul", prod, wantProd)
			})
		}
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

// The stride cache keeps what fits its budget, starts afresh when the
// next one does not fit, and builds what can never fit afresh each time,
// with the same result.
func TestProjectionsCacheBudget(t *testing.T) {
	sizes := []int{10, 10, 10, 2, 2}
	big, small := newFactor(sizes, []int{0, 1, 2}), newFactor(sizes, []int{3, 4})
	p := &projections{budgetCache[stride]{limit: 20}}
	for range 2 {
		if got, want := p.get(big, []int{0}), newStride(big, []int{0}); !reflect.DeepEqual(got, want) {
			t.Fatalf("uncached stride %+v, want %+v", got, want)
		}
		p.get(small, []int{3})
	}
	if len(p.m) != 1 || p.bytes != 8 {
		t.Errorf("cache holds %d strides, %d bytes: want only the 2-index one, 8 bytes", len(p.m), p.bytes)
	}
	p.get(small, []int{4})
	p.get(small, []int{3, 4})
	if _, ok := p.m[attrset.Key(small.Attrs)+"|"+attrset.Key([]int{3, 4})]; !ok || len(p.m) != 1 || p.bytes != 16 {
		t.Errorf("cache holds %d strides, %d bytes: want it restarted with the last one only", len(p.m), p.bytes)
	}
}

// modelCells on at most 64 attributes (modelCellsSmall, one word per
// attribute) gives the size eliminationCliques' junction tree has, to the
// cell, on random families of pairs and triples over 3 to 64 attributes
// of 2 to 40 values, sparse and dense (200 families).
func TestModelCellsSmallMatchesElimination(t *testing.T) {
	src := randx.NewSeeded(11)
	for k := range 200 {
		d := 3 + src.IntN(62)
		sizes := make([]int, d)
		for j := range sizes {
			sizes[j] = 2 + src.IntN(39)
		}
		var sets [][]int
		for range src.IntN(3 * d) {
			s := []int{src.IntN(d), src.IntN(d)}
			if src.IntN(3) == 0 {
				s = append(s, src.IntN(d))
			}
			slices.Sort(s)
			sets = append(sets, slices.Compact(s))
		}
		want := 0.0
		for _, c := range eliminationCliques(sizes, sets) {
			want += tableCells(sizes, c)
		}
		if got := modelCellsSmall(sizes, sets); got != want {
			t.Fatalf("family %d (%d attributes, %d sets): %v cells, want %v", k, d, len(sets), got, want)
		}
	}
}
