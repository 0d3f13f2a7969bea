package paillier

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"math/big"
	"sort"
)

// DealThreshold generates a fresh key of bits bits (≥ MinBits) from safe
// primes and shares its decryption exponent t-of-n (Threshold scheme).
// Safe-prime generation dominates: about 1–2 s at 2048 bits (it varies). The
// dealer caveats of Deal apply.
func DealThreshold(random io.Reader, bits, threshold, parties int) (*PublicKey, []*KeyShare, error) {
	if bits < MinBits {
		return nil, nil, fmt.Errorf("paillier: key size %d bits below the minimum %d (use DealThresholdInsecureTest in tests)", bits, MinBits)
	}
	return dealThreshold(random, bits, threshold, parties)
}

// DealThresholdInsecureTest is DealThreshold without the size floor
// (≥ MinInsecureTestBits). INSECURE below MinBits: tests only.
func DealThresholdInsecureTest(random io.Reader, bits, threshold, parties int) (*PublicKey, []*KeyShare, error) {
	if bits < MinInsecureTestBits {
		return nil, nil, fmt.Errorf("paillier: test key size %d bits below %d", bits, MinInsecureTestBits)
	}
	return dealThreshold(random, bits, threshold, parties)
}

func dealThreshold(random io.Reader, bits, threshold, parties int) (*PublicKey, []*KeyShare, error) {
	if err := checkParties(threshold, parties); err != nil {
		return nil, nil, err
	}
	sk, err := generateKey(random, bits, true)
	if err != nil {
		return nil, nil, err
	}
	shares, err := sk.ShareThreshold(random, threshold, parties)
	if err != nil {
		return nil, nil, err
	}
	return sk.Public(), shares, nil
}

// ShareThreshold shares this key's decryption exponent t-of-n: with
// p = 2p'+1, q = 2q'+1 and m = p'q', d ≡ 0 mod m and d ≡ 1 mod N is the
// constant term of a random polynomial f of degree t−1 over Z_{N·m}; party i
// gets s_i = f(i). The key must have been generated from safe primes.
//
// Partial decryption: c_i = c^{2Δ s_i} with Δ = n!, plus a proof that
// log_{c⁴}(c_i²) = log_V(V_i) (Shoup 2000, Damgård–Jurik 2001).
// Combination over a set S of t parties: c' = Π c_i^{2μ_i} with
// μ_i = Δ·Π_{j∈S∖i} j/(j−i) ∈ Z, so c' = c^{4Δ²d} = 1 + 4Δ²·m·N and
// m = L(c')·(4Δ²)^−1 mod N.
func (sk *PrivateKey) ShareThreshold(random io.Reader, threshold, parties int) ([]*KeyShare, error) {
	if err := checkParties(threshold, parties); err != nil {
		return nil, err
	}
	pPrime, qPrime, err := sk.safePrimeHalves()
	if err != nil {
		return nil, err
	}
	m := new(big.Int).Mul(pPrime, qPrime)
	nm := new(big.Int).Mul(sk.N, m)
	d := new(big.Int).ModInverse(m, sk.N)
	d.Mul(d, m)
	coeffs := []*big.Int{d}
	for range threshold - 1 {
		a, err := randomInt(random, nm)
		if err != nil {
			return nil, err
		}
		coeffs = append(coeffs, a)
	}
	id, err := newSharingID(random)
	if err != nil {
		return nil, err
	}
	r, err := randomUnit(random, sk.NSquared)
	if err != nil {
		return nil, err
	}
	sh := &Sharing{Scheme: Threshold, ID: id, Parties: parties, Threshold: threshold,
		V: r.Mul(r, r).Mod(r, sk.NSquared)}
	delta := factorial(parties)
	pk := sk.Public()
	shares := make([]*KeyShare, parties)
	for i := range shares {
		s := evalPoly(coeffs, int64(i+1), nm)
		vk := new(big.Int).Exp(sh.V, new(big.Int).Mul(delta, s), sk.NSquared)
		sh.VerificationKeys = append(sh.VerificationKeys, vk)
		shares[i] = &KeyShare{PublicKey: pk, Sharing: sh, Index: i + 1, Secret: s}
	}
	return shares, nil
}

