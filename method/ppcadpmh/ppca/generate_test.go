package ppca

import (
	"testing"

	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// A RowStream written in chunks of any size gives the one-shot Sample and
// Reconstruct's rows bit for bit, under the same seed (for n ≤
// SampleBlock, where the order of draws is the same), on a model fitted
// to Adult's exact moments.
func TestRowStreamMatchesSample(t *testing.T) {
	tab, enc := adult(t)
	m, _, err := TableMoments(tab, enc, 0)
	if err != nil {
		t.Fatal(err)
	}
	sum, outer := m.Matrices()
	est, err := Pooled([]NoisyMoments{{N: m.N, Sum: sum, Outer: outer}})
	if err != nil {
		t.Fatal(err)
	}
	model, err := Fit(est, FitOptions{Contribution: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	p := enc.Dim()
	X, _, _ := enc.Encode(tab)
	const n = 5000
	real := func(lo, hi int, dst []float64) error {
		copy(dst, X.RawMatrix().Data[lo*p:hi*p])
		return nil
	}
	want := model.Sample(n, randx.NewSeeded(5)).RawMatrix().Data
	wantRec := model.Reconstruct(mat.DenseCopyOf(X.Slice(0, n, 0, p)), randx.NewSeeded(6)).RawMatrix().Data
	for _, chunk := range []int{1, 7, 1000, n + 3} {
		for _, c := range []struct {
			name string
			g    *RowStream
			want []float64
		}{
			{"sample", model.SampleStream(n, randx.NewSeeded(5)), want},
			{"reconstruct", model.ReconstructStream(n, real, randx.NewSeeded(6)), wantRec},
		} {
			got := make([]float64, 0, n*p)
			buf := make([]float64, chunk*p)
			for {
				r, err := c.g.Next(buf)
				if err != nil {
					t.Fatal(err)
				}
				if r == 0 {
					break
				}
				got = append(got, buf[:r*p]...)
			}
			if len(got) != len(c.want) {
				t.Fatalf("%s, chunks of %d: %d values, want %d", c.name, chunk, len(got), len(c.want))
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("%s, chunks of %d rows: value %d is %v, one-shot %v", c.name, chunk, i, got[i], c.want[i])
				}
			}
		}
	}
}
