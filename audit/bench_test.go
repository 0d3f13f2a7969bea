package audit

import (
	"testing"

	"github.com/dppub/dppub/method/ppcadpmh/ppca"
	"github.com/dppub/dppub/randx"
)

// benchRelease measures one release plus its statistic, the unit cost of
// an audit (an audit of N runs makes 4N of them).
func benchRelease(b *testing.B, m Mechanism, err error) {
	if err != nil {
		b.Fatal(err)
	}
	src := randx.NewSeeded(1)
	out := make([]float64, m.Dim)
	stat := m.Statistic
	if stat == nil {
		stat = func(v []float64) float64 { return v[0] }
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := m.Release(Side(i%2), src, out); err != nil {
			b.Fatal(err)
		}
		stat(out)
	}
}

func BenchmarkReleaseLaplace(b *testing.B) {
	m, err := Laplace(ScalarOptions{Epsilon: 1})
	benchRelease(b, m, err)
}

func BenchmarkReleaseExponential(b *testing.B) {
	m, err := Exponential(ExponentialOptions{Epsilon: 1})
	benchRelease(b, m, err)
}

func BenchmarkReleasePPCAOwner(b *testing.B) {
	m, err := PPCADPMH(PPCAOptions{Epsilon: 2, Calibration: ppca.Paper})
	benchRelease(b, m, err)
}

func BenchmarkReleaseZeroSum(b *testing.B) {
	m, err := ZeroSum(ZeroSumOptions{Epsilon: 2, Delta: 1e-3})
	benchRelease(b, m, err)
}

func BenchmarkReleaseMulLDA(b *testing.B) {
	m, err := MulLDA(MulLDAOptions{Epsilon: 2, Delta: 1e-3})
	benchRelease(b, m, err)
}

func BenchmarkReleaseDPPCA(b *testing.B) {
	m, err := DPPCA(DPPCAOptions{Epsilon: 1})
	benchRelease(b, m, err)
}

// BenchmarkRunLaplace is a whole audit of 10,000 runs (40,000 releases),
// dominated by the releases and the event search.
func BenchmarkRunLaplace(b *testing.B) {
	m, err := Laplace(ScalarOptions{Epsilon: 1})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		if _, err := Run(m, Options{Runs: 10_000, Source: randx.NewSeeded(uint64(i)), Workers: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