// safePrimeHalves returns p' = (p−1)/2 and q' = (q−1)/2, checking that they
// are prime.
func (sk *PrivateKey) safePrimeHalves() (*big.Int, *big.Int, error) {
	pp := new(big.Int).Rsh(sk.P, 1)
	qp := new(big.Int).Rsh(sk.Q, 1)
	if !pp.ProbablyPrime(20) || !qp.ProbablyPrime(20) {
		return nil, nil, fmt.Errorf("paillier: threshold sharing needs a key from safe primes")
	}
	return pp, qp, nil
}

func evalPoly(coeffs []*big.Int, x int64, mod *big.Int) *big.Int {
	acc := new(big.Int)
	bx := big.NewInt(x)
	for i := len(coeffs) - 1; i >= 0; i-- {
		acc.Mul(acc, bx).Add(acc, coeffs[i]).Mod(acc, mod)
	}
	return acc
}

func factorial(n int) *big.Int {
	return new(big.Int).MulRange(1, int64(n))
}

func (ks *KeyShare) thresholdPartial(random io.Reader, c *Ciphertext) (*PartialDecryption, error) {
	pk := ks.PublicKey
	delta := factorial(ks.Sharing.Parties)
	x := new(big.Int).Mul(delta, ks.Secret) // Δ·s_i
	ci := new(big.Int).Exp(c.c, new(big.Int).Lsh(x, 1), pk.NSquared)
	proof, err := proveDLEQ(random, pk, ks.Sharing, ks.Index, c.c, ci, x)
	if err != nil {
		return nil, err
	}
	return &PartialDecryption{SharingID: ks.Sharing.ID, Index: ks.Index, Value: ci, Proof: proof}, nil
}

// Proof is a non-interactive (Fiat–Shamir, SHA-256) proof that a partial
// decryption c_i satisfies log_{c⁴}(c_i²) = log_V(V_i).
type Proof struct {
	E *big.Int // challenge, 256 bits
	Z *big.Int // response r + E·Δ·s_i
}

// proofChallengeBits and proofMaskBits set the soundness (2^−256 per
// proof, on top of the group having no small subgroups among squares) and
// the statistical zero knowledge (2^−128) of the proof.
const (
	proofChallengeBits = 256
	proofMaskBits      = 128
)

func proveDLEQ(random io.Reader, pk *PublicKey, sh *Sharing, index int, c, ci, x *big.Int) (*Proof, error) {
	n2 := pk.NSquared
	c4 := new(big.Int).Exp(c, big.NewInt(4), n2)
	ci2 := new(big.Int).Mul(ci, ci)
	ci2.Mod(ci2, n2)
	r, err := randomBits(random, x.BitLen()+proofChallengeBits+proofMaskBits)
	if err != nil {
		return nil, err
	}
	a := new(big.Int).Exp(c4, r, n2)
	b := new(big.Int).Exp(sh.V, r, n2)
	e := dleqChallenge(pk, sh, index, c4, ci2, a, b)
	z := new(big.Int).Mul(e, x)
	return &Proof{E: e, Z: z.Add(z, r)}, nil
}

