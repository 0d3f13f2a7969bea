package dp

import (
	"fmt"
	"math"
	"math/big"

	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// Noiser releases noisy values from a randx.Source. It is safe for
// concurrent use when its source is secure.
//
// Every release goes through a GridNoise plan: the true value x is rounded
// to a public power-of-two grid g and the output is g·(round(x/g) + K) with
// K an integer drawn exactly (discrete Laplace or discrete Gaussian, see
// discrete.go). The output is therefore a function of the integer
// round(x/g) + K alone and carries none of x's low-order bits (the
// floating-point attack of Mironov 2012 needs exactly those bits). No
// exported function returns continuous noise to be added later; the only
// noise handed out is integer shares on a plan's grid, for protocols that
// add them to fixed-point statistics exactly.
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

// gridPrecisionBits sets the grid relative to the sensitivity: rounding
// every coordinate moves a release by at most one grid step g, and
// g ≤ Δ/(d·2^20) (Laplace, d coordinates, L1) or g ≤ Δ₂/(√d·2^20)
// (Gaussian, L2) keeps that within 2^-20 of the sensitivity. The plans add
// it to the sensitivity exactly, so it costs noise, never privacy.
const gridPrecisionBits = 20

// maxLaplaceUnits and maxGaussianUnits bound the noise scale in grid units
// so that draws stay far inside int64; a plan that would exceed them uses
// a coarser grid (and accounts for it).
const (
	maxLaplaceUnits  = 1 << 48
	maxGaussianUnits = 1 << 40
	// maxUnitsLimit refuses plans whose noise, whatever the grid, stays
	// above 2^56 grid steps: d/ε (Laplace) or σ√d/Δ₂ (Gaussian) that large
	// means noise astronomically above the sensitivity, a caller's error.
	maxUnitsLimit = 1 << 56
)

// gaussianProfileMargin inflates σ by 2^-12 relative. The discrete
// Gaussian satisfies the zCDP guarantee of the continuous one exactly
// (Canonne, Kamath & Steinke 2020, Thm. 4 and §4); its (ε, δ) profile
// differs from the continuous one by the discretisation of its tails, a
// relative change below 2^-18 at σ ≥ 2^20 grid steps, which this margin
// more than covers (docs/privacy-design.md).
const gaussianProfileMargin = 1 + 1.0/(1<<12)

// NoiseKind names the discrete law of a GridNoise.
type NoiseKind int

const (
	// DiscreteLaplace is P(K = k) ∝ exp(−|k|/t).
	DiscreteLaplace NoiseKind = iota + 1
	// DiscreteGaussian is P(K = k) ∝ exp(−k²/(2s²)).
	DiscreteGaussian
)

func (k NoiseKind) String() string {
	return EnumName("NoiseKind", int(k), "", "discrete-laplace", "discrete-gaussian")
}

// GridNoise is a calibrated release on a public grid: the grid step g
// (a power of two, chosen from public parameters only), the discrete law
// and its scale in grid units. Build it with PlanLaplace or PlanGaussian.
type GridNoise struct {
	Kind NoiseKind
	// Grid is the step g: every released value is an integer multiple of g.
	Grid float64
	// t is the discrete Laplace scale in grid units.
	t uint64
	// sigma2 is the discrete Gaussian variance in grid units².
	sigma2 *big.Rat
	// scale is the effective b (Laplace) or σ (Gaussian) in value units.
	scale float64
	// integer marks a plan on the integer grid for integer values
	// (PlanGaussianInteger): Snap refuses a value it would round.
	integer bool
}

// PlanLaplace calibrates ε-DP discrete Laplace noise for a release of dim
// coordinates whose L1 sensitivity is l1: with g the grid and rounding
// adding at most g per coordinate, the integer vector round(x/g) has L1
// sensitivity at most l1/g + dim, so the scale t = ⌈(l1 + dim·g)/(ε·g)⌉ + 1
// grid steps gives ε-DP (the discrete Laplace mechanism: Ghosh, Roughgarden
// & Sundararajan 2009; CKS 2020 §2).
func PlanLaplace(l1, eps float64, dim int) (GridNoise, error) {
	if err := checkPlan("laplace plan", l1, "epsilon", eps, dim); err != nil {
		return GridNoise{}, err
	}
	// As g grows the scale in steps falls towards d/ε, never below it.
	if floor := float64(dim) / eps; floor > maxUnitsLimit {
		return GridNoise{}, fmt.Errorf("dp: laplace plan: %d coordinates at ε=%v need noise of %.3g grid steps", dim, eps, floor)
	}
	for g := pow2Floor(l1 / float64(dim) / (1 << gridPrecisionBits)); ; g *= 2 {
		units := math.Ceil((l1+float64(dim)*g)/eps/g) + 1
		if units <= maxLaplaceUnits || units <= 2*float64(dim)/eps+2 {
			return GridNoise{Kind: DiscreteLaplace, Grid: g, t: uint64(units), scale: units * g}, nil
		}
	}
}

// PlanGaussian calibrates discrete Gaussian noise for a release of dim
// coordinates with L2 sensitivity l2 and a continuous-Gaussian σ chosen by
// the caller for l2 (analytic, classic or zCDP calibration): the grid's
// rounding moves the release by at most g√dim in L2, so σ is scaled by
// (l2 + g√dim)/l2, which keeps the ratio sensitivity/σ — and with it ρ =
// Δ²/(2σ²) of the discrete Gaussian (CKS 2020, Thm. 4 and Thm. 14) and the
// (ε, δ) profile (with gaussianProfileMargin) — of the continuous
// mechanism the caller calibrated.
func PlanGaussian(l2, sigma float64, dim int) (GridNoise, error) {
	if err := checkPlan("gaussian plan", l2, "sigma", sigma, dim); err != nil {
		return GridNoise{}, err
	}
	root := math.Sqrt(float64(dim))
	// As g grows the scale in steps falls towards σ√d/Δ₂, never below it.
	floor := sigma * root / l2 * gaussianProfileMargin
	if floor > maxUnitsLimit {
		return GridNoise{}, fmt.Errorf("dp: gaussian plan: σ=%v is %.3g grid steps over %d coordinates of sensitivity %v", sigma, floor, dim, l2)
	}
	for g := pow2Floor(l2 / root / (1 << gridPrecisionBits)); ; g *= 2 {
		s := sigma * (l2 + g*root) / l2 * gaussianProfileMargin
		units := s / g
		if units <= maxGaussianUnits || units <= 2*floor {
			v := units * units
			sigma2 := new(big.Rat).SetFloat64(math.Nextafter(v, math.Inf(1)))
			return GridNoise{Kind: DiscreteGaussian, Grid: g, sigma2: sigma2, scale: s}, nil
		}
	}
}

// PlanGaussianInteger calibrates discrete Gaussian noise on the integer
// grid (g = 1) for a release of dim integer values — counts — of L2
// sensitivity l2 with the continuous-Gaussian σ the caller chose for l2.
// An integer is on the grid already, so nothing is rounded and nothing is
// added to the sensitivity: the release is the discrete Gaussian
// mechanism itself, ρ = l2²/(2σ²)-zCDP exactly (CKS 2020, Thm. 4). σ
// carries the same profile margin as PlanGaussian's, for the (ε, δ)
// profile. Releasing a value that is not an integer with this plan is a
// programmer's error (Snap panics): rounding it would move it by up to ½,
// which the plan does not pay for.
func PlanGaussianInteger(l2, sigma float64, dim int) (GridNoise, error) {
	if err := checkPlan("integer gaussian plan", l2, "sigma", sigma, dim); err != nil {
		return GridNoise{}, err
	}
	s := sigma * gaussianProfileMargin
	if s > maxGaussianUnits {
		return GridNoise{}, fmt.Errorf("dp: integer gaussian plan: σ=%v is beyond %d grid steps", sigma, maxGaussianUnits)
	}
	sigma2 := new(big.Rat).SetFloat64(math.Nextafter(s*s, math.Inf(1)))
	return GridNoise{Kind: DiscreteGaussian, Grid: 1, sigma2: sigma2, scale: s, integer: true}, nil
}

// Scale is the effective noise scale in value units: the Laplace b or the
// Gaussian σ actually drawn (slightly above the nominal one: the grid's
// rounding is paid for in noise).
func (p GridNoise) Scale() float64 { return p.scale }

// Units is the noise scale in grid steps (t or σ/g).
func (p GridNoise) Units() float64 { return p.scale / p.Grid }

// Snap returns round(x/g), the integer (as a float64) that the release of x
// perturbs. x/g is exact: g is a power of two.
func (p GridNoise) Snap(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		panic(fmt.Sprintf("dp: cannot release the non-finite value %v", x))
	}
	if p.integer && x != math.Trunc(x) {
		panic(fmt.Sprintf("dp: an integer-grid plan cannot release the non-integer %v", x))
	}
	return math.Round(x / p.Grid)
}

