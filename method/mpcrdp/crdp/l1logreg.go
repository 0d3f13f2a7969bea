package crdp

import (
	"cmp"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Sparse holds rows as (column, value) lists: one-hot encodings have one
// non-zero per categorical attribute, so the selector's passes cost n·s,
// not n·d.
type Sparse struct {
	D   int
	ptr []int
	col []int32
	val []float64
}

// NewSparse keeps the non-zero entries of the given columns of X, renumbered
// 0..len(cols)−1, for the given rows (all when nil).
func NewSparse(X *mat.Dense, rows, cols []int) *Sparse {
	n, _ := X.Dims()
	if rows == nil {
		rows = make([]int, n)
		for i := range rows {
			rows[i] = i
		}
	}
	s := &Sparse{D: len(cols), ptr: make([]int, 1, len(rows)+1)}
	for _, i := range rows {
		r := X.RawRowView(i)
		for k, j := range cols {
			if v := r[j]; v != 0 {
				s.col = append(s.col, int32(k))
				s.val = append(s.val, v)
			}
		}
		s.ptr = append(s.ptr, len(s.col))
	}
	return s
}

// Len is the number of rows.
func (s *Sparse) Len() int { return len(s.ptr) - 1 }

// Subset returns the given rows.
func (s *Sparse) Subset(rows []int) *Sparse {
	out := &Sparse{D: s.D, ptr: make([]int, 1, len(rows)+1)}
	for _, i := range rows {
		out.col = append(out.col, s.col[s.ptr[i]:s.ptr[i+1]]...)
		out.val = append(out.val, s.val[s.ptr[i]:s.ptr[i+1]]...)
		out.ptr = append(out.ptr, len(out.col))
	}
	return out
}

func (s *Sparse) dot(i int, w []float64) float64 {
	z := 0.0
	for k := s.ptr[i]; k < s.ptr[i+1]; k++ {
		z += w[s.col[k]] * s.val[k]
	}
	return z
}

// L1Options configure FitL1Logistic.
type L1Options struct {
	// Lambda is the L1 penalty on the mean logistic loss (the intercept is
	// not penalised).
	Lambda  float64
	MaxIter int     // default 100
	Tol     float64 // stop when no weight moves more than Tol (default 1e-5)
}

// LambdaMax is the smallest L1 penalty at which the fitted weights are all
// zero: ‖Xᵀ(y − ȳ)‖∞/n (the intercept alone fits the base rate ȳ).
func LambdaMax(X *Sparse, y []int) float64 {
	n := X.Len()
	mean := 0.0
	for _, v := range y {
		mean += float64(v)
	}
	mean /= float64(n)
	g := make([]float64, X.D)
	for i := range n {
		r := float64(y[i]) - mean
		for k := X.ptr[i]; k < X.ptr[i+1]; k++ {
			g[X.col[k]] += r * X.val[k]
		}
	}
	m := 0.0
	for _, v := range g {
		m = math.Max(m, math.Abs(v))
	}
	return m / float64(n)
}

// FitL1Logistic minimises (1/n)Σ log(1 + e^{−ỹ_i(w·x_i + b)}) + λ‖w‖₁
// (ỹ = ±1) by FISTA (Beck & Teboulle 2009): gradient steps of length 1/L
// with L = max_i(‖x_i‖² + 1)/4, which bounds the loss's curvature, followed
// by soft-thresholding, with Nesterov momentum. Exact zeros mark features
// the penalty drops.
func FitL1Logistic(X *Sparse, y []int, o L1Options) (w []float64, b float64, err error) {
	n := X.Len()
	if n == 0 || len(y) != n {
		return nil, 0, fmt.Errorf("mpcrdp: L1 logistic regression on %d rows with %d labels", n, len(y))
	}
	if !(o.Lambda >= 0) || math.IsInf(o.Lambda, 0) {
		return nil, 0, fmt.Errorf("mpcrdp: L1 penalty %v", o.Lambda)
	}
	o.MaxIter = cmp.Or(o.MaxIter, 100)
	o.Tol = cmp.Or(o.Tol, 1e-5)
	L := 0.0
	for i := range n {
		s := 1.0
		for k := X.ptr[i]; k < X.ptr[i+1]; k++ {
			s += X.val[k] * X.val[k]
		}
		L = math.Max(L, s/4)
	}
	step := 1 / L
	d := X.D
	w, v, prev := make([]float64, d+1), make([]float64, d+1), make([]float64, d+1) // last entry: intercept
	grad := make([]float64, d+1)
	t := 1.0
	for range o.MaxIter {
		for j := range grad {
			grad[j] = 0
		}
		for i := range n {
			z := X.dot(i, v) + v[d]
			r := sigmoid(z) - float64(y[i])
			for k := X.ptr[i]; k < X.ptr[i+1]; k++ {
				grad[X.col[k]] += r * X.val[k]
			}
			grad[d] += r
		}
		copy(prev, w)
		moved := 0.0
		for j := range w {
			u := v[j] - step*grad[j]/float64(n)
			if j < d {
				u = softThreshold(u, step*o.Lambda)
			}
			w[j] = u
			moved = math.Max(moved, math.Abs(w[j]-prev[j]))
		}
		tNext := (1 + math.Sqrt(1+4*t*t)) / 2
		for j := range v {
			v[j] = w[j] + (t-1)/tNext*(w[j]-prev[j])
		}
		t = tNext
		if moved < o.Tol {
			break
		}
	}
	return w[:d], w[d], nil
}

func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

func softThreshold(u, a float64) float64 {
	switch {
	case u > a:
		return u - a
	case u < -a:
		return u + a
	}
	return 0
}
