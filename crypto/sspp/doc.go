// Package sspp implements two-party secure scalar products: Alice holds x,
// Bob holds y, and they end with additive shares u (Alice) and v (Bob) of
// x·y, learning nothing else about each other's vector (semi-honest
// parties). PDP-MVDS (Algorithm 1, step 2) uses them on 0/1 indicator
// vectors to count records with a = i and b = j across two data owners.
//
// Two protocols, the same result, different trust and cost:
//
//   - Goethals, Laur, Lipmaa & Mielikäinen, "On private scalar product
//     computation for privacy-preserving data mining", ICISC 2004: Alice
//     sends Enc(x_1..x_n) under her own Paillier key; Bob returns
//     Π Enc(x_i)^{y_i} · Enc(−s_B); Alice decrypts s_A = x·y − s_B. Shares
//     live in Z_N (u + v ≡ x·y mod N), or, with Bob's MaskBits option, are
//     integers with u + v = x·y exactly (statistical hiding). No third party.
//     Alice's encrypted vector is a reusable value: encrypt an indicator
//     vector once and reuse it against every partner vector. For 0/1 y, Bob
//     multiplies the selected ciphertexts (no exponentiation), in parallel.
//   - Du & Atallah, "Protocols for secure remote database access with
//     approximate matching" (2001), commodity-server scalar product: the
//     server S deals Ra, Rb and ra + rb = Ra·Rb; Alice sends x + Ra, Bob
//     sends y + Rb; u = ra − Ra·(y+Rb), v = (x+Ra)·y + rb. Arithmetic is in
//     Z_{2^64} (uint64 wrap-around): exact for any |x·y| < 2^63, and x + Ra
//     is perfectly hiding. Secure as long as S colludes with neither party
//     (the assumption PDP-MVDS already makes of S); S learns nothing about x,
//     y or the result. Each correlation is single-use. S sends each party a
//     32-byte ChaCha8 seed instead of the vector Ra or Rb.
//
// SumModN and SumMod64 reduce a pair of shares to the signed integer x·y.
//
// Note for the caller of Algorithm 1, step 3 (encrypting S_x and S_y under
// the shared key N'): only integer shares (Goethals with MaskBits) add up to
// x·y under another modulus; shares mod N or mod 2^64 sum to x·y plus an
// unknown multiple of the modulus.
//
// Nothing here does I/O; goroutines end before each call returns.
package sspp
