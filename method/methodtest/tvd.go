package methodtest

import (
	"math"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/engine/marginal/domain"
)

// TwoWayTVD is the mean total variation distance between real's and
// syn's marginals over every pair of attributes, on the schema's
// equal-width domain (16 bins per numeric attribute, as the benchmark's
// docs/results/synthesis/bench.py bins them).
func TwoWayTVD(tb testing.TB, real, syn *data.Table) float64 {
	tb.Helper()
	dom, err := domain.New(real.Schema, domain.Options{Bins: 16})
	if err != nil {
		tb.Fatal(err)
	}
	r, _, err := dom.Encode(real)
	if err != nil {
		tb.Fatal(err)
	}
	s, _, err := dom.Encode(syn)
	if err != nil {
		tb.Fatal(err)
	}
	sum, pairs := 0.0, 0
	for a := range dom.Len() {
		for b := a + 1; b < dom.Len(); b++ {
			mr, err := domain.Count(r, []int{a, b})
			if err != nil {
				tb.Fatal(err)
			}
			ms, err := domain.Count(s, []int{a, b})
			if err != nil {
				tb.Fatal(err)
			}
			tv := 0.0
			for i := range mr.Counts {
				tv += math.Abs(mr.Counts[i]/float64(r.Len()) - ms.Counts[i]/float64(s.Len()))
			}
			sum += tv / 2
			pairs++
		}
	}
	return sum / float64(pairs)
}
