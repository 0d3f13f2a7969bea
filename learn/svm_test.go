package learn

import (
	"errors"
	"math"
	"testing"

	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// tight returns options that solve small problems to near machine precision.
func tight(loss Loss, c float64, bias bool) SVMOptions {
	o := DefaultSVMOptions()
	o.Loss, o.C, o.Bias, o.Tol, o.MaxIter = loss, c, bias, 1e-10, 100000
	return o
}

func TestSVMHardMarginWithoutBias(t *testing.T) {
	// (±1, 0) are the support vectors; the other two points lie beyond the
	// margin, so the max-margin direction through the origin is w = (1, 0)
	// (α₁ = α₂ = ½ ≤ C).
	X := mat.NewDense(4, 2, []float64{1, 0, -1, 0, 2, 1, -2, -1})
	y := []int{1, 0, 1, 0}
	m, err := TrainBinarySVM(X, y, tight(Hinge, 1, false), randx.NewSeeded(1))
	if err != nil {
		t.Fatal(err)
	}
	assertModel(t, m, []float64{1, 0}, 0, 1e-8)
}

func TestSVMHardMarginWithBias(t *testing.T) {
	// 1-D points 0 (class 0) and 2 (class 1) with the bias a regularised
	// weight: min w²+b² s.t. b ≤ −1, 2w+b ≥ 1 gives w = 1, b = −1 with
	// α = (3/2, 1/2), so any C ≥ 3/2 yields the hard-margin answer.
	X := mat.NewDense(2, 1, []float64{0, 2})
	m, err := TrainBinarySVM(X, []int{0, 1}, tight(Hinge, 10, true), randx.NewSeeded(2))
	if err != nil {
		t.Fatal(err)
	}
	assertModel(t, m, []float64{1}, -1, 1e-8)
}

func TestSVMSquaredHingeKnownAnswer(t *testing.T) {
	// Points ±1 with labels ±1, no bias: ½w² + 2C(1−w)² is minimised at
	// w = 4C/(1+4C).
	X := mat.NewDense(2, 1, []float64{1, -1})
	for _, c := range []float64{0.25, 1, 3} {
		m, err := TrainBinarySVM(X, []int{1, 0}, tight(SquaredHinge, c, false), randx.NewSeeded(3))
		if err != nil {
			t.Fatal(err)
		}
		assertModel(t, m, []float64{4 * c / (1 + 4*c)}, 0, 1e-8)
	}
}

func assertModel(t *testing.T, m *LinearModel, w []float64, b, tol float64) {
	t.Helper()
	for j := range w {
		if math.Abs(m.W[j]-w[j]) > tol {
			t.Errorf("W = %v, want %v", m.W, w)
			break
		}
	}
	if math.Abs(m.B-b) > tol {
		t.Errorf("B = %v, want %v", m.B, b)
	}
}

// TestDualCoordinateDescent checks on noisy overlapping data that every
// pass lowers the dual objective (each coordinate step minimises it exactly)
// and that at the stop the duality gap P(w) + f(α) is small.
func TestDualCoordinateDescent(t *testing.T) {
	src := randx.NewSeeded(4)
	X, y := blobs(src, [][]float64{{0, 0, 0, 0, 0}, {1, 1, 0, 0, 0}}, 300, 1)
	for _, loss := range []Loss{Hinge, SquaredHinge} {
		for _, shrinking := range []bool{true, false} {
			o := DefaultSVMOptions()
			o.Loss, o.Shrinking, o.Tol, o.MaxIter = loss, shrinking, 1e-3, 20000
			p := newSVMProblem(X, o)
			s := p.newSolver(signs(y, 1), randx.NewSeeded(5))
			prev := s.dualObjective()
			for done := false; !done && s.iter < o.MaxIter; {
				done = s.step()
				cur := s.dualObjective()
				if cur > prev+1e-9*math.Abs(prev) {
					t.Fatalf("%v shrinking=%v: dual objective rose from %v to %v in pass %d", loss, shrinking, prev, cur, s.iter)
				}
				prev = cur
			}
			if s.iter >= o.MaxIter {
				t.Fatalf("%v shrinking=%v: no convergence in %d passes", loss, shrinking, o.MaxIter)
			}
			primal := s.primalObjective()
			if gap := (primal + prev) / primal; gap < -1e-12 || gap > 1e-3 {
				t.Errorf("%v shrinking=%v: relative duality gap %v (primal %v, dual %v) after %d passes", loss, shrinking, gap, primal, -prev, s.iter)
			}
			t.Logf("%v shrinking=%v: %d passes, primal %.6f, relative gap %.2g", loss, shrinking, s.iter, primal, (primal+prev)/primal)
		}
	}
}

func TestOneVsRestBlobs(t *testing.T) {
	src := randx.NewSeeded(6)
	centres := [][]float64{{0, 0}, {4, 0}, {0, 4}}
	X, y := blobs(src, centres, 200, 0.8)
	Xtr, ytr, Xte, yte := split(src, X, y)
	for _, loss := range []Loss{Hinge, SquaredHinge} {
		o := DefaultSVMOptions()
		o.Loss = loss
		c, err := TrainSVM(Xtr, ytr, 3, o, src)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Models) != 3 {
			t.Fatalf("%d models for 3 classes", len(c.Models))
		}
		if acc := Accuracy(c.PredictAll(Xte), yte); acc <= 0.95 {
			t.Errorf("%v: one-vs-rest accuracy on 3 blobs %.4f, want > 0.95", loss, acc)
		}
	}
}

