package infer

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestVecKernelsMatchScalarLoops checks the vector kernels against the
// scalar loops to the bit, at every length around the vector width and
// on values across float64's range (subnormals, infinities, zeros of both
// signs), in place and not.
func TestVecKernelsMatchScalarLoops(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	special := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), 5e-324, -2.2e-308, 1e308, math.MaxFloat64}
	random := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			if rng.IntN(8) == 0 {
				v[i] = special[rng.IntN(len(special))]
			} else {
				v[i] = math.Ldexp(rng.NormFloat64(), rng.IntN(200)-100)
			}
		}
		return v
	}
	same := func(t *testing.T, got, want []float64) {
		t.Helper()
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
				t.Fatalf("cell %d of %d: %v, the scalar loop's %v", i, len(want), got[i], want[i])
			}
		}
	}
	for n := range 40 {
		a, b, d := random(n), random(n), random(n)
		m := random(1)
		if n > 0 {
			m[0] = a[0]
		}
		t.Run("mul", func(t *testing.T) {
			want, got := make([]float64, n), make([]float64, n)
			mulVecGo(want, a, b)
			mulVec(got, a, b)
			same(t, got, want)
			inPlace := append([]float64(nil), a...)
			mulVec(inPlace, inPlace, b)
			same(t, inPlace, want)
		})
		t.Run("add", func(t *testing.T) {
			want, got := append([]float64(nil), d...), append([]float64(nil), d...)
			addVecGo(want, a)
			addVec(got, a)
			same(t, got, want)
		})
		t.Run("rows", func(t *testing.T) {
			if n == 0 {
				return
			}
			rows := random(3 * n)
			want, got := make([]float64, 3*n), make([]float64, 3*n)
			for o := 0; o < 3*n; o += n {
				mulVecGo(want[o:o+n], rows[o:o+n], b)
			}
			mulRows(got, rows, b)
			same(t, got, want)
			wantSum, gotSum := append([]float64(nil), d...), append([]float64(nil), d...)
			for o := 0; o < 3*n; o += n {
				addVecGo(wantSum, rows[o:o+n])
			}
			addRows(gotSum, rows)
			same(t, gotSum, wantSum)
		})
		t.Run("axpy", func(t *testing.T) {
			want, got := append([]float64(nil), d...), append([]float64(nil), d...)
			axpyVecGo(want, a, m[0])
			axpyVec(got, a, m[0])
			same(t, got, want)
		})
		t.Run("scale", func(t *testing.T) {
			want, got := make([]float64, n), make([]float64, n)
			scaleVecGo(want, a, m[0])
			scaleVec(got, a, m[0])
			same(t, got, want)
		})
	}
}

// The kernels on a sweep block (1024 cells) against the scalar loops.
func BenchmarkMulVec(b *testing.B)   { benchVec(b, func(d, x, y []float64) { mulVec(d, x, y) }) }
func BenchmarkMulVecGo(b *testing.B) { benchVec(b, func(d, x, y []float64) { mulVecGo(d, x, y) }) }
func BenchmarkAddVec(b *testing.B)   { benchVec(b, func(d, x, _ []float64) { addVec(d, x) }) }
func BenchmarkAddVecGo(b *testing.B) { benchVec(b, func(d, x, _ []float64) { addVecGo(d, x) }) }

func benchVec(b *testing.B, f func(d, x, y []float64)) {
	x, y, d := make([]float64, maxSweepBlock), make([]float64, maxSweepBlock), make([]float64, maxSweepBlock)
	for i := range x {
		x[i], y[i] = 1+float64(i)/maxSweepBlock, 1-float64(i)/(4*maxSweepBlock)
	}
	for b.Loop() {
		f(d, x, y)
	}
}
