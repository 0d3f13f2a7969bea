package crdp

import (
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/learn"
	"github.com/dppub/dppub/linalg"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// FMSensitivity is the functional mechanism's L1 sensitivity for logistic
// regression on rows x̃ with ‖x̃‖₁ ≤ s (bias included): s + s²/4 (see the
// package comment).
func FMSensitivity(s float64) float64 { return s + s*s/4 }

// FMOptions configure FitFM.
type FMOptions struct {
	// Epsilon is the release budget; Factor the notion's sensitivity
	// factor (1 for standard DP).
	Epsilon, Factor float64
	// RowL1 bounds ‖x‖₁ of a feature row (the bias adds 1).
	RowL1 float64
	// Ridge per record (the objective gets Ridge·n·‖w‖²).
	Ridge float64
	// Exact skips the noise: the plain Taylor objective, for the
	// non-private baseline and tests. It guarantees nothing.
	Exact bool
}

// FMSpec describes the functional mechanism's noise for reports.
func (o FMOptions) Spec() dp.Spec {
	sens := o.Factor * FMSensitivity(o.RowL1+1)
	return dp.Spec{Mechanism: "laplace (functional mechanism)", Norm: "L1", Sensitivity: sens,
		Scale: sens / o.Epsilon, Guarantee: dp.Pure(o.Epsilon)}
}

// FitFM trains logistic regression by the functional mechanism (Zhang et
// al., PVLDB 2012): the degree-2 Taylor coefficients of the loss, summed
// over the records, get Laplace noise of scale Factor·(s + s²/4)/Epsilon
// (s = RowL1 + 1); the noisy quadratic wᵀMw + λ₁ᵀw is then made convex
// (M's eigenvalues clipped at 0, plus the ridge) and minimised. Labels are
// 0/1; the model scores x ↦ W·x + B.
func FitFM(X *mat.Dense, y []int, o FMOptions, src *randx.Source) (*learn.LinearModel, error) {
	n, d := X.Dims()
	if n != len(y) || n == 0 {
		return nil, fmt.Errorf("mpcrdp: FM regression on %d rows with %d labels", n, len(y))
	}
	if !(o.Epsilon > 0 || o.Exact) || !(o.Factor >= 1) || !(o.RowL1 > 0) || !(o.Ridge > 0) {
		return nil, fmt.Errorf("mpcrdp: FM regression needs ε > 0, factor ≥ 1, row bound > 0, ridge > 0; got %v, %v, %v, %v",
			o.Epsilon, o.Factor, o.RowL1, o.Ridge)
	}
	lin, quad, err := taylorCoefficients(X, y, o.RowL1)
	if err != nil {
		return nil, err
	}
	if !o.Exact {
		// One release: the linear and the upper quadratic coefficients
		// share the L1 sensitivity of the spec.
		spec := o.Spec()
		upper := dp.UpperTriangle(quad)
		dp.NewNoiser(src).ReleaseLaplace(spec.Sensitivity, spec.Guarantee.Epsilon, lin, upper)
		dp.SetUpperTriangle(quad, upper)
	}
	A, err := convexQuadratic(quad, o.Ridge, n)
	if err != nil {
		return nil, err
	}
	return minimiseQuadratic(A, lin, d)
}

// taylorCoefficients sums the degree-2 Taylor coefficients of the
// logistic loss over the rows of X (with a constant 1 appended, each
// checked to have L1 norm at most rowL1 + 1): the linear ones and the
// monomial ones on and above the diagonal.
func taylorCoefficients(X *mat.Dense, y []int, rowL1 float64) ([]float64, *mat.SymDense, error) {
	n, d := X.Dims()
	D := d + 1
	lin := make([]float64, D)
	quad := mat.NewSymDense(D, nil) // monomial coefficients on and above the diagonal
	xt := make([]float64, D)
	for i := range n {
		copy(xt, X.RawRowView(i))
		xt[d] = 1
		if err := checkUnitRow(xt, rowL1+1); err != nil {
			return nil, nil, fmt.Errorf("mpcrdp: FM regression row %d: %w", i, err)
		}
		c := 0.5 - float64(y[i])
		for j, v := range xt {
			if v == 0 {
				continue
			}
			lin[j] += c * v
			for k := j; k < D; k++ {
				if xt[k] != 0 {
					m := v * xt[k] / 8
					if k != j {
						m *= 2
					}
					quad.SetSym(j, k, quad.At(j, k)+m)
				}
			}
		}
	}
	return lin, quad, nil
}

// convexQuadratic turns the (noisy) monomial coefficients quad into the
// matrix of a convex quadratic: the symmetric M of wᵀMw with its
// eigenvalues clipped at 0, doubled (the Hessian), plus the ridge
// 2·ridge·n on the diagonal.
func convexQuadratic(quad *mat.SymDense, ridge float64, n int) (*mat.SymDense, error) {
	D := quad.SymmetricDim()
	// Monomial coefficient c_jk (j < k) multiplies w_j·w_k = ½(M_jk + M_kj).
	M := mat.NewSymDense(D, nil)
	for j := range D {
		for k := j; k < D; k++ {
			v := quad.At(j, k)
			if k != j {
				v /= 2
			}
			M.SetSym(j, k, v)
		}
	}
	psd, err := linalg.ProjectPSD(M, 0)
	if err != nil {
		return nil, fmt.Errorf("mpcrdp: FM regression: %w", err)
	}
	A := mat.NewSymDense(D, nil)
	for j := range D {
		for k := j; k < D; k++ {
			v := 2 * psd.At(j, k)
			if j == k {
				v += 2 * ridge * float64(n)
			}
			A.SetSym(j, k, v)
		}
	}
	return A, nil
}

// minimiseQuadratic solves A·w = −lin for the model's d weights and its
// bias (the last coordinate).
func minimiseQuadratic(A *mat.SymDense, lin []float64, d int) (*learn.LinearModel, error) {
	var chol mat.Cholesky
	if !chol.Factorize(A) {
		return nil, fmt.Errorf("mpcrdp: FM regression: the regularised quadratic is not positive definite")
	}
	var w mat.VecDense
	rhs := mat.NewVecDense(d+1, lin)
	rhs.ScaleVec(-1, rhs)
	if err := chol.SolveVecTo(&w, rhs); err != nil {
		return nil, fmt.Errorf("mpcrdp: FM regression: %w", err)
	}
	out := &learn.LinearModel{W: make([]float64, d)}
	for j := range d {
		out.W[j] = w.AtVec(j)
	}
	out.B = w.AtVec(d)
	return out, nil
}

// checkUnitRow verifies entries in [0, 1] and ‖x‖₁ ≤ bound, the
// assumptions of the sensitivity.
func checkUnitRow(x []float64, bound float64) error {
	s := 0.0
	for j, v := range x {
		if !(v >= 0 && v <= 1) {
			return fmt.Errorf("column %d is %v, outside [0, 1]", j, v)
		}
		s += v
	}
	if s > bound*(1+1e-12) {
		return fmt.Errorf("‖x‖₁ = %v exceeds the bound %v", s, bound)
	}
	return nil
}

// SVMOptions configure TrainSVM.
type SVMOptions struct {
	Epsilon, Factor float64
	// Lambda is the regulariser on the mean loss (0: resolved by learn
	// from n and ε so that objective perturbation keeps its whole ε,
	// learn.DPERMOptions.ResolvedLambda); Huber the smoothing of the Huber
	// hinge loss.
	Lambda, Huber float64
}

// TrainSVM trains an SVM by objective perturbation (learn.TrainDPLinear,
// Huber hinge, bias) at ε = Epsilon/Factor on rows with ‖x‖₂ ≤ 1: by group
// privacy it protects a group of Factor records at Epsilon.
func TrainSVM(X *mat.Dense, y []int, o SVMOptions, src *randx.Source) (*learn.LinearModel, error) {
	if !(o.Factor >= 1) {
		return nil, fmt.Errorf("mpcrdp: SVM sensitivity factor %v below 1", o.Factor)
	}
	do := learn.DefaultDPERMOptions(o.Epsilon / o.Factor)
	do.Loss, do.Huber, do.Lambda = learn.HuberHinge, o.Huber, o.Lambda
	m, err := learn.TrainDPLinear(X, y, do, src)
	if err != nil {
		return nil, fmt.Errorf("mpcrdp: %w", err)
	}
	return m, nil
}

// Condition asks that a feature hold a code.
type Condition struct {
	Feature int // index into the released features
	Code    uint32
}

// Query counts the records meeting every condition.
type Query []Condition

// GenerateQueries draws count random conjunctive queries over features with
// the given numbers of codes: each fixes 1 to 3 distinct features (at most
// all of them) to uniformly random codes (the paper's "random linear
// queries, for which the value of each feature is randomly searched").
func GenerateQueries(levels []int, count int, src *randx.Source) []Query {
	out := make([]Query, count)
	for q := range out {
		k := 1 + src.IntN(min(3, len(levels)))
		feats := src.Perm(len(levels))[:k]
		out[q] = make(Query, k)
		for c, f := range feats {
			out[q][c] = Condition{Feature: f, Code: uint32(src.IntN(levels[f]))}
		}
	}
	return out
}

// CountQueries answers the queries exactly over records given as codes
// (rows[i][f] is record i's code of feature f), through one bitset per
// (feature, code).
func CountQueries(rows [][]uint32, levels []int, queries []Query) ([]float64, error) {
	n := len(rows)
	words := (n + 63) / 64
	sets := make([][][]uint64, len(levels))
	for f, lv := range levels {
		sets[f] = make([][]uint64, lv)
	}
	for i, r := range rows {
		if len(r) != len(levels) {
			return nil, fmt.Errorf("mpcrdp: record %d has %d codes for %d features", i, len(r), len(levels))
		}
		for f, c := range r {
			if sets[f][c] == nil {
				sets[f][c] = make([]uint64, words)
			}
			sets[f][c][i/64] |= 1 << (i % 64)
		}
	}
	out := make([]float64, len(queries))
	acc := make([]uint64, words)
	for q, query := range queries {
		for w := range acc {
			acc[w] = ^uint64(0)
		}
		for _, c := range query {
			if c.Feature < 0 || c.Feature >= len(levels) || int(c.Code) >= levels[c.Feature] {
				return nil, fmt.Errorf("mpcrdp: query %d asks feature %d for code %d, outside the data", q, c.Feature, c.Code)
			}
			s := sets[c.Feature][c.Code]
			for w := range acc {
				if s == nil {
					acc[w] = 0
				} else {
					acc[w] &= s[w]
				}
			}
		}
		count := 0
		for w, v := range acc {
			if w == words-1 && n%64 != 0 {
				v &= 1<<(n%64) - 1
			}
			count += bits.OnesCount64(v)
		}
		out[q] = float64(count)
	}
	return out, nil
}

// QueryScale is the Laplace scale of each answer: the paper's Δ/ε per
// query, or, sound, QuerySensitivity/ε.
func QueryScale(c Calibration, queries, featureSets int, factor, eps float64) float64 {
	return QuerySensitivity(c, queries, featureSets, factor) / eps
}

// QuerySensitivity is the L1 sensitivity, under replacement and times the
// notion's factor, of the distinct answers to Q count queries whose
// conditions fix at most featureSets distinct sets of features. Two bounds
// hold and the smaller is used: every count moves by at most 1 (Q in all);
// and the queries fixing the same feature set are distinct cells of one
// marginal, whose cells move by at most 2 in L1 together (a record leaves
// one cell and enters another), so 2·featureSets. The answers are thus a
// sub-vector of featureSets noisy marginals, answered by post-processing —
// far less noise than Q per-query releases when queries share features
// (10⁴ queries over 10 features: 350 instead of 10⁴). The paper's
// calibration (Eq. 22) is 1, one query's sensitivity.
func QuerySensitivity(c Calibration, queries, featureSets int, factor float64) float64 {
	if c == Paper {
		return factor
	}
	return float64(min(queries, 2*featureSets)) * factor
}

// GeneratedFeatureSets is the number of distinct feature sets that
// GenerateQueries can fix over f features: every set of 1 to 3 of them.
func GeneratedFeatureSets(f int) int {
	n := int64(0)
	for k := 1; k <= min(3, f); k++ {
		n += binomial(f, k)
	}
	return int(n)
}

// cellKey names the cell a query counts: its sorted conditions.
func cellKey(q Query) string {
	cs := slices.Clone(q)
	slices.SortFunc(cs, func(a, b Condition) int { return a.Feature - b.Feature })
	return fmt.Sprint(cs)
}

// ReleaseAnswers returns noisy answers to the queries from their exact
// counts: one grid Laplace release (dp.Noiser.ReleaseLaplace) of the
// distinct cells at L1 sensitivity l1 and ε, so a query asked twice gets
// the same answer.
func ReleaseAnswers(queries []Query, truth []float64, l1, eps float64, noise *dp.Noiser) []float64 {
	first := map[string]int{}
	var cells []float64
	at := make([]int, len(queries))
	for i, q := range queries {
		k := cellKey(q)
		j, ok := first[k]
		if !ok {
			j = len(cells)
			first[k] = j
			cells = append(cells, truth[i])
		}
		at[i] = j
	}
	noise.ReleaseLaplace(l1, eps, cells)
	out := make([]float64, len(queries))
	for i, j := range at {
		out[i] = cells[j]
	}
	return out
}

// MAE is the mean absolute error of noisy answers (Eq. 24).
func MAE(noisy, truth []float64) float64 {
	s := 0.0
	for i, v := range noisy {
		s += math.Abs(v - truth[i])
	}
	return s / float64(len(noisy))
}
