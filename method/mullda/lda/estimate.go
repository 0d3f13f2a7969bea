package lda

import (
	"fmt"
	"math"

	"github.com/dppub/dppub/linalg"
	"gonum.org/v1/gonum/mat"
)

// Estimate is what LDA is computed from: class means and the pooled
// within-class scatter. Built from noisy statistics, all of it is
// post-processing of the DP release.
type Estimate struct {
	// Means is Classes×P; row k is μ^(k) = Σ_{x∈X^(k)} x / N^(k) (Eq. 1).
	Means *mat.Dense
	// Counts are N^(k) as released (noisy counts may be fractional or
	// below 1; divisions use max(N^(k), 1)).
	Counts []float64
	// Within is S_w = Σ x xᵀ − Σ_k N^(k) μ^(k) μ^(k)ᵀ (Eq. 5), exactly as
	// computed: with noise it may be indefinite.
	Within *mat.SymDense
}

// NewEstimate computes the means and S_w from (noisy) statistics.
func NewEstimate(s *Stats) (*Estimate, error) {
	classes, p := s.Dims()
	if len(s.Counts) != classes || s.Second.SymmetricDim() != p {
		return nil, fmt.Errorf("lda: inconsistent statistics: %d classes, %d counts, p=%d, Σxxᵀ of %d", classes, len(s.Counts), p, s.Second.SymmetricDim())
	}
	e := &Estimate{Means: mat.NewDense(classes, p, nil), Counts: append([]float64(nil), s.Counts...),
		Within: mat.NewSymDense(p, append([]float64(nil), s.Second.RawSymmetric().Data...))}
	for k := 0; k < classes; k++ {
		n := math.Max(s.Counts[k], 1)
		mu := e.Means.RawRowView(k)
		for j, v := range s.Sums.RawRowView(k) {
			mu[j] = v / n
		}
		// N μ μᵀ = (Σx)(Σx)ᵀ/N.
		e.Within.SymRankOne(e.Within, -n, mat.NewVecDense(p, mu))
	}
	return e, nil
}

// Classes returns the number of classes.
func (e *Estimate) Classes() int { c, _ := e.Means.Dims(); return c }

// Total returns Σ_k max(N^(k), 0).
func (e *Estimate) Total() float64 {
	t := 0.0
	for _, n := range e.Counts {
		t += math.Max(n, 0)
	}
	return t
}

// DefaultRidgeRel is the default ridge relative to the mean eigenvalue
// tr(S_w)/p of the PSD-projected scatter.
const DefaultRidgeRel = 1e-6

// SolveOptions configure the regularised solves.
type SolveOptions struct {
	// Ridge is added to the diagonal of S_w after its projection onto the
	// PSD cone. 0 means DefaultRidgeRel·tr(S_w)/p (at least 1e-12). A ridge
	// computed from public quantities only (the noise σ, p) keeps the
	// result post-processing; NoiseRidge is one.
	Ridge float64
}

// NoiseRidge is a ridge at the scale of the noise in S_w: σ·√p for
// symmetric Gaussian noise of entrywise σ, whose spectrum fills about
// [−2σ√p, 2σ√p]. It depends on public quantities only.
func NoiseRidge(p int, sigma float64) float64 { return sigma * math.Sqrt(float64(p)) }

// Regularised returns S_w projected onto the PSD cone (negative
// eigenvalues, which only noise creates, set to 0) plus the ridge, and its
// Cholesky factorisation.
func (e *Estimate) Regularised(o SolveOptions) (*mat.SymDense, *mat.Cholesky, error) {
	if o.Ridge < 0 || math.IsNaN(o.Ridge) || math.IsInf(o.Ridge, 0) {
		return nil, nil, fmt.Errorf("lda: ridge must be non-negative and finite, got %v", o.Ridge)
	}
	psd, err := linalg.ProjectPSD(e.Within, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("lda: %w", err)
	}
	p := psd.SymmetricDim()
	ridge := o.Ridge
	if ridge == 0 {
		tr := 0.0
		for i := 0; i < p; i++ {
			tr += psd.At(i, i)
		}
		ridge = math.Max(DefaultRidgeRel*tr/float64(p), 1e-12)
	}
	for i := 0; i < p; i++ {
		psd.SetSym(i, i, psd.At(i, i)+ridge)
	}
	var chol mat.Cholesky
	if !chol.Factorize(psd) {
		return nil, nil, fmt.Errorf("lda: S_w + %v·I is not positive definite (ridge too small for this scale?)", ridge)
	}
	return psd, &chol, nil
}

