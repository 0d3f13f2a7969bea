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
// Each Y_j = Σ_k y_jk is a sum over the K parties, party k drawing
// y_jk ~ N(0, λ/(2K)) (Share, DrawShare). The paper's Table 1 writes the
// distribution as N(0, √(λ/2)), i.e. standard deviation √(λ/2).
//
// Encrypted computation. With ŷ_jk = round(y_jk·2^f) (f = FracBits) and
// s = (+1, +1, −1, −1),
//
//	Σ_j s_j (Σ_k ŷ_jk)² = Σ_k Σ_j s_j ŷ_jk² + Σ_{k<l} Σ_j 2 s_j ŷ_jk ŷ_jl.
//
// Round 1 (Party.Commit): party k sends SharesMessage = Enc(ŷ_1k..ŷ_4k)
// under the parties' shared key to every party l > k (directly or via S).
// Round 2 (Party.Contribute): party l sends S the single ciphertext
//
//	C_l = Π_j Enc(s_j ŷ_jl²) · Π_{k<l} Enc(ŷ_jk)^{2 s_j ŷ_jl}
//
// (a fresh encryption times homomorphic scalar products, hence rerandomized).
// S multiplies all C_l (Combine) and holds Enc(η̂) with η̂ = η·2^{2f}
// exactly for the rounded shares: a product of two f-bit fixed-point
// numbers has 2f fractional bits, and no rescaling happens under
// encryption. Decode the joint decryption with ResultEncoder (2f
// fractional bits); to add η to a value v, encode v with 2f fractional bits
// too. Rounding error: |η − η̂/2^{2f}| ≲ 2^{−f}·Σ_j |Y_j|·K.
//
// What each party learns. Party l sees Enc(ŷ_jk) of the parties k < l and
// S sees every C_l: only ciphertexts under the shared key, which reveal
// nothing (IND-CPA) as long as no set of key-share holders that could
// decrypt colludes. With the paper's pairwise 2-of-2 key shares, ANY TWO
// parties together can decrypt, so the secrecy of y_k assumes no two parties
// collude. After the joint decryption of (value + η) every party learns
// that sum, not η. However party k knows its own shares y_·k, so from its
// point of view the noise is η conditioned on y_·k, which is NOT Lap(λ)
// (it has the variance of only K−1 parties and a known offset): the Lap(λ)
// guarantee holds against outsiders, and the privacy analysis of a
// protocol using DLPA must account for the insiders' knowledge. Noise is
// drawn in floating point (randx NormFloat64) and then rounded, so η is a
// discretised, approximately-Laplace value; see the dp package for
// hardened single-party samplers.
//
// Nothing here does I/O or keeps goroutines.
package dlpa
