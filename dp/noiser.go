package dp

import (
	"math"

	"github.com/dppub/dppub/randx"
	"github.com/google/differential-privacy/go/v3/noise"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Noiser draws noise from a randx.Source. It is safe for concurrent use when
// its source is secure.
type Noiser struct {
	src *randx.Source
}

// NewNoiser returns a Noiser over src; a nil src means randx.NewSecure().
func NewNoiser(src *randx.Source) *Noiser {
	if src == nil {
		src = randx.NewSecure()
	}
	return &Noiser{src: src}
}

// Source returns the underlying randomness.
func (n *Noiser) Source() *randx.Source { return n.src }

// googleGaussianUnit is Google's σ for (l0=1, lInf=1, ε=1, δ=1e-5). Their
// σ is linear in the sensitivity, so a target σ is reached by scaling lInf.
var googleGaussianUnit = noise.SigmaForGaussian(1, 1, 1, 1e-5)

// Laplace returns one draw from Laplace(0, b).
func (n *Noiser) Laplace(b float64) float64 {
	if b <= 0 {
		panic("dp: Laplace scale must be positive")
	}
	if n.src.IsSecure() {
		// λ = l0·lInf/ε = b for (l0=1, lInf=b, ε=1).
		v, err := noise.Laplace().AddNoiseFloat64(0, 1, b, 1, 0)
		if err != nil {
			panic("dp: google laplace: " + err.Error())
		}
		return v
	}
	u := n.src.Float64() - 0.5
	return -b * math.Copysign(1, u) * math.Log1p(-2*math.Abs(u))
}

// Gaussian returns one draw from N(0, σ²).
func (n *Noiser) Gaussian(sigma float64) float64 {
	if sigma <= 0 {
		panic("dp: Gaussian sigma must be positive")
	}
	if n.src.IsSecure() {
		// Google's σ search is accurate to 1e-3 relative; scaling up by
		// 1.001 keeps the drawn σ at or above the target.
		v, err := noise.Gaussian().AddNoiseFloat64(0, 1, 1.001*sigma/googleGaussianUnit, 1, 1e-5)
		if err != nil {
			panic("dp: google gaussian: " + err.Error())
		}
		return v
	}
	return sigma * n.src.NormFloat64()
}

// Gamma returns one draw from Gamma(shape, scale). Used to split Laplace
// noise into infinitely divisible shares: Lap(b) = Σ_{i=1}^m (G_i − G'_i)
// with G, G' ~ Gamma(1/m, b) (Kotz, Kozubowski & Podgórski 2001).
func (n *Noiser) Gamma(shape, scale float64) float64 {
	return distuv.Gamma{Alpha: shape, Beta: 1 / scale, Src: n.src}.Rand()
}

// AddLaplace adds iid Laplace(0, b) to every element of v.
func (n *Noiser) AddLaplace(v []float64, b float64) {
	for i := range v {
		v[i] += n.Laplace(b)
	}
}

// AddGaussian adds iid N(0, σ²) to every element of v.
func (n *Noiser) AddGaussian(v []float64, sigma float64) {
	for i := range v {
		v[i] += n.Gaussian(sigma)
	}
}

// AddSymmetric adds noise drawn by draw to the upper triangle of m
// (diagonal included) and mirrors it, so the result stays symmetric and the
// released vector is the p(p+1)/2 upper-triangle entries.
func (n *Noiser) AddSymmetric(m *mat.SymDense, draw func() float64) {
	p := m.SymmetricDim()
	for i := 0; i < p; i++ {
		for j := i; j < p; j++ {
			m.SetSym(i, j, m.At(i, j)+draw())
		}
	}
}

// AddLaplaceSym adds Laplace(0, b) to the upper triangle of m and mirrors it.
func (n *Noiser) AddLaplaceSym(m *mat.SymDense, b float64) {
	n.AddSymmetric(m, func() float64 { return n.Laplace(b) })
}

// AddGaussianSym adds N(0, σ²) to the upper triangle of m and mirrors it.
func (n *Noiser) AddGaussianSym(m *mat.SymDense, sigma float64) {
	n.AddSymmetric(m, func() float64 { return n.Gaussian(sigma) })
}

// UpperTriangleLen is the number of entries released when a p×p symmetric
// matrix is noised on its upper triangle: p(p+1)/2.
func UpperTriangleLen(p int) int { return p * (p + 1) / 2 }
