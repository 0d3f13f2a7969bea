package lda

import (
	"fmt"
	"math"

	"github.com/dppub/dppub/dp"
)

// NoiseMode says how the owners' noise combines.
type NoiseMode string

const (
	// Correlated is the paper's scheme (§4.2.1): a dealer hands out zero-sum
	// shares ḡ_0..ḡ_M of variance (M−1)/M·σ² (ḡ_0 to the publisher), each
	// owner adds noise of variance σ²/M of its own plus its share, so every
	// message carries σ² and the aggregate exactly σ². All of it is
	// integer discrete Gaussian noise on the block's public grid
	// (BlockNoise, ZeroSumShares), its variance inflated by a factor
	// κ² ≈ 1 + 2^-19 that pays for the rounding.
	Correlated NoiseMode = "correlated"
	// Independent: every owner adds the full N(0, σ²) itself and no dealer
	// is needed; the aggregate carries N(0, M·σ²).
	Independent NoiseMode = "independent"
)

// ShareSigma is the standard deviation of each zero-sum share for M owners
// (every share, the publisher's included): σ·√((M−1)/M).
func ShareSigma(owners int, sigma float64) float64 {
	return sigma * math.Sqrt(float64(owners-1)/float64(owners))
}

// BlockNoise is how one block of an owner's message (class sums, class
// counts or the upper triangle of Σxxᵀ) is noised on a public grid: the
// owner sends g·(round(x/g) + K + G), K its own integer noise and G its
// integer zero-sum share (0 without a dealer), so every value the
// publisher receives is a multiple of g and a function of the rounded
// statistic plus integer noise.
type BlockNoise struct {
	// Plan fixes the grid g and the discrete Gaussian everything is drawn
	// from. Without shares (one owner, or independent noise) it is the
	// owner's whole noise, dp.PlanGaussian(l2, σ, dim): a grid release. With
	// shares it is the law of one zero-sum share, dp.PlanGaussian(l2,
	// ShareSigma(M, σ), dim), of variance s² = κ²(M−1)σ²/M in grid units²,
	// κ = (l2 + g√dim)/l2 (times dp's profile margin) paying for the
	// rounding of round(x/g), whose L2 sensitivity is at most l2/g + √dim.
	Plan dp.GridNoise
	// OwnParts splits Plan for the owner's own noise: K is
	// dp.Noiser.Shares(Plan, OwnParts), a discrete Gaussian of variance
	// s²/OwnParts. 1 without shares; M−1 with them, so K has variance
	// κ²σ²/M, the paper's σ²/M scaled like the share, and K + G has
	// κ²σ² (every message carries the block's σ, inflated by κ for the
	// rounding, exactly as dp.PlanGaussian inflates a single release).
	OwnParts int
	// Shared reports whether the dealer hands out zero-sum shares.
	Shared bool
}

// Own draws an owner's own noise K for n coordinates of the block.
func (b BlockNoise) Own(nz *dp.Noiser, n int) []int64 {
	out := make([]int64, n)
	nz.Shares(b.Plan, b.OwnParts, out)
	return out
}

// Release replaces every x of v by g·(round(x/g) + K_i + share_i), with
// K the owner's own noise (Own) and share its zero-sum share in grid
// steps (nil without a dealer): the owner's message for the block.
func (b BlockNoise) Release(nz *dp.Noiser, v []float64, share []int64) {
	if share == nil && b.OwnParts == 1 {
		nz.Release(b.Plan, v) // a plain grid release
		return
	}
	own := b.Own(nz, len(v))
	for i, x := range v {
		k := own[i]
		if share != nil {
			k += share[i]
		}
		v[i] = b.Plan.Perturb(x, k)
	}
}

// NewBlockNoise builds the grid noise of a block of dim coordinates with
// L2 sensitivity l2 whose messages carry σ (the plan's SumSigma,
// CountSigma or SecondSigma), for the given noise mode and owners.
func NewBlockNoise(mode NoiseMode, owners int, l2, sigma float64, dim int) (BlockNoise, error) {
	if mode == Correlated && owners >= 2 {
		pl, err := dp.PlanGaussian(l2, ShareSigma(owners, sigma), dim)
		if err != nil {
			return BlockNoise{}, fmt.Errorf("lda: %w", err)
		}
		return BlockNoise{Plan: pl, OwnParts: owners - 1, Shared: true}, nil
	}
	pl, err := dp.PlanGaussian(l2, sigma, dim)
	if err != nil {
		return BlockNoise{}, fmt.Errorf("lda: %w", err)
	}
	return BlockNoise{Plan: pl, OwnParts: 1}, nil
}

// SumsNoise, CountsNoise and SecondNoise are the grid noise of the plan's
// three blocks (Classes·P class sums at SumsL2, Classes counts at
// CountsL2, UpperLen(P) entries of Σxxᵀ at SecondL2). CountsNoise is
// unusable (zero) when the counts are released exactly. Every role
// derives them from the public options alone.
func (pl *Plan) SumsNoise() (BlockNoise, error) {
	o := pl.Options
	return NewBlockNoise(o.Noise, o.Owners, SumsL2, pl.SumSigma, o.Classes*o.P)
}