// Perturb returns g·(round(x/g) + k): x on the grid, moved by k grid
// steps of integer noise (the plan's own draw, or the sum of protocol
// shares). Adding k and scaling by the power of two g are exact, or
// rounded as a function of the noisy integer alone beyond 2^53.
func (p GridNoise) Perturb(x float64, k int64) float64 {
	return (p.Snap(x) + float64(k)) * p.Grid
}

// sampler returns a draw function for this plan; it holds scratch space
// and must not be shared between goroutines.
func (p GridNoise) sampler(src *randx.Source) func() int64 {
	switch p.Kind {
	case DiscreteLaplace:
		return func() int64 { return discreteLaplace(src, p.t) }
	case DiscreteGaussian:
		g := newDiscreteGaussian(p.sigma2)
		return func() int64 { return g.draw(src) }
	}
	panic("dp: GridNoise not built by PlanLaplace or PlanGaussian")
}

// Release replaces every value x of the parts (together one release of the
// plan's dim coordinates) by g·(round(x/g) + K), K drawn from the plan's
// discrete law. Adding the integer K to the integer round(x/g) and scaling
// by the power of two g are exact, or rounded as a function of the noisy
// integer alone when it exceeds 2^53.
func (n *Noiser) Release(p GridNoise, parts ...[]float64) {
	draw := p.sampler(n.src)
	for _, v := range parts {
		for i, x := range v {
			v[i] = p.Perturb(x, draw())
		}
	}
}

