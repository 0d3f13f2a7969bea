package correlation

import (
	"testing"

	"github.com/dppub/dppub/datasets"
)

// BenchmarkAdult45222 runs every method on all 45222 Adult rows over the 12
// features of the MP-CRDP experiments at w0 = 0.9 (t = 11 of 12).
func BenchmarkAdult45222(b *testing.B) {
	adult, err := datasets.Load("adult")
	if err != nil {
		b.Fatal(err)
	}
	c, err := Discretize(adult, adultFeatures12, DiscretizeOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for _, m := range []Method{Reference, Hashed, PatternScan} {
		b.Run(string(m), func(b *testing.B) {
			var r *Result
			for b.Loop() {
				if r, err = Analyze(c, Options{Threshold: 0.9, Method: m}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(r.Sensitivity, "ΔCS")
			b.ReportMetric(float64(r.K), "K")
		})
	}
}

// BenchmarkWDBC runs the hashed and reference methods on WDBC's 569 × 30 at
// w0 = 0.9 (t = 27: C(30, 27) = 4060 subsets).
func BenchmarkWDBC(b *testing.B) {
	wdbc, err := datasets.Load("wdbc")
	if err != nil {
		b.Fatal(err)
	}
	c, err := Discretize(wdbc, wdbc.Schema.Names()[1:], DiscretizeOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for _, m := range []Method{Reference, Hashed, PatternScan} {
		b.Run(string(m), func(b *testing.B) {
			for b.Loop() {
				if _, err := Analyze(c, Options{Threshold: 0.9, Method: m}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
