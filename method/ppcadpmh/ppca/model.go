package ppca

import (
	"fmt"
	"math"

	"github.com/dppub/dppub/linalg"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// NoisyMoments are one owner's (or the pooled) noisy sums and record count.
// The count is treated as public, as in the paper.
type NoisyMoments struct {
	N     int
	Sum   []float64
	Outer *mat.SymDense
}

// Estimate is the DP mean and covariance the model is fitted to.
type Estimate struct {
	N    int
	Mean []float64
	Cov  *mat.SymDense
}

// Pooled estimates the mean and covariance from sums over all owners
// (Σ of the owners' noisy sums, or one securely aggregated sum):
// μ̂ = Σx/n, Σ̂ = Σxxᵀ/n − μ̂μ̂ᵀ.
func Pooled(parts []NoisyMoments) (*Estimate, error) {
	total, err := addMoments(parts)
	if err != nil {
		return nil, err
	}
	return momentsToEstimate(total), nil
}

// PaperAggregate is Algorithm 1 lines 3–5: each owner's Σ̂_i =
// Ê(xxᵀ) − Ê(x)Ê(x)ᵀ, then Σ̂ = Σ n_i Σ̂_i / Σ n_i. The mean is pooled.
func PaperAggregate(parts []NoisyMoments) (*Estimate, error) {
	total, err := addMoments(parts)
	if err != nil {
		return nil, err
	}
	p := len(total.Sum)
	cov := mat.NewSymDense(p, nil)
	for _, m := range parts {
		e := momentsToEstimate(m)
		cov.AddSym(cov, scaledSym(e.Cov, float64(m.N)/float64(total.N)))
	}
	return &Estimate{N: total.N, Mean: momentsToEstimate(total).Mean, Cov: cov}, nil
}

func addMoments(parts []NoisyMoments) (NoisyMoments, error) {
	if len(parts) == 0 {
		return NoisyMoments{}, fmt.Errorf("ppca: no owner statistics to aggregate")
	}
	p := len(parts[0].Sum)
	total := NoisyMoments{Sum: make([]float64, p), Outer: mat.NewSymDense(p, nil)}
	for i, m := range parts {
		if len(m.Sum) != p || m.Outer.SymmetricDim() != p {
			return NoisyMoments{}, fmt.Errorf("ppca: owner %d sent dimension %d, want %d", i, len(m.Sum), p)
		}
		if m.N < 1 {
			return NoisyMoments{}, fmt.Errorf("ppca: owner %d reported %d records", i, m.N)
		}
		total.N += m.N
		for j, v := range m.Sum {
			total.Sum[j] += v
		}
		total.Outer.AddSym(total.Outer, m.Outer)
	}
	return total, nil
}

func momentsToEstimate(m NoisyMoments) *Estimate {
	p := len(m.Sum)
	n := float64(m.N)
	mean := make([]float64, p)
	for j, v := range m.Sum {
		mean[j] = v / n
	}
	cov := mat.NewSymDense(p, nil)
	for i := 0; i < p; i++ {
		for j := i; j < p; j++ {
			cov.SetSym(i, j, m.Outer.At(i, j)/n-mean[i]*mean[j])
		}
	}
	return &Estimate{N: m.N, Mean: mean, Cov: cov}
}

func scaledSym(s *mat.SymDense, f float64) *mat.SymDense {
	out := mat.NewSymDense(s.SymmetricDim(), nil)
	out.ScaleSym(f, s)
	return out
}

// FitOptions chooses the number of components: K if positive, otherwise
// the smallest k whose cumulative contribution Σ_{i≤k}λ_i/Σλ_i reaches
// Contribution (Algorithm 1 lines 7–12).
type FitOptions struct {
	Contribution float64
	K            int
}

// Model is the PPCA model of the paper's Theorem 3 fitted to a DP
// estimate: x = W s + μ + ξ, s ~ N(0, I_k), ξ ~ N(0, σ² I_p), with
// σ² the mean of the discarded eigenvalues (Eq. 5) and
// W = U_k (Λ_k − σ² I)^{1/2} (Eq. 6). Everything in it is post-processing
// of DP outputs.
type Model struct {
	Mean        []float64
	Eigenvalues []float64  // all p, descending, clipped at 0
	Components  *mat.Dense // U_k, p×k
	K           int
	Sigma2      float64
	W           *mat.Dense // p×k
}

// Fit eigendecomposes the estimate's covariance and builds the model.
// Negative eigenvalues (noise) are clipped at 0, and only components with
// λ > σ² are kept so that W is real
// (docs/errata.md#ppca-negative-eigenvalues).
func Fit(e *Estimate, o FitOptions) (*Model, error) {
	p := len(e.Mean)
	if o.K < 0 || o.K > p {
		return nil, fmt.Errorf("ppca: k = %d outside [1, %d]", o.K, p)
	}
	if o.K == 0 && !(o.Contribution > 0 && o.Contribution <= 1) {
		return nil, fmt.Errorf("ppca: contribution rate %v outside (0, 1]", o.Contribution)
	}
	vals, vecs, err := linalg.EigenDesc(e.Cov)
	if err != nil {
		return nil, fmt.Errorf("ppca: %w", err)
	}
	for i := range vals {
		vals[i] = math.Max(vals[i], 0)
	}
	k := o.K
	if k == 0 {
		k = chooseK(vals, o.Contribution)
	}
	sigma2 := 0.0
	if k < p {
		for _, l := range vals[k:] {
			sigma2 += l
		}
		sigma2 /= float64(p - k)
	}
	for k > 0 && vals[k-1] <= sigma2 {
		k--
	}
	if k == 0 {
		return nil, fmt.Errorf("ppca: no component has an eigenvalue above the noise level σ² = %.4g (too little budget for this dimension?)", sigma2)
	}
	u := mat.DenseCopyOf(vecs.Slice(0, p, 0, k))
	w := mat.NewDense(p, k, nil)
	for j := 0; j < k; j++ {
		f := math.Sqrt(vals[j] - sigma2)
		for i := 0; i < p; i++ {
			w.Set(i, j, u.At(i, j)*f)
		}
	}
	return &Model{Mean: e.Mean, Eigenvalues: vals, Components: u, K: k, Sigma2: sigma2, W: w}, nil
}

// chooseK is the smallest k with cumulative contribution ≥ c.
func chooseK(vals []float64, c float64) int {
	total := 0.0
	for _, l := range vals {
		total += l
	}
	if total == 0 {
		return 1
	}
	acc := 0.0
	for i, l := range vals {
		acc += l
		if acc/total >= c-1e-12 {
			return i + 1
		}
	}
	return len(vals)
}

// Sample draws n synthetic rows from the model with s ~ N(0, I_k): pure
// post-processing of DP outputs. It is SampleStream written at once.
func (m *Model) Sample(n int, src *randx.Source) *mat.Dense {
	return m.collect(m.SampleStream(n, src))
}

// Reconstruct is the paper's steps 15–16: latent codes from the owner's
// real rows, s = (Λ_k − σ²I)^{-1/2} U_kᵀ(x − μ̂), so that
// x' = U_k U_kᵀ (x − μ̂) + μ̂ + ξ. Every output row is derived from a real
// record: NOT covered by DP. It is ReconstructStream written at once.
func (m *Model) Reconstruct(X *mat.Dense, src *randx.Source) *mat.Dense {
	n, p := X.Dims()
	real := func(lo, hi int, dst []float64) error {
		for i := lo; i < hi; i++ {
			copy(dst[(i-lo)*p:], X.RawRowView(i))
		}
		return nil
	}
	return m.collect(m.ReconstructStream(n, real, src))
}

func (m *Model) collect(g *RowStream) *mat.Dense {
	p := len(m.Mean)
	out := mat.NewDense(g.Len(), p, nil)
	for data := out.RawMatrix().Data; len(data) > 0; {
		r, err := g.Next(data)
		if err != nil || r == 0 {
			panic(fmt.Sprintf("ppca: writing %d rows stopped at %d: %v", g.Len(), g.Written(), err))
		}
		data = data[r*p:]
	}
	return out
}

func fillNormal(v []float64, src *randx.Source) {
	for i := range v {
		v[i] = src.NormFloat64()
	}
}
