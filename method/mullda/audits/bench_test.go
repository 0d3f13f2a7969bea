package audits

import (
	"testing"

	"github.com/dppub/dppub/audit/audittest"
)

func BenchmarkReleaseZeroSum(b *testing.B) {
	m, err := ZeroSum(ZeroSumOptions{Epsilon: 2, Delta: 1e-3})
	audittest.BenchRelease(b, m, err)
}

func BenchmarkReleaseMulLDA(b *testing.B) {
	m, err := MulLDA(MulLDAOptions{Epsilon: 2, Delta: 1e-3})
	audittest.BenchRelease(b, m, err)
}
