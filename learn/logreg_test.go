package learn

import (
	"errors"
	"math"
	"testing"

	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

func TestLBFGSRosenbrock(t *testing.T) {
	// f(x, y) = (1−x)² + 100(y−x²)², minimum 0 at (1, 1).
	fg := func(x, g []float64) float64 {
		a, b := 1-x[0], x[1]-x[0]*x[0]
		g[0] = -2*a - 400*x[0]*b
		g[1] = 200 * b
		return a*a + 100*b*b
	}
	res := minimizeLBFGS(fg, []float64{-1.2, 1}, 1000, 1e-10)
	if math.Abs(res.x[0]-1) > 1e-7 || math.Abs(res.x[1]-1) > 1e-7 {
		t.Errorf("Rosenbrock minimum at %v after %d iterations (stalled %v), want (1, 1)", res.x, res.iters, res.stalled)
	}
}

// TestERMGradient compares the analytic gradient of every objective variant
// with central differences.
func TestERMGradient(t *testing.T) {
	src := randx.NewSeeded(11)
	X, y := blobs(src, [][]float64{{0, 0, 0}, {0.5, 0.5, 0}}, 20, 0.5)
	unitRows(X)
	rows, labels := rowViews(X), signs(y, 1)
	scale := make([]float64, len(rows))
	for i := range scale {
		scale[i] = 0.5 + 0.5*src.Float64()
	}
	for _, loss := range []marginLoss{logisticLoss{}, huberHingeLoss{h: 0.5}, huberHingeLoss{h: 0.1}} {
		for _, bias := range []bool{false, true} {
			p := &ermProblem{rows: rows, y: labels, rowScale: scale, d: 3, hasBias: bias, biasValue: 0.7, lambda: 0.3, loss: loss}
			p.linear = make([]float64, p.dim())
			for j := range p.linear {
				p.linear[j] = src.NormFloat64()
			}
			w := make([]float64, p.dim())
			for j := range w {
				w[j] = 2 * src.NormFloat64()
			}
			p.eval(w)
			grad := append([]float64(nil), p.lastGrad...)
			const h = 1e-6
			for j := range w {
				wp, wm := append([]float64(nil), w...), append([]float64(nil), w...)
				wp[j] += h
				wm[j] -= h
				p.eval(wp)
				fp := p.lastF
				p.eval(wm)
				if num := (fp - p.lastF) / (2 * h); math.Abs(num-grad[j]) > 1e-6 {
					t.Errorf("%T bias=%v: ∂J/∂w[%d] = %v, central difference %v", loss, bias, j, grad[j], num)
				}
			}
		}
	}
}

func TestLogRegKnownAnswer(t *testing.T) {
	// Points ±1 with labels ±1 and no bias: J(w) = log(1+e^{−w}) + λw²/2,
	// whose minimiser solves σ(−w) = λw; find it by bisection.
	const lambda = 0.1
	lo, hi := 0.0, 100.0
	for range 200 {
		mid := (lo + hi) / 2
		if sigmoid(-mid) > lambda*mid {
			lo = mid
		} else {
			hi = mid
		}
	}
	X := mat.NewDense(2, 1, []float64{1, -1})
	o := LogRegOptions{Lambda: lambda, MaxIter: 100, GradTol: 1e-12}
	c, err := TrainLogReg(X, []int{1, 0}, 2, o)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Models[0].W[0]; math.Abs(got-lo) > 1e-9 {
		t.Errorf("w = %.12f, want %.12f", got, lo)
	}
	if p := c.Models[0].Prob([]float64{1}); math.Abs(p-sigmoid(lo)) > 1e-9 {
		t.Errorf("Prob = %v, want %v", p, sigmoid(lo))
	}
}

func TestLogRegOptimality(t *testing.T) {
	// At the returned weights the gradient of the objective is ≈ 0.
	src := randx.NewSeeded(12)
	X, y := blobs(src, [][]float64{{0, 0, 0, 0}, {1, 0.5, 0, 0}}, 200, 1)
	o := DefaultLogRegOptions()
	o.Lambda, o.GradTol = 1e-3, 1e-8
	c, err := TrainLogReg(X, y, 2, o)
	if err != nil {
		t.Fatal(err)
	}
	p := &ermProblem{rows: rowViews(X), y: signs(y, 1), d: 4, hasBias: true, biasValue: 1, lambda: o.Lambda, loss: logisticLoss{}}
	p.eval(append(append([]float64(nil), c.Models[0].W...), c.Models[0].B))
	if g := floats.Norm(p.lastGrad, math.Inf(1)); g > 1e-7 {
		t.Errorf("gradient max-norm %v at the returned weights", g)
	}
}

func TestLogRegOneVsRestBlobs(t *testing.T) {
	src := randx.NewSeeded(13)
	X, y := blobs(src, [][]float64{{0, 0}, {4, 0}, {0, 4}, {4, 4}}, 150, 0.8)
	Xtr, ytr, Xte, yte := split(src, X, y)
	c, err := TrainLogReg(Xtr, ytr, 4, DefaultLogRegOptions())
	if err != nil {
		t.Fatal(err)
	}
	if acc := Accuracy(c.PredictAll(Xte), yte); acc <= 0.95 {
		t.Errorf("one-vs-rest accuracy on 4 blobs %.4f, want > 0.95", acc)
	}
}

func TestLogRegRejectsBadInput(t *testing.T) {
	X := mat.NewDense(2, 1, []float64{0, 1})
	for _, o := range []LogRegOptions{
		{Lambda: -1, MaxIter: 1, GradTol: 1},
		{Lambda: math.NaN(), MaxIter: 1, GradTol: 1},
		{Lambda: 1, MaxIter: 0, GradTol: 1},
		{Lambda: 1, MaxIter: 1, GradTol: 0},
	} {
		if _, err := TrainLogReg(X, []int{0, 1}, 2, o); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("%+v: err = %v, want ErrInvalidOptions", o, err)
		}
	}
	if _, err := TrainLogReg(X, []int{1, 1}, 2, DefaultLogRegOptions()); !errors.Is(err, ErrInvalidData) {
		t.Errorf("missing class 0: err = %v", err)
	}
}

func TestMetrics(t *testing.T) {
	pred := []int{0, 1, 2, 2, 1, 0}
	truth := []int{0, 1, 1, 2, 1, 2}
	if a := Accuracy(pred, truth); math.Abs(a-4.0/6) > 1e-15 {
		t.Errorf("Accuracy = %v, want 4/6", a)
	}
	if r := MisclassificationRate(pred, truth); math.Abs(r-2.0/6) > 1e-15 {
		t.Errorf("MisclassificationRate = %v, want 2/6", r)
	}
	want := [][]int{{1, 0, 0}, {0, 2, 1}, {1, 0, 1}}
	got := ConfusionMatrix(pred, truth, 3)
	for i := range want {
		for j := range want[i] {
			if got[i][j] != want[i][j] {
				t.Fatalf("ConfusionMatrix = %v, want %v", got, want)
			}
		}
	}
}
