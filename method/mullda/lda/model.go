package lda

import (
	"fmt"
	"math"

	"github.com/dppub/dppub/linalg"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// Model is the DP class-conditional Gaussian model of the projections:
// class k projects to N(Wᵀμ^(k), WᵀΣW) with Σ = S_w⁺/(N − C) the pooled
// within-class covariance (the LDA model), and Counts[k] rows are drawn for
// class k. It is built from an Estimate only, so everything it generates is
// post-processing of the DP release.
type Model struct {
	W      *mat.Dense    // p×d directions
	Means  *mat.Dense    // C×d projected class means
	Cov    *mat.SymDense // d×d projected pooled covariance
	Counts []int         // rows per class: round(max(N^(k), 0))
}

// Model builds the model for directions W (p×d).
func (e *Estimate) Model(W *mat.Dense) (*Model, error) {
	classes, p := e.Means.Dims()
	wp, d := W.Dims()
	if wp != p || d < 1 {
		return nil, fmt.Errorf("lda: directions are %d×%d, want %d×d", wp, d, p)
	}
	psd, err := linalg.ProjectPSD(e.Within, 0)
	if err != nil {
		return nil, fmt.Errorf("lda: %w", err)
	}
	m := &Model{W: mat.DenseCopyOf(W), Means: mat.NewDense(classes, d, nil), Counts: make([]int, classes)}
	m.Means.Mul(e.Means, W)
	var tmp, cov mat.Dense
	tmp.Mul(psd, W)
	cov.Mul(W.T(), &tmp)
	dof := math.Max(e.Total()-float64(classes), 1)
	m.Cov = mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			m.Cov.SetSym(i, j, (cov.At(i, j)+cov.At(j, i))/2/dof)
		}
	}
	for k, n := range e.Counts {
		m.Counts[k] = int(math.Round(math.Max(n, 0)))
	}
	return m, nil
}

// Sample draws Counts[k] rows for every class k (in class order) from the
// model, each clamped to the box [−1, 1]^d where projections of unit rows
// on unit directions lie. It returns the rows and their labels.
func (m *Model) Sample(src *randx.Source) (*mat.Dense, []int, error) {
	classes, d := m.Means.Dims()
	cov, err := linalg.ProjectPSD(m.Cov, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("lda: %w", err)
	}
	for i := 0; i < d; i++ {
		cov.SetSym(i, i, cov.At(i, i)+1e-12)
	}
	var chol mat.Cholesky
	if !chol.Factorize(cov) {
		return nil, nil, fmt.Errorf("lda: projected covariance is not positive definite")
	}
	var l mat.TriDense
	chol.LTo(&l)
	n := 0
	for _, c := range m.Counts {
		n += c
	}
	z := mat.NewDense(max(n, 1), d, nil)
	y := make([]int, 0, n)
	e := make([]float64, d)
	row := 0
	for k := 0; k < classes; k++ {
		mu := m.Means.RawRowView(k)
		for c := 0; c < m.Counts[k]; c++ {
			for j := range e {
				e[j] = src.NormFloat64()
			}
			out := z.RawRowView(row)
			for i := 0; i < d; i++ {
				v := mu[i]
				for j := 0; j <= i; j++ {
					v += l.At(i, j) * e[j]
				}
				out[i] = math.Max(-1, math.Min(1, v))
			}
			y = append(y, k)
			row++
		}
	}
	if n == 0 {
		return nil, nil, fmt.Errorf("lda: the model draws no rows (all class counts ≤ 0.5)")
	}
	return z, y, nil
}

// Project returns X W: the projections of the rows of X. For the real
// rows of a private dataset this is NOT differentially private (the paper's
// output X̃ = Xw): each projection is a function of one real record.
func Project(X, W *mat.Dense) *mat.Dense {
	var z mat.Dense
	z.Mul(X, W)
	return &z
}
