// Package paillier implements the Paillier cryptosystem (Paillier,
// EUROCRYPT 1999) on math/big, with the pieces PDP-MVDS needs: fast
// encryption, homomorphic operations, fixed-point encoding of signed reals,
// and shared decryption.
//
// Scheme. N = p·q with |p| = |q|, generator g = N+1, so (1+N)^m = 1 + mN
// mod N². Enc(m; r) = (1 + mN)·r^N mod N² for r ∈ Z*_N. Decryption uses the
// CRT over p² and q². Homomorphisms: Enc(a)·Enc(b) = Enc(a+b),
// Enc(a)^k = Enc(k·a) (Add, AddPlain, MulPlain, Neg, Sub), and
// Rerandomize multiplies by a fresh N-th residue. Plaintexts live in Z_N;
// Encoder maps signed reals to them in fixed point.
//
// Fast encryption. PublicKey.Precompute switches to the short-exponent
// randomness of Damgård, Jurik and Nielsen (IJIS 2010): r^N is replaced by
// hs^x, hs = h^N, with x of 2× the security level in bits, from a
// fixed-base table (15–35× faster than r^N at 2048 bits in our runs). This
// adds a short-exponent indistinguishability assumption, stated on
// Precompute.
// EncryptStandard always uses r^N.
//
// Shared decryption (the paper's "threshold Paillier", Fouque, Poupard &
// Stern 2000, where each pair of parties P_x, P_y holds λ_{x,y}, λ_{y,x}):
//
//   - Additive n-of-n (Deal, PrivateKey.ShareAdditive): the dealer picks
//     d ≡ 0 mod λ, d ≡ 1 mod N, so c^d = 1 + mN mod N², and splits d into n
//     integer shares of |d| + 128 bits (statistically hiding). Party i
//     sends c^{d_i}; the product of all n is c^d. A pair is n = 2.
//   - Threshold t-of-n (DealThreshold, PrivateKey.ShareThreshold): safe
//     primes, Shamir shares of d over Z_{N·p'q'}, Δ = n!, partial
//     decryptions with zero-knowledge proofs checked against verification
//     keys (Shoup 2000; Damgård & Jurik 2001).
//
// Combine refuses too few shares (ErrMissingShares) and rejects a product
// that is not of the form 1 + mN (ErrBadCombination). In the additive
// scheme, partial decryptions are not verifiable: the scheme is for
// semi-honest parties, as in the paper; a party that sends a wrong partial
// can change the result. The threshold scheme detects wrong partials.
//
// The dealer (Deal, DealThreshold) learns the factorisation of N and can
// decrypt everything alone. It must not be the semi-trusted third party S
// (which sees every ciphertext of Algorithm 1), and ideally is none of the
// data owners: an independent dealer that erases the private key. No
// dealer-free distributed key generation is implemented.
//
// Key sizes: GenerateKey, Deal and DealThreshold require N ≥ 2048 bits.
// GenerateInsecureTestKey, DealInsecureTest and DealThresholdInsecureTest
// accept ≥ 256 bits and are INSECURE: tests only.
//
// Randomness comes in as an io.Reader; NewReader adapts a *randx.Source.
// Nothing here does I/O or keeps goroutines.
package paillier