// verify checks p's proof for ciphertext c under sharing sh.
func (p *PartialDecryption) verify(pk *PublicKey, sh *Sharing, c *big.Int) bool {
	if p.Proof == nil || p.Proof.E == nil || p.Proof.Z == nil || p.Proof.Z.Sign() < 0 ||
		p.Proof.E.Sign() < 0 || p.Proof.E.BitLen() > proofChallengeBits ||
		len(sh.VerificationKeys) != sh.Parties || sh.V == nil {
		return false
	}
	n2 := pk.NSquared
	if p.Value.Sign() <= 0 || p.Value.Cmp(n2) >= 0 {
		return false
	}
	ci2 := new(big.Int).Mul(p.Value, p.Value)
	ci2.Mod(ci2, n2)
	ci2Inv := new(big.Int).ModInverse(ci2, n2)
	vkInv := new(big.Int).ModInverse(sh.VerificationKeys[p.Index-1], n2)
	if ci2Inv == nil || vkInv == nil {
		return false
	}
	c4 := new(big.Int).Exp(c, big.NewInt(4), n2)
	a := new(big.Int).Exp(c4, p.Proof.Z, n2)
	a.Mul(a, ci2Inv.Exp(ci2Inv, p.Proof.E, n2)).Mod(a, n2)
	b := new(big.Int).Exp(sh.V, p.Proof.Z, n2)
	b.Mul(b, vkInv.Exp(vkInv, p.Proof.E, n2)).Mod(b, n2)
	return dleqChallenge(pk, sh, p.Index, c4, ci2, a, b).Cmp(p.Proof.E) == 0
}

func dleqChallenge(pk *PublicKey, sh *Sharing, index int, c4, ci2, a, b *big.Int) *big.Int {
	h := sha256.New()
	h.Write([]byte("dppub/paillier/threshold-dleq/v1"))
	h.Write([]byte(sh.ID))
	var ib [8]byte
	binary.BigEndian.PutUint64(ib[:], uint64(index))
	h.Write(ib[:])
	for _, v := range []*big.Int{pk.N, sh.V, sh.VerificationKeys[index-1], c4, ci2, a, b} {
		bs := v.Bytes()
		binary.BigEndian.PutUint64(ib[:], uint64(len(bs)))
		h.Write(ib[:])
		h.Write(bs)
	}
	return new(big.Int).SetBytes(h.Sum(nil))
}

func combineThreshold(pk *PublicKey, sh *Sharing, c *Ciphertext, byIndex map[int]*PartialDecryption) (*big.Int, error) {
	var valid []int
	var invalid []int
	for i, p := range byIndex {
		if p.verify(pk, sh, c.c) {
			valid = append(valid, i)
		} else {
			invalid = append(invalid, i)
		}
	}
	sort.Ints(valid)
	sort.Ints(invalid)
	if len(valid) < sh.Threshold {
		return nil, fmt.Errorf("paillier: %d valid partial decryptions (invalid proofs from parties %v), threshold %d: %w",
			len(valid), invalid, sh.Threshold, ErrMissingShares)
	}
	return combineThresholdSubset(pk, sh.Parties, valid[:sh.Threshold], byIndex)
}

// combineThresholdSubset combines the partials of the parties in set
// (unverified): c' = Π c_i^{2μ_i}, m = L(c')·(4Δ²)^−1 mod N.
func combineThresholdSubset(pk *PublicKey, parties int, set []int, byIndex map[int]*PartialDecryption) (*big.Int, error) {
	delta := factorial(parties)
	prod := big.NewInt(1)
	for _, i := range set {
		mu := lagrangeAtZero(delta, set, i)
		mu.Lsh(mu, 1)
		prod.Mul(prod, expSigned(byIndex[i].Value, mu, pk.NSquared)).Mod(prod, pk.NSquared)
	}
	scale := new(big.Int).Mul(delta, delta)
	scale.Lsh(scale, 2).ModInverse(scale, pk.N)
	return decodeOnePlusMN(pk, prod, scale)
}

// lagrangeAtZero returns Δ·Π_{j∈set∖i} j/(j−i), an integer when Δ = n!.
func lagrangeAtZero(delta *big.Int, set []int, i int) *big.Int {
	num := new(big.Int).Set(delta)
	den := big.NewInt(1)
	for _, j := range set {
		if j == i {
			continue
		}
		num.Mul(num, big.NewInt(int64(j)))
		den.Mul(den, big.NewInt(int64(j-i)))
	}
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	if r.Sign() != 0 {
		panic("paillier: Lagrange coefficient not integral (Δ too small)")
	}
	return q
}
