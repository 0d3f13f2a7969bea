package dppca

import (
	"fmt"
	"math"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/linalg"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// normSlack is how far above 1 a row norm may be and still count as
// floating-point rounding.
const normSlack = 1e-9

// ClipRows scales every row of X whose Euclidean norm exceeds 1 onto the
// unit sphere, in place: the paper's assumption ‖x_i‖₂ ≤ 1 (§2.1), on
// which every sensitivity here rests. It is a per-record map, so it keeps
// any guarantee.
func ClipRows(X *mat.Dense) { data.ClipRowsL2(X, 1) }

// CheckRows returns an error naming the first row with ‖x‖₂ > 1.
func CheckRows(X *mat.Dense) error {
	n, _ := X.Dims()
	for i := range n {
		if norm := floats.Norm(X.RawRowView(i), 2); norm > 1+normSlack || math.IsNaN(norm) {
			return fmt.Errorf("dppca: row %d has L2 norm %.9g > 1 (clip rows first)", i, norm)
		}
	}
	return nil
}

// SecondMoment returns A = XᵀX/n (the paper's Eq. 1), accumulated in row
// blocks on every CPU.
func SecondMoment(X *mat.Dense) *mat.SymDense {
	n, _ := X.Dims()
	_, outer := linalg.Moments(X)
	if n > 0 {
		outer.ScaleSym(1/float64(n), outer)
	}
	return outer
}

// Components are the top-k eigenvectors of a (noisy) second-moment matrix.
type Components struct {
	// Eigenvalues are all d eigenvalues, descending; a noisy matrix may
	// have negative ones.
	Eigenvalues []float64
	// Vectors holds the k unit eigenvectors as columns (d×k).
	Vectors *mat.Dense
	K       int
}

// SelectOptions choose k: K if positive, otherwise the smallest k whose
// contribution rate reaches Contribution (α of Eq. 3).
type SelectOptions struct {
	Contribution float64
	K            int
}

func (o SelectOptions) validate(d int) error {
	if o.K < 0 || o.K > d {
		return fmt.Errorf("dppca: k = %d outside [1, %d]", o.K, d)
	}
	if o.K == 0 && !(o.Contribution > 0 && o.Contribution <= 1) {
		return fmt.Errorf("dppca: contribution rate %v outside (0, 1]", o.Contribution)
	}
	return nil
}

// TopK eigendecomposes a and keeps the top k eigenvectors (Algorithm 1
// steps 4–5). Choosing k from a noisy matrix is post-processing.
func TopK(a mat.Symmetric, o SelectOptions) (*Components, error) {
	d := a.SymmetricDim()
	if err := o.validate(d); err != nil {
		return nil, err
	}
	vals, vecs, err := linalg.EigenDesc(a)
	if err != nil {
		return nil, fmt.Errorf("dppca: %w", err)
	}
	k := o.K
	if k == 0 {
		k = ChooseK(vals, o.Contribution)
	}
	return &Components{Eigenvalues: vals, Vectors: mat.DenseCopyOf(vecs.Slice(0, d, 0, k)), K: k}, nil
}

// ChooseK is the smallest k with Σ_{i≤k}λ_i / Σλ_i ≥ α (Eq. 3). Negative
// eigenvalues, which only noise produces (A is positive semidefinite),
// count as 0. A matrix without a positive eigenvalue gives k = 1.
func ChooseK(vals []float64, alpha float64) int {
	total := 0.0
	for _, l := range vals {
		total += math.Max(l, 0)
	}
	if total == 0 {
		return 1
	}
	acc := 0.0
	for i, l := range vals {
		acc += math.Max(l, 0)
		if acc/total >= alpha-1e-12 {
			return i + 1
		}
	}
	return len(vals)
}

// Project returns Y = XV_k (Eq. 4). Since V_k has orthonormal columns,
// ‖y‖₂ ≤ ‖x‖₂.
func (c *Components) Project(X *mat.Dense) *mat.Dense {
	n, _ := X.Dims()
	Y := mat.NewDense(n, c.K, nil)
	Y.Mul(X, c.Vectors)
	return Y
}
