package audit_test

import (
	"testing"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/audit/audittest"
	"github.com/dppub/dppub/randx"
)

func BenchmarkReleaseLaplace(b *testing.B) {
	m, err := audit.Laplace(audit.ScalarOptions{Epsilon: 1})
	audittest.BenchRelease(b, m, err)
}

func BenchmarkReleaseExponential(b *testing.B) {
	m, err := audit.Exponential(audit.ExponentialOptions{Epsilon: 1})
	audittest.BenchRelease(b, m, err)
}

// BenchmarkRunLaplace is a whole audit of 10,000 runs (40,000 releases),
// dominated by the releases and the event search.
func BenchmarkRunLaplace(b *testing.B) {
	m, err := audit.Laplace(audit.ScalarOptions{Epsilon: 1})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		if _, err := audit.Run(m, audit.Options{Runs: 10_000, Source: randx.NewSeeded(uint64(i)), Workers: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
