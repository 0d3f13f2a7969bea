package learn

import (
	"sync"
	"testing"

	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// adultLike is 45222 × 105 sparse 0/1 data (≈12% ones, like one-hot
// census rows) labelled by a planted linear rule with 10% label noise.
var adultLike = sync.OnceValues(func() (*mat.Dense, []int) {
	return plantedBinary(randx.NewSeeded(81), 45222, 105, 0.12, 0.1)
})

func BenchmarkSVMAdultLike(b *testing.B) {
	X, y := adultLike()
	for _, loss := range []Loss{SquaredHinge, Hinge} {
		b.Run(loss.String(), func(b *testing.B) {
			o := DefaultSVMOptions()
			o.Loss = loss
			src := randx.NewSeeded(82)
			benchTraining(b, X, y, func() (*Classifier, error) { return TrainSVM(X, y, 2, o, src) })
		})
	}
}

func BenchmarkLogReg(b *testing.B) {
	X, y := adultLike()
	benchTraining(b, X, y, func() (*Classifier, error) { return TrainLogReg(X, y, 2, DefaultLogRegOptions()) })
}

// benchTraining times train and reports the accuracy of the last
// classifier it trained on its training rows X, y.
func benchTraining(b *testing.B, X *mat.Dense, y []int, train func() (*Classifier, error)) {
	var acc float64
	for b.Loop() {
		c, err := train()
		if err != nil {
			b.Fatal(err)
		}
		acc = Accuracy(c.PredictAll(X), y)
	}
	b.ReportMetric(acc, "train-acc")
}

func BenchmarkDPLinear(b *testing.B) {
	X, y := adultLike()
	Xu := mat.DenseCopyOf(X)
	unitRows(Xu)
	for _, method := range []Perturbation{OutputPerturbation, ObjectivePerturbation} {
		b.Run(method.String(), func(b *testing.B) {
			o := DefaultDPERMOptions(1)
			o.Method = method
			src := randx.NewSeeded(83)
			for b.Loop() {
				if _, err := TrainDPLinear(Xu, y, o, src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
