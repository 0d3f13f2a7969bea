package linalg

import (
	"math"
	"testing"

	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

func TestMomentsMatchNaive(t *testing.T) {
	src := randx.NewSeeded(1)
	for _, n := range []int{3, 5000} {
		X := mat.NewDense(n, 4, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < 4; j++ {
				X.Set(i, j, src.Float64())
			}
		}
		sum, outer := Moments(X)
		for a := 0; a < 4; a++ {
			s := 0.0
			for i := 0; i < n; i++ {
				s += X.At(i, a)
			}
			if math.Abs(s-sum[a]) > 1e-9 {
				t.Fatalf("n=%d sum[%d] = %v, want %v", n, a, sum[a], s)
			}
			for b := 0; b < 4; b++ {
				o := 0.0
				for i := 0; i < n; i++ {
					o += X.At(i, a) * X.At(i, b)
				}
				if math.Abs(o-outer.At(a, b)) > 1e-8 {
					t.Fatalf("n=%d outer[%d,%d] = %v, want %v", n, a, b, outer.At(a, b), o)
				}
			}
		}
	}
}

func TestEigenDescAndPSD(t *testing.T) {
	s := mat.NewSymDense(2, []float64{1, 2, 2, 1}) // eigenvalues 3, −1
	vals, vecs, err := EigenDesc(s)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(vals[0]-3) > 1e-12 || math.Abs(vals[1]+1) > 1e-12 {
		t.Fatalf("eigenvalues %v, want [3 -1]", vals)
	}
	if math.Abs(math.Abs(vecs.At(0, 0))-math.Sqrt2/2) > 1e-12 {
		t.Fatalf("leading eigenvector %v", mat.Col(nil, 0, vecs))
	}
	psd, err := ProjectPSD(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Projection keeps the eigenvalue 3 and zeroes −1: 1.5·[[1,1],[1,1]].
	for i := 0; i < 2; i++ {
		for j := 0; j < 2; j++ {
			if math.Abs(psd.At(i, j)-1.5) > 1e-12 {
				t.Fatalf("psd projection %v", mat.Formatted(psd))
			}
		}
	}
}

func BenchmarkMoments1e6x50(b *testing.B) {
	src := randx.NewSeeded(2)
	const n, p = 1000000, 50
	data := make([]float64, n*p)
	for i := range data {
		data[i] = src.Float64()
	}
	X := mat.NewDense(n, p, data)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Moments(X)
	}
}