// Fisher is the two-class Fisher direction (Eq. 7): the solution of
// (S_w⁺ + λI) w = μ^(1) − μ^(0) by Cholesky (never an inverse), scaled to
// unit norm, so that projections of unit rows lie in [−1, 1] and class 1
// projects above class 0 (wᵀ(μ1 − μ0) > 0 for a positive definite matrix).
func (e *Estimate) Fisher(o SolveOptions) ([]float64, error) {
	if e.Classes() != 2 {
		return nil, fmt.Errorf("lda: the Fisher direction needs 2 classes, have %d (use Directions)", e.Classes())
	}
	_, chol, err := e.Regularised(o)
	if err != nil {
		return nil, err
	}
	_, p := e.Means.Dims()
	diff := mat.NewVecDense(p, nil)
	diff.SubVec(e.Means.RowView(1), e.Means.RowView(0))
	var w mat.VecDense
	if err := chol.SolveVecTo(&w, diff); err != nil {
		return nil, fmt.Errorf("lda: Fisher solve: %w", err)
	}
	return unit(w.RawVector().Data)
}

// Directions returns the C−1 discriminant directions as the columns of a
// p×(C−1) matrix: the top generalised eigenvectors of S_b v = λ S_w v with
// S_b = Σ_k N^(k)(μ^(k) − μ)(μ^(k) − μ)ᵀ and S_w regularised as in
// Regularised. With S_w = UᵀU, S_b = DDᵀ (D's columns √N^(k)(μ^(k) − μ)),
// the eigenvectors are v = U⁻¹a for the left singular vectors a of U⁻ᵀD,
// found by triangular solves. Each column has unit norm and is oriented so
// that the last class projects above the first. For two classes the single
// direction is Fisher's.
func (e *Estimate) Directions(o SolveOptions) (*mat.Dense, error) {
	classes, p := e.Means.Dims()
	_, chol, err := e.Regularised(o)
	if err != nil {
		return nil, err
	}
	d := e.centredMeans()
	var u mat.TriDense
	chol.UTo(&u)
	var ed mat.Dense // U⁻ᵀ D
	if err := u.SolveTo(&ed, true, d); err != nil {
		return nil, fmt.Errorf("lda: triangular solve: %w", err)
	}
	var svd mat.SVD
	if !svd.Factorize(&ed, mat.SVDThin) {
		return nil, fmt.Errorf("lda: SVD of the whitened class means failed")
	}
	var a mat.Dense
	svd.UTo(&a)
	k := classes - 1
	if k > p {
		k = p
	}
	var v mat.Dense
	if err := u.SolveTo(&v, false, a.Slice(0, p, 0, k)); err != nil {
		return nil, fmt.Errorf("lda: triangular solve: %w", err)
	}
	out := mat.NewDense(p, k, nil)
	for j := 0; j < k; j++ {
		col, err := unit(mat.Col(nil, j, &v))
		if err != nil {
			return nil, err
		}
		if dot(col, e.Means.RawRowView(classes-1)) < dot(col, e.Means.RawRowView(0)) {
			for i := range col {
				col[i] = -col[i]
			}
		}
		out.SetCol(j, col)
	}
	return out, nil
}

// centredMeans returns D (p×C) with columns √N^(k)(μ^(k) − μ), μ the
// count-weighted overall mean.
func (e *Estimate) centredMeans() *mat.Dense {
	classes, p := e.Means.Dims()
	total := 0.0
	mean := make([]float64, p)
	for k := 0; k < classes; k++ {
		n := math.Max(e.Counts[k], 1)
		total += n
		for j, v := range e.Means.RawRowView(k) {
			mean[j] += n * v
		}
	}
	d := mat.NewDense(p, classes, nil)
	for k := 0; k < classes; k++ {
		f := math.Sqrt(math.Max(e.Counts[k], 1))
		for j, v := range e.Means.RawRowView(k) {
			d.Set(j, k, f*(v-mean[j]/total))
		}
	}
	return d
}

func unit(v []float64) ([]float64, error) {
	norm := 0.0
	for _, x := range v {
		norm += x * x
	}
	norm = math.Sqrt(norm)
	if !(norm > 0) || math.IsInf(norm, 0) {
		return nil, fmt.Errorf("lda: discriminant direction has norm %v (the class means coincide?)", norm)
	}
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = x / norm
	}
	return out, nil
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