// ReleaseSym releases the upper triangle of m (diagonal included, the
// p(p+1)/2 coordinates the plan must be built for) and mirrors it.
func (n *Noiser) ReleaseSym(p GridNoise, m *mat.SymDense) {
	upper := UpperTriangle(m)
	n.Release(p, upper)
	SetUpperTriangle(m, upper)
}

// ReleaseLaplace releases the parts (one release of L1 sensitivity l1
// across all their coordinates) with ε-DP discrete Laplace noise on a grid
// (PlanLaplace). It panics on invalid parameters, which callers validate.
func (n *Noiser) ReleaseLaplace(l1, eps float64, parts ...[]float64) {
	if d := totalLen(parts); d > 0 {
		n.Release(mustPlan(PlanLaplace(l1, eps, d)), parts...)
	}
}

// ReleaseGaussian releases the parts (one release of L2 sensitivity l2)
// with discrete Gaussian noise of σ calibrated by the caller for l2
// (PlanGaussian). It panics on invalid parameters.
func (n *Noiser) ReleaseGaussian(l2, sigma float64, parts ...[]float64) {
	if d := totalLen(parts); d > 0 {
		n.Release(mustPlan(PlanGaussian(l2, sigma, d)), parts...)
	}
}

// ReleaseLaplaceSym is ReleaseLaplace on the upper triangle of m, whose L1
// sensitivity (over the p(p+1)/2 upper entries) is l1.
func (n *Noiser) ReleaseLaplaceSym(m *mat.SymDense, l1, eps float64) {
	n.ReleaseSym(mustPlan(PlanLaplace(l1, eps, UpperTriangleLen(m.SymmetricDim()))), m)
}

