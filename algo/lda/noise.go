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
	// owner adds N(0, σ²/M) of its own plus its share, so every message
	// carries N(0, σ²) and the aggregate exactly N(0, σ²).
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

// OwnSigma is the standard deviation of the noise an owner draws itself:
// σ/√M in correlated mode, σ in independent mode.
func OwnSigma(mode NoiseMode, owners int, sigma float64) float64 {
	if mode == Correlated {
		return sigma / math.Sqrt(float64(owners))
	}
	return sigma
}

// ZeroSumShares draws parties vectors of the given length whose entries sum
// to zero across the parties, each entry N(0, shareSigma²): draw parties
// iid N(0, s²) values and subtract their mean, which leaves marginal
// variance s²·(parties−1)/parties, so s is scaled up accordingly (NOTES §2).
func ZeroSumShares(n *dp.Noiser, parties, length int, shareSigma float64) [][]float64 {
	if parties < 2 || length < 0 || !(shareSigma > 0) {
		panic(fmt.Sprintf("lda: ZeroSumShares(%d parties, length %d, σ=%v)", parties, length, shareSigma))
	}
	s := shareSigma * math.Sqrt(float64(parties)/float64(parties-1))
	out := make([][]float64, parties)
	for i := range out {
		out[i] = make([]float64, length)
	}
	for j := 0; j < length; j++ {
		mean := 0.0
		for i := range out {
			out[i][j] = n.Gaussian(s)
			mean += out[i][j]
		}
		mean /= float64(parties)
		for i := range out {
			out[i][j] -= mean
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
