package audits

import (
	"testing"

	"github.com/dppub/dppub/audit/audittest"
	"github.com/dppub/dppub/method/ppcadpmh/ppca"
)

func BenchmarkReleasePPCAOwner(b *testing.B) {
	m, err := PPCADPMH(PPCAOptions{Epsilon: 2, Calibration: ppca.Paper})
	audittest.BenchRelease(b, m, err)
}
