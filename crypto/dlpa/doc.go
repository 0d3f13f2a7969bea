// Package dlpa implements the distributed Laplace perturbation of Rastogi &
// Nath ("Differentially private aggregation of distributed time-series with
// transformation and encryption", SIGMOD 2010), used by PDP-MVDS (Algorithm
// 1, step 7) to produce an encrypted Laplace noise C[η] that no party knows.
//
// Mathematics. If Y1..Y4 are independent N(0, λ/2) (variance λ/2), then
// Y1² + Y2² and Y3² + Y4² are independent exponentials of mean λ and
//
//	η = Y1² + Y2² − Y3² − Y4² ~ Lap(λ)   (density e^{−|x|/λ}/(2λ)).
//
// Each Y_j = Σ_k y_jk is a sum over the K parties. The paper's Table 1
// writes the share distribution as N(0, √(λ/2)), i.e. standard deviation
// √(λ/2) for the sum.
//
// Integers only. Here every share is an integer ŷ_jk drawn by an exact
// discrete Gaussian sampler (ShareLaw, DrawShare: variance λ/(2K) on the
// integers, through dp.Noiser.Shares), so the sum over parties is a
// discrete Gaussian of variance λ/2 (Kairouz, Liu & Steinke 2021) and
//
//	η̂ = Σ_j s_j (Σ_k ŷ_jk)²,  s = (+1, +1, −1, −1),
//
// is an integer, computed exactly under encryption: nothing is drawn in
// floating point, nothing is rounded, and the result is an integer count of
// the caller's grid steps. A caller adding η̂ to a statistic encodes the
// statistic as an integer count of the same steps.
//
// The law of η̂ is only approximately the discrete Laplace of scale λ. Its
// shape is right at scales of a few units and above (a KS test cannot tell
// it apart), but its probability mass function is rough at the unit scale:
// Y1² + Y2² only takes sums of two squares, and P(η̂ = e) follows the
// arithmetic of e (the shifted convolution of the sum-of-two-squares
// function), so neighbouring integers differ by factors up to about e²
// whatever λ. Pure DP needs a bounded ratio between neighbouring
// outcomes, so a release must not expose η̂ at the unit scale: draw it
// 2^FineBits times finer than the release's grid (λ = 2^FineBits·t) and
// round the noisy value to steps of 2^FineBits. Numerically (exact
// convolution, variance 500 to 8000), after averaging over windows of L
// integers the log-pmf stays within about 1.5/L of the Laplace slope
// (0.10 at L = 16, 0.005 at L = 256), i.e. ≈ 2·10^-5 at L = 2^16: the
// excess privacy loss of the rounded release.
//
// Encrypted computation. With
//
//	Σ_j s_j (Σ_k ŷ_jk)² = Σ_k Σ_j s_j ŷ_jk² + Σ_{k<l} Σ_j 2 s_j ŷ_jk ŷ_jl,
//
// round 1 (Party.Commit): party k sends SharesMessage = Enc(ŷ_1k..ŷ_4k)
// under the parties' shared key to every party l > k (directly or via S).
// Round 2 (Party.Contribute): party l sends S the single ciphertext
//
//	C_l = Π_j Enc(s_j ŷ_jl²) · Π_{k<l} Enc(ŷ_jk)^{2 s_j ŷ_jl}
//
// (a fresh encryption times homomorphic scalar products, hence rerandomized).
// S multiplies all C_l (Combine) and holds Enc(η̂).
//
// What each party learns. Party l sees Enc(ŷ_jk) of the parties k < l and
// S sees every C_l: only ciphertexts under the shared key, which reveal
// nothing (IND-CPA) as long as no set of key-share holders that could
// decrypt colludes. With the paper's pairwise 2-of-2 key shares, ANY TWO
// parties together can decrypt, so the secrecy of y_k assumes no two parties
// collude. After the joint decryption of (value + η̂) every party learns
// that sum, not η̂. However party k knows its own shares y_·k, so from its
// point of view the noise is η̂ conditioned on y_·k, which is NOT Laplace
// (it has the variance of only K−1 parties and a known offset): the
// Laplace guarantee holds against outsiders, and the privacy analysis of a
// protocol using DLPA must account for the insiders' knowledge.
//
// Nothing here does I/O or keeps goroutines.
package dlpa
