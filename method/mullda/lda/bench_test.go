package lda

import "testing"

// Adult-sized: 36000 rows, p = 105 (the encoded features of Adult salary).
func BenchmarkComputeStatsAdultSize(b *testing.B) {
	X, y := gaussianClasses(b, 2, 105, 18000, 1)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ComputeStats(X, y, 2); err != nil {
			b.Fatal(err)
		}
	}
}

// PSD projection, Cholesky and the whitened SVD for p = 105, C = 2 and 5.
func BenchmarkDirectionsP105(b *testing.B) {
	for _, c := range []int{2, 5} {
		b.Run(map[int]string{2: "C=2", 5: "C=5"}[c], func(b *testing.B) {
			X, y := gaussianClasses(b, 3, 105, 400, 2)
			for i := range y {
				y[i] = i % c
			}
			s, _ := ComputeStats(X, y, c)
			e, _ := NewEstimate(s)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := e.Directions(SolveOptions{Ridge: 1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
