package dppca

import (
	"fmt"

	"github.com/dppub/dppub/learn"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// maxNewtonDim is the largest dimension (bias included) for which
// NonPrivateSVM solves the primal by Newton's method: each iteration
// forms a dim×dim Hessian in O(n·dim²).
const maxNewtonDim = 65

// NonPrivateSVM trains the paper's SVM: LIBLINEAR's L2-regularised linear
// SVM, one-vs-rest, with the binary problems in parallel. For the
// squared-hinge loss with a bias in at most maxNewtonDim dimensions,
// which covers projected rows, it minimises the same primal objective
//
//	½‖w̃‖² + C Σᵢ max(0, 1 − yᵢ w̃·x̃ᵢ)²,  x̃ = (x, 1),
//
// by Newton's method with the generalised Hessian (Keerthi & DeCoste,
// JMLR 2005): when n ≫ dim this takes tens of passes where dual
// coordinate descent takes hundreds. Otherwise it calls
// learn.TrainBinarySVM. A class absent from y gets a model that scores
// every row −1.
func NonPrivateSVM(X *mat.Dense, y []int, classes int, so learn.SVMOptions, src *randx.Source) (*learn.Classifier, error) {
	if err := so.Validate(); err != nil {
		return nil, fmt.Errorf("dppca: %w", err)
	}
	_, d := X.Dims()
	newton := so.Loss == learn.SquaredHinge && so.Bias && d+1 <= maxNewtonDim
	if src == nil {
		src = randx.NewSecure()
	}
	return oneVsRest(y, classes, src, func(pos []int, src *randx.Source) (*learn.LinearModel, error) {
		if constant, ok := constantModel(pos, X); ok {
			return constant, nil
		}
		if newton {
			return newtonL2SVM(X, pos, so.C, so.MaxIter), nil
		}
		return learn.TrainBinarySVM(X, pos, so, src)
	})
}

// newtonTol is the relative gradient norm at which Newton stops; the
// objective is then within a negligible fraction of its minimum.
const newtonTol = 1e-4

// newtonL2SVM minimises the primal L2-loss SVM with a bias for labels
// pos (1 positive, 0 negative). The objective is strictly convex and
// piecewise quadratic; each step solves H s = −g with H = I + 2C Σ_{i∈I}
// x̃ᵢx̃ᵢᵀ over the rows with margin below 1, then backtracks (Armijo).
func newtonL2SVM(X *mat.Dense, pos []int, c float64, maxIter int) *learn.LinearModel {
	p := newL2SVMProblem(X, pos, c)
	dim := p.d + 1
	w := make([]float64, dim)
	next := make([]float64, dim)
	grad := make([]float64, dim)
	step := make([]float64, dim)
	f := p.objective(w)
	g0 := 0.0
	for iter := 0; iter < maxIter; iter++ {
		hess := p.gradHess(w, grad)
		gnorm := floats.Norm(grad, 2)
		if iter == 0 {
			g0 = gnorm
		}
		if gnorm <= newtonTol*g0 || gnorm == 0 {
			break
		}
		var chol mat.Cholesky
		if !chol.Factorize(hess) {
			break // H ⪰ I is positive definite; only NaNs can get here
		}
		if err := chol.SolveVecTo(mat.NewVecDense(dim, step), mat.NewVecDense(dim, grad)); err != nil {
			break
		}
		floats.Scale(-1, step)
		slope := floats.Dot(grad, step)
		t, improved := 1.0, false
		for range 30 {
			floats.AddScaledTo(next, w, t, step)
			if fn := p.objective(next); fn <= f+1e-4*t*slope {
				copy(w, next)
				f, improved = fn, true
				break
			}
			t /= 2
		}
		if !improved {
			break
		}
	}
	return &learn.LinearModel{W: w[:p.d:p.d], B: w[p.d]}
}

// l2svmProblem holds X's raw storage and the ±1 labels; z caches w̃·x̃ᵢ
// of the last objective evaluation.
type l2svmProblem struct {
	data      []float64
	n, d, str int
	y, z      []float64
	c         float64
}

func newL2SVMProblem(X *mat.Dense, pos []int, c float64) *l2svmProblem {
	raw := X.RawMatrix()
	p := &l2svmProblem{data: raw.Data, n: raw.Rows, d: raw.Cols, str: raw.Stride, c: c,
		y: make([]float64, raw.Rows), z: make([]float64, raw.Rows)}
	for i, v := range pos {
		p.y[i] = float64(2*v - 1)
	}
	return p
}

func (p *l2svmProblem) row(i int) []float64 { return p.data[i*p.str : i*p.str+p.d] }

// objective returns the primal objective at w and leaves w̃·x̃ᵢ in z.
func (p *l2svmProblem) objective(w []float64) float64 {
	f := 0.0
	wx, b := w[:p.d], w[p.d]
	for i := range p.n {
		s := b
		for j, v := range p.row(i) {
			s += wx[j] * v
		}
		p.z[i] = s
		if m := 1 - p.y[i]*s; m > 0 {
			f += m * m
		}
	}
	return 0.5*floats.Dot(w, w) + p.c*f
}

// gradHess writes the gradient at w into grad (z must hold w̃·x̃ᵢ for
// this w) and returns the generalised Hessian.
func (p *l2svmProblem) gradHess(w, grad []float64) *mat.SymDense {
	dim := p.d + 1
	copy(grad, w)
	var hess *mat.SymDense
	if dim <= smallDim {
		hess = p.hessRowByRow(grad)
	} else {
		hess = p.hessBlocked(grad)
	}
	for j := range dim {
		hess.SetSym(j, j, hess.At(j, j)+1)
	}
	return hess
}

// smallDim is the dimension up to which row-by-row outer products beat
// gathering rows for a blocked rank-k update.
const smallDim = 8

// hessRowByRow adds the active rows' gradient terms to grad and returns
// 2C Σ_{i∈I} x̃ᵢx̃ᵢᵀ, one outer product at a time.
func (p *l2svmProblem) hessRowByRow(grad []float64) *mat.SymDense {
	dim := p.d + 1
	h := make([]float64, dim*dim) // upper triangle used
	x := make([]float64, dim)
	x[p.d] = 1
	for i := range p.n {
		if p.y[i]*p.z[i] >= 1 {
			continue
		}
		copy(x, p.row(i))
		coef := 2 * p.c * (p.z[i] - p.y[i])
		for j, v := range x {
			grad[j] += coef * v
			hj := h[j*dim : (j+1)*dim]
			for k := j; k < dim; k++ {
				hj[k] += v * x[k]
			}
		}
	}
	hess := mat.NewSymDense(dim, nil)
	for j := range dim {
		for k := j; k < dim; k++ {
			hess.SetSym(j, k, 2*p.c*h[j*dim+k])
		}
	}
	return hess
}

// hessBlocked is hessRowByRow with the active rows gathered in blocks and
// added by a symmetric rank-k update, several times faster for larger dim.
func (p *l2svmProblem) hessBlocked(grad []float64) *mat.SymDense {
	dim := p.d + 1
	hess := mat.NewSymDense(dim, nil)
	const block = 2048
	buf := make([]float64, 0, block*dim)
	flush := func() {
		if rows := len(buf) / dim; rows > 0 {
			hess.SymRankK(hess, 2*p.c, mat.NewDense(rows, dim, buf).T())
			buf = buf[:0]
		}
	}
	for i := range p.n {
		if p.y[i]*p.z[i] >= 1 {
			continue
		}
		x := p.row(i)
		coef := 2 * p.c * (p.z[i] - p.y[i])
		floats.AddScaled(grad[:p.d], coef, x)
		grad[p.d] += coef
		buf = append(append(buf, x...), 1)
		if len(buf) == cap(buf) {
			flush()
		}
	}
	flush()
	return hess
}