func TestSVMSeededIsReproducible(t *testing.T) {
	X, y := blobs(randx.NewSeeded(7), [][]float64{{0, 0}, {1, 1}}, 100, 1)
	a, _ := TrainBinarySVM(X, y, DefaultSVMOptions(), randx.NewSeeded(8))
	b, _ := TrainBinarySVM(X, y, DefaultSVMOptions(), randx.NewSeeded(8))
	if a.B != b.B || a.W[0] != b.W[0] || a.W[1] != b.W[1] {
		t.Errorf("same seed, different models: %+v vs %+v", a, b)
	}
}

func TestSVMRejectsBadInput(t *testing.T) {
	X := mat.NewDense(3, 2, []float64{0, 1, 1, 0, 1, 1})
	nan := mat.NewDense(3, 2, []float64{0, 1, math.NaN(), 0, 1, 1})
	o := DefaultSVMOptions()
	cases := []struct {
		name    string
		X       *mat.Dense
		y       []int
		classes int
		o       SVMOptions
		want    error
	}{
		{"rows≠labels", X, []int{0, 1}, 2, o, ErrInvalidData},
		{"label out of range", X, []int{0, 1, 2}, 2, o, ErrInvalidData},
		{"negative label", X, []int{0, -1, 1}, 3, o, ErrInvalidData},
		{"missing class", X, []int{0, 0, 0}, 2, o, ErrInvalidData},
		{"NaN", nan, []int{0, 1, 1}, 2, o, ErrInvalidData},
		{"one class", X, []int{0, 0, 0}, 1, o, ErrInvalidData},
		{"C = 0", X, []int{0, 1, 1}, 2, SVMOptions{Loss: Hinge, Tol: 1, MaxIter: 1}, ErrInvalidOptions},
		{"zero options", X, []int{0, 1, 1}, 2, SVMOptions{}, ErrInvalidOptions},
		{"bad tol", X, []int{0, 1, 1}, 2, SVMOptions{C: 1, Loss: Hinge, Tol: math.NaN(), MaxIter: 1}, ErrInvalidOptions},
	}
	for _, c := range cases {
		_, err := TrainSVM(c.X, c.y, c.classes, c.o, randx.NewSeeded(1))
		if !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
		}
	}
	_, err := TrainBinarySVM(X, []int{1, 1, 1}, o, nil)
	if err == nil || !contains(err.Error(), "class 0") {
		t.Errorf("missing class 0: err = %v, want it named", err)
	}
}

func TestOneVsRestAllowsEmptyClass(t *testing.T) {
	X, y := blobs(randx.NewSeeded(9), [][]float64{{0, 0}, {3, 3}}, 50, 0.5)
	c, err := TrainSVM(X, y, 3, DefaultSVMOptions(), randx.NewSeeded(10))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range c.PredictAll(X) {
		if p == 2 {
			t.Fatal("predicted the class that has no examples")
		}
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// TestSparseMatchesDense: the sparse row form (used for one-hot-like data)
// runs the same iterations as the dense one, up to summation order.
func TestSparseMatchesDense(t *testing.T) {
	X, y := plantedBinary(randx.NewSeeded(14), 500, 30, 0.1, 0.05)
	o := DefaultSVMOptions()
	o.Tol = 1e-6
	sparse := newSVMProblem(X, o)
	if sparse.sp == nil {
		t.Fatal("data with 10 percent non-zeros not stored sparse")
	}
	dense := newSVMProblem(X, o)
	dense.sp = nil
	a := sparse.train(signs(y, 1), randx.NewSeeded(15))
	b := dense.train(signs(y, 1), randx.NewSeeded(15))
	assertModel(t, a, b.W, b.B, 1e-6)
}

// The enumerations print their names, and a value without one its type
// and number.
func TestEnumNames(t *testing.T) {
	for _, c := range []struct {
		v    interface{ String() string }
		want string
	}{
		{Hinge, "hinge"}, {SquaredHinge, "squared-hinge"}, {Loss(0), "Loss(0)"}, {Loss(9), "Loss(9)"},
		{Logistic, "logistic"}, {HuberHinge, "huber-hinge"}, {ERMLoss(-1), "ERMLoss(-1)"},
		{OutputPerturbation, "output-perturbation"}, {ObjectivePerturbation, "objective-perturbation"}, {Perturbation(3), "Perturbation(3)"},
	} {
		if got := c.v.String(); got != c.want {
			t.Errorf("%#v prints %q, want %q", c.v, got, c.want)
		}
	}
}