// ReleaseGaussianSym is ReleaseGaussian on the upper triangle of m, whose
// L2 sensitivity (over the upper entries) is l2.
func (n *Noiser) ReleaseGaussianSym(m *mat.SymDense, l2, sigma float64) {
	n.ReleaseSym(mustPlan(PlanGaussian(l2, sigma, UpperTriangleLen(m.SymmetricDim()))), m)
}

// mustPlan panics on a plan error: the convenience releases take
// parameters their callers have validated.
func mustPlan(p GridNoise, err error) GridNoise {
	if err != nil {
		panic(err)
	}
	return p
}

// Shares fills out with one contributor's integer shares, in grid steps, of
// the plan's noise for len(out) coordinates, such that the sum of parts
// independent contributors' shares has the plan's law:
//   - discrete Laplace: each share is the difference of two Pólya
//     NB(1/parts, e^{−1/t}) draws, and the sum of parts of them is
//     exactly discrete Laplace of scale t (infinite divisibility);
//   - discrete Gaussian: each share is discrete Gaussian of variance
//     s²/parts; the sum of parts of them is within
//     τ = 10·Σ_{k<parts} exp(−2π²(s²/parts)·k/(k+1)) of the discrete
//     Gaussian of variance s² in the sense of Kairouz, Liu & Steinke,
//     "The Distributed Discrete Gaussian Mechanism" (ICML 2021), Thm. 1 —
//     a τ below 10^-1000 at the grids of PlanGaussian.
//
// Protocols add the shares to fixed-point statistics round(x/g) exactly
// (see GridNoise.Snap); with parts = 1 a share is the plan's noise itself.
func (n *Noiser) Shares(p GridNoise, parts int, out []int64) {
	if parts < 1 {
		panic(fmt.Sprintf("dp: shares split into %d parts", parts))
	}
	switch {
	case parts == 1:
		draw := p.sampler(n.src)
		for i := range out {
			out[i] = draw()
		}
	case p.Kind == DiscreteLaplace:
		r := 1 / float64(parts)
		for i := range out {
			out[i] = polya(n.src, r, p.t) - polya(n.src, r, p.t)
		}
	case p.Kind == DiscreteGaussian:
		g := newDiscreteGaussian(new(big.Rat).Quo(p.sigma2, new(big.Rat).SetInt64(int64(parts))))
		for i := range out {
			out[i] = g.draw(n.src)
		}
	default:
		panic("dp: GridNoise not built by PlanLaplace or PlanGaussian")
	}
}

// UpperTriangleLen is the number of entries released when a p×p symmetric
// matrix is noised on its upper triangle: p(p+1)/2.
func UpperTriangleLen(p int) int { return p * (p + 1) / 2 }

// UpperTriangle returns the upper triangle of m row by row, diagonal
// included.
func UpperTriangle(m *mat.SymDense) []float64 {
	p := m.SymmetricDim()
	out := make([]float64, 0, UpperTriangleLen(p))
	for i := 0; i < p; i++ {
		for j := i; j < p; j++ {
			out = append(out, m.At(i, j))
		}
	}
	return out
}

// SetUpperTriangle writes v (as UpperTriangle orders it) into m, mirrored.
func SetUpperTriangle(m *mat.SymDense, v []float64) {
	p, k := m.SymmetricDim(), 0
	for i := 0; i < p; i++ {
		for j := i; j < p; j++ {
			m.SetSym(i, j, v[k])
			k++
		}
	}
}

func totalLen(parts [][]float64) int {
	n := 0
	for _, v := range parts {
		n += len(v)
	}
	return n
}

// pow2Floor returns the largest power of two ≤ x (x > 0), clamped to the
// normal float64 range.
func pow2Floor(x float64) float64 {
	if x < 0x1p-1000 {
		return 0x1p-1000
	}
	_, exp := math.Frexp(x)
	return math.Ldexp(1, exp-1)
}
