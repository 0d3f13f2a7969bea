package figures

import (
	"sync"
	"testing"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/learn"
	"github.com/dppub/dppub/method/dppcasvm"
	"github.com/dppub/dppub/method/dppcasvm/dppca"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// covertypeShape is the generated 581012 × 54 table, box-scaled and
// clipped as the pipeline sees it after loading.
var covertypeShape = sync.OnceValues(func() (*mat.Dense, []int) {
	X, y := CovertypeLike(CovertypeRows, randx.NewSeeded(1))
	scaleAndClip(X, dppcasvm.ScaleBox)
	return X, y
})

// BenchmarkDPPCAPipelineCovertypeShape times the whole DPPCA-SVM pipeline
// (second moment, noise, eigendecomposition, projection, SVM; ε = 1) and
// its stages on generated data of Covertype's shape. paper = a non-private
// SVM (the paper, and what scikit-learn's PCA + LinearSVC compares with);
// sound = the end-to-end DP pipeline (DP-ERM SVM).
func BenchmarkDPPCAPipelineCovertypeShape(b *testing.B) {
	X, y := covertypeShape()
	for _, c := range []dppca.Calibration{dppca.Paper, dppca.Sound} {
		b.Run(string(c), func(b *testing.B) {
			var k int
			for b.Loop() {
				acct, _ := privacy.NewAccountant(privacy.AccountantOptions{Party: "bench", Budget: dp.Pure(1)})
				res, err := dppca.Train(X, y, 7, dppca.Options{Method: dppca.DPPCASVM, Calibration: c, Epsilon: 1,
					Accountant: acct, Source: randx.NewSeeded(2)})
				if err != nil {
					b.Fatal(err)
				}
				k = res.Components.K
			}
			b.ReportMetric(float64(k), "k")
		})
	}
	// Each stage's input is computed up front, so any stage can be run
	// alone with -bench.
	a := dppca.SecondMoment(X)
	comps, err := dppca.TopK(a, dppca.SelectOptions{Contribution: 0.85})
	if err != nil {
		b.Fatal(err)
	}
	Y := comps.Project(X)
	b.Run("stage=second-moment", func(b *testing.B) {
		for b.Loop() {
			a = dppca.SecondMoment(X)
		}
	})
	b.Run("stage=eigen", func(b *testing.B) {
		for b.Loop() {
			comps, _ = dppca.TopK(a, dppca.SelectOptions{Contribution: 0.85})
		}
	})
	b.Run("stage=projection", func(b *testing.B) {
		for b.Loop() {
			Y = comps.Project(X)
		}
	})
	b.Run("stage=svm-paper", func(b *testing.B) {
		for b.Loop() {
			if _, err := dppca.NonPrivateSVM(Y, y, 7, learn.DefaultSVMOptions(), randx.NewSeeded(3)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
