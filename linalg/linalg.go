package linalg

import (
	"fmt"
	"runtime"
	"sort"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// Moments returns the column sums Σx and the outer-product sum Σxxᵀ of
// the rows of X. The outer sum is accumulated in row blocks on every CPU.
func Moments(X *mat.Dense) (sum []float64, outer *mat.SymDense) {
	n, p := X.Dims()
	sum = make([]float64, p)
	outer = mat.NewSymDense(p, nil)
	if n == 0 {
		return sum, outer
	}
	workers := runtime.GOMAXPROCS(0)
	if n < 4096 {
		workers = 1
	}
	parts := make([]*mat.SymDense, workers)
	sums := make([][]float64, workers)
	var wg sync.WaitGroup
	chunk := (n + workers - 1) / workers
	for w := 0; w < workers; w++ {
		lo, hi := w*chunk, min((w+1)*chunk, n)
		wg.Add(1)
		go func(w, lo, hi int) {
			defer wg.Done()
			s := mat.NewSymDense(p, nil)
			if hi > lo {
				s.SymOuterK(1, X.Slice(lo, hi, 0, p).T())
			}
			cs := make([]float64, p)
			for i := lo; i < hi; i++ {
				for j, v := range X.RawRowView(i) {
					cs[j] += v
				}
			}
			parts[w], sums[w] = s, cs
		}(w, lo, hi)
	}
	wg.Wait()
	for w := range parts {
		outer.AddSym(outer, parts[w])
		for j, v := range sums[w] {
			sum[j] += v
		}
	}
	return sum, outer
}

// EigenDesc returns the eigenvalues of s in descending order and the
// matching unit eigenvectors as the columns of vecs.
func EigenDesc(s mat.Symmetric) (vals []float64, vecs *mat.Dense, err error) {
	var e mat.EigenSym
	if !e.Factorize(s, true) {
		return nil, nil, fmt.Errorf("linalg: symmetric eigendecomposition did not converge")
	}
	raw := e.Values(nil)
	var v mat.Dense
	e.VectorsTo(&v)
	p := len(raw)
	order := make([]int, p)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return raw[order[a]] > raw[order[b]] })
	vals = make([]float64, p)
	vecs = mat.NewDense(p, p, nil)
	for dst, src := range order {
		vals[dst] = raw[src]
		for r := 0; r < p; r++ {
			vecs.Set(r, dst, v.At(r, src))
		}
	}
	return vals, vecs, nil
}

// ProjectPSD returns the nearest (Frobenius) positive semidefinite matrix to
// s, with every eigenvalue raised to at least floor (floor ≥ 0).
func ProjectPSD(s mat.Symmetric, floor float64) (*mat.SymDense, error) {
	vals, vecs, err := EigenDesc(s)
	if err != nil {
		return nil, err
	}
	p := len(vals)
	scaled := mat.NewDense(p, p, nil)
	for j, l := range vals {
		l = max(l, floor)
		for i := 0; i < p; i++ {
			scaled.Set(i, j, vecs.At(i, j)*l)
		}
	}
	var full mat.Dense
	full.Mul(scaled, vecs.T())
	out := mat.NewSymDense(p, nil)
	for i := 0; i < p; i++ {
		for j := i; j < p; j++ {
			out.SetSym(i, j, (full.At(i, j)+full.At(j, i))/2)
		}
	}
	return out, nil
}
