package dp

import (
	"testing"

	"github.com/dppub/dppub/randx"
)

// BenchmarkRelease times one released coordinate per iteration on the grid
// path (compare with BenchmarkContinuousDraw for the cost of exactness).
func BenchmarkRelease(b *testing.B) {
	for _, c := range []struct {
		name string
		plan func() (GridNoise, error)
	}{
		{"laplace", func() (GridNoise, error) { return PlanLaplace(1, 1, 1000) }},
		{"gaussian", func() (GridNoise, error) { return PlanGaussian(1, 3, 1000) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			p, err := c.plan()
			if err != nil {
				b.Fatal(err)
			}
			n := NewNoiser(randx.NewSeeded(1))
			v := make([]float64, 1000)
			b.ResetTimer()
			for i := 0; i < b.N; i += len(v) {
				n.Release(p, v)
			}
		})
	}
}

// BenchmarkContinuousDraw is the unsafe float sampler's cost, for scale.
func BenchmarkContinuousDraw(b *testing.B) {
	src := randx.NewSeeded(1)
	s := 0.0
	for i := 0; i < b.N; i++ {
		s += src.NormFloat64()
	}
	_ = s
}
