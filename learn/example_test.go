package learn_test

import (
	"fmt"

	"github.com/dppub/dppub/learn"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

func ExampleTrainSVM() {
	// Two features in [0,1]; class 1 when their sum exceeds 1.
	X := mat.NewDense(6, 2, []float64{
		0.1, 0.2,
		0.4, 0.3,
		0.2, 0.6,
		0.9, 0.8,
		0.7, 0.6,
		0.5, 0.9,
	})
	y := []int{0, 0, 0, 1, 1, 1}
	o := learn.DefaultSVMOptions()
	o.C = 10
	clf, err := learn.TrainSVM(X, y, 2, o, randx.NewSeeded(1)) // seeded: example only
	if err != nil {
		fmt.Println(err)
		return
	}
	pred := clf.PredictAll(X)
	fmt.Println(pred, learn.Accuracy(pred, y))
	fmt.Println(clf.Predict([]float64{0.95, 0.95}), clf.Predict([]float64{0.05, 0.1}))
	// Output:
	// [0 0 0 1 1 1] 1
	// 1 0
}

func ExampleTrainDPLinear() {
	// Rows on the unit ball, labels 0/1. Objective perturbation of logistic
	// regression, ε = 1 (pure DP; use randx.NewSecure() for a real release).
	X := mat.NewDense(4, 2, []float64{0.6, 0.8, 0.8, 0.6, -0.6, -0.8, -0.8, -0.6})
	y := []int{1, 1, 0, 0}
	o := learn.DefaultDPERMOptions(1)
	m, err := learn.TrainDPLinear(X, y, o, randx.NewSeeded(2))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(m.W), o.Guarantee())
	// Output: 2 ε=1
}