// CountsNoise: see SumsNoise.
func (pl *Plan) CountsNoise() (BlockNoise, error) {
	o := pl.Options
	if pl.CountSigma == 0 {
		return BlockNoise{}, nil
	}
	return NewBlockNoise(o.Noise, o.Owners, CountsL2, pl.CountSigma, o.Classes)
}

// SecondNoise: see SumsNoise.
func (pl *Plan) SecondNoise() (BlockNoise, error) {
	o := pl.Options
	return NewBlockNoise(o.Noise, o.Owners, SecondL2, pl.SecondSigma, UpperLen(o.P))
}

// ZeroSumShares draws parties integer vectors of the given length, in grid
// steps of plan, whose entries sum to exactly zero across the parties.
//
// Construction: P = parties iid discrete Gaussians Z_1..Z_P of variance
// s²/(P(P−1)) (dp.Noiser.Shares with P(P−1) parts, s² the plan's
// variance in grid units²) and G_i = P·Z_i − Σ_j Z_j. Then Σ_i G_i = 0 in
// the integers, Var(G_i) = P(P−1)·s²/(P(P−1)) = s² and Cov(G_i, G_j) =
// −s²/(P−1): exactly the covariance of the real-valued construction this
// replaces (P iid values minus their mean, scaled to variance s²), so
// ViewFactor and the calibration built on it hold unchanged. (Giving the
// last party minus the sum of the others would also sum to zero, but its
// share would have P−1 times the others' variance and the correlations
// would no longer be exchangeable, changing ViewFactor.) All shares are
// congruent modulo P (to −ΣZ); the publisher learns that residue from its
// own share, but every owner adds its own discrete Gaussian of standard
// deviation u = σ_own/g grid steps (about 2^20·σ_own/Δ₂·√dim on
// dp.PlanGaussian's grid), which is uniform modulo P to within about
// P·exp(−2π²u²/P²), so the residue says nothing about the data. With
// Mul-LDA-DP's P = M+1, every share has the plan's variance s² =
// κ²(M−1)σ²/M (NewBlockNoise). The privacy analysis of the correlated
// view (ViewFactor) is the Gaussian one, applied to these discrete
// Gaussians with the same covariances.
func ZeroSumShares(n *dp.Noiser, plan dp.GridNoise, parties, length int) [][]int64 {
	if parties < 2 || length < 0 {
		panic(fmt.Sprintf("lda: ZeroSumShares(%d parties, length %d)", parties, length))
	}
	out := make([][]int64, parties)
	for i := range out {
		out[i] = make([]int64, length)
	}
	z := make([]int64, parties)
	for j := 0; j < length; j++ {
		n.Shares(plan, parties*(parties-1), z)
		var sum int64
		for _, v := range z {
			sum += v
		}
		for i := range out {
			out[i][j] = int64(parties)*z[i] - sum
		}
	}
	return out
}

// ViewFactor is r(M) = σ_eff/σ for the publisher's view in correlated mode.
//
// The publisher sees every owner's message (noise own_j + ḡ_j) and its own
// share ḡ_0. DP compares the view on neighbouring datasets that differ in
// one record of owner m, everything else fixed, so the noise protecting
// owner m is that of its message conditioned on all the other noise the
// publisher observes. Since Σ_j (own_j + ḡ_j) + ḡ_0 = Σ_j own_j =: S,
// Var(own_m + ḡ_m | rest) = Var(S | ḡ_0, T) with T = Σ_{j≠m}(own_j + ḡ_j)
// (by exchangeability the best linear predictor only uses ḡ_0 and T). With
// τ² = σ²/M, share variance v = (M−1)σ²/M, share covariance c = −v/M and
// K = M−1:
//
//	Var(U=ḡ_0) = v, Var(T) = K(τ²+v) + K(K−1)c, Cov(U,T) = Kc, Cov(S,T) = Kτ²
//	Var(S | U, T) = σ² − (Kτ²)²·Var(U) / (Var(U)Var(T) − Cov(U,T)²)
//
// r(1) = 1, r(2) = √(5/7) ≈ 0.845, r(5) ≈ 0.769, r(10) ≈ 0.740, and
// r(M) → 1/√2. Independent noise has no shares, so its factor is 1.
func ViewFactor(owners int) float64 {
	if owners < 1 {
		panic(fmt.Sprintf("lda: ViewFactor(%d owners)", owners))
	}
	if owners == 1 {
		return 1
	}
	m := float64(owners)
	k := m - 1
	tau2, v := 1/m, (m-1)/m
	c := -v / m
	varU, varT, covUT, covST := v, k*(tau2+v)+k*(k-1)*c, k*c, k*tau2
	return math.Sqrt(1 - covST*covST*varU/(varU*varT-covUT*covUT))
}

// CollusionFactor is σ_eff/σ for one owner when the publisher colludes with
// the dealer, or with the other M−1 owners: either coalition learns the
// owner's share (the dealer drew it; the others know every share but this
// one, and the shares sum to zero), leaving only its own N(0, σ²/M).
func CollusionFactor(mode NoiseMode, owners int) float64 {
	if mode == Correlated {
		return 1 / math.Sqrt(float64(owners))
	}
	return 1
}
