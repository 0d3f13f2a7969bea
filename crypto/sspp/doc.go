// Package sspp is the share algebra of PDP-MVDS's secure scalar products
// (method/pdpmvds/roles): pure steps over numbers, words and ciphertexts, in
// the style of lattigo's multiparty protocol objects. Nothing here knows
// roles, messages or transports: the caller moves the values between
// parties, and every random draw comes from a *randx.Source argument (in
// a fixed order, so a seeded run is reproducible for a given workers
// bound).
//
// Two protocols give two parties additive shares of the counts
// N_{i,j} = #{records with Alice's value i and Bob's value j}, i.e. of
// the scalar products of their one-hot indicator vectors, and a sign step
// turns shares of t into the sign of t for a third party's aggregate.
//
// # Packed Goethals scalar product (Paillier)
//
// Goethals, Laur, Lipmaa & Mielikäinen (ICISC 2004) under Alice's own
// Paillier key, with the indicator vectors packed into plaintext slots
// (Packing, Layout): EncryptOneHots (Alice), optionally Select (a middle
// party, for products over more than two parties), Reply (Bob: homomorphic
// dot product and masks), DecryptReplies (Alice). Shares are integers —
// Alice's N − m, Bob's m — with u + v = N exactly, so they can be
// re-encrypted under another key. Alice learns N − m (statistically
// hiding to 2^−σ per digit, m uniform on σ + L bits); Bob learns nothing
// (semantic security). BlindSigns, AbsSum and DecodeSigns are Algorithm
// 1's sign step under the parties' shared key.
//
// # Commodity-server scalar product (Du & Atallah)
//
// Du & Atallah (2001), in matrix form over Z_{2^64} (uint64 wrap-around):
// a server S that colludes with neither party deals masks as AES-CTR seeds
// (NewSeed, Expand) and a correction (Correction); A sends U + Ra, B sends
// Z + Rb (MaskWords, MaskOneHot), both uniform whatever U and Z are; then
// ShareA and ShareB give u + v = UᵀZ (Sum) or, per record, U_r ⊗ Z_r (Row)
// mod 2^64. Nobody learns anything but its own uniformly random share.
// SignQuery, SignBits and AbsShare are the sign step on additive shares;
// SplitWords shares a vector among several holders.
//
// Nothing here does I/O; goroutines end before each call returns.
package sspp
