package audits

import (
	"testing"

	"github.com/dppub/dppub/audit/audittest"
)

func BenchmarkReleaseDPPCA(b *testing.B) {
	m, err := DPPCA(DPPCAOptions{Epsilon: 1})
	audittest.BenchRelease(b, m, err)
}
