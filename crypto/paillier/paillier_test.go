package paillier

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"strings"
	"sync"
	"testing"

	"github.com/dppub/dppub/randx"
)

// Test keys are INSECURE (512–1024 bits) to keep the tests fast.
var (
	insecureKeyOnce sync.Once
	insecureKey512  *PrivateKey
)

func insecureTestKey(t testing.TB) *PrivateKey {
	t.Helper()
	insecureKeyOnce.Do(func() {
		k, err := GenerateInsecureTestKey(NewReader(randx.NewSeeded(1)), 512)
		if err != nil {
			panic(err)
		}
		insecureKey512 = k
	})
	return insecureKey512
}

func mustEncrypt(t testing.TB, pk *PublicKey, m *big.Int) *Ciphertext {
	t.Helper()
	c, err := pk.Encrypt(rand.Reader, m)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func mustDecrypt(t testing.TB, sk *PrivateKey, c *Ciphertext) *big.Int {
	t.Helper()
	m, err := sk.Decrypt(c)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestKeySizes(t *testing.T) {
	if _, err := GenerateKey(rand.Reader, 1024); err == nil {
		t.Error("GenerateKey accepted 1024 bits")
	}
	if _, err := GenerateInsecureTestKey(rand.Reader, 128); err == nil {
		t.Error("GenerateInsecureTestKey accepted 128 bits")
	}
	if _, _, err := Deal(rand.Reader, 1024, 2); err == nil {
		t.Error("Deal accepted 1024 bits")
	}
	for _, bits := range []int{256, 511, 512, 1024} {
		k, err := GenerateInsecureTestKey(rand.Reader, bits)
		if err != nil {
			t.Fatal(err)
		}
		if k.N.BitLen() != bits {
			t.Errorf("%d-bit key has a %d-bit modulus", bits, k.N.BitLen())
		}
		if new(big.Int).Mul(k.P, k.Q).Cmp(k.N) != 0 || !k.P.ProbablyPrime(20) || !k.Q.ProbablyPrime(20) {
			t.Errorf("%d-bit key: N is not the product of two primes", bits)
		}
	}
}

func TestSeededKeyIsDeterministic(t *testing.T) {
	a, err := GenerateInsecureTestKey(NewReader(randx.NewSeeded(7)), 256)
	if err != nil {
		t.Fatal(err)
	}
	b, err := GenerateInsecureTestKey(NewReader(randx.NewSeeded(7)), 256)
	if err != nil {
		t.Fatal(err)
	}
	if a.N.Cmp(b.N) != 0 {
		t.Error("same seed, different keys")
	}
}

// TestKnownAnswer checks the 1 + mN shortcut and CRT decryption against the
// textbook formulas g^m·r^N mod N² and L(c^λ mod N²)·μ mod N, computed
// independently here.
func TestKnownAnswer(t *testing.T) {
	sk := insecureTestKey(t)
	n, n2 := sk.N, sk.NSquared
	g := new(big.Int).Add(n, one)
	lambda := new(big.Int).Mul(new(big.Int).Sub(sk.P, one), new(big.Int).Sub(sk.Q, one)) // φ works as λ
	mu := new(big.Int).ModInverse(lFunc(new(big.Int).Exp(g, lambda, n2), n), n)
	for _, m := range []int64{0, 1, 2, 12345, -1, -987654321} {
		r := big.NewInt(1234567 + m*m)
		bm := big.NewInt(m)
		want := new(big.Int).Exp(g, new(big.Int).Mod(bm, n), n2)
		want.Mul(want, new(big.Int).Exp(r, n, n2)).Mod(want, n2)
		got := sk.encryptWith(bm, new(big.Int).Exp(r, n, n2))
		if got.c.Cmp(want) != 0 {
			t.Errorf("Enc(%d) differs from g^m r^N", m)
		}
		textbook := lFunc(new(big.Int).Exp(want, lambda, n2), n)
		textbook.Mul(textbook, mu).Mod(textbook, n)
		if dec := mustDecrypt(t, sk, got); dec.Cmp(textbook) != 0 || dec.Cmp(new(big.Int).Mod(bm, n)) != 0 {
			t.Errorf("Dec(Enc(%d)) = %v, textbook %v", m, dec, textbook)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	sk := insecureTestKey(t)
	pk := sk.Public()
	nm1 := new(big.Int).Sub(pk.N, one)
	for _, m := range []*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(42), nm1, new(big.Int).Rsh(pk.N, 1)} {
		for name, enc := range map[string]func(*big.Int) (*Ciphertext, error){
			"Encrypt":         func(m *big.Int) (*Ciphertext, error) { return pk.Encrypt(rand.Reader, m) },
			"EncryptStandard": func(m *big.Int) (*Ciphertext, error) { return pk.EncryptStandard(rand.Reader, m) },
		} {
			c, err := enc(m)
			if err != nil {
				t.Fatal(err)
			}
			if got := mustDecrypt(t, sk, c); got.Cmp(m) != 0 {
				t.Errorf("%s: Dec(Enc(%v)) = %v", name, m, got)
			}
		}
	}
	c := mustEncrypt(t, pk, big.NewInt(-5))
	if got, want := mustDecrypt(t, sk, c), new(big.Int).Sub(pk.N, big.NewInt(5)); got.Cmp(want) != 0 {
		t.Errorf("Dec(Enc(−5)) = %v, want N−5", got)
	}
	a, b := mustEncrypt(t, pk, big.NewInt(9)), mustEncrypt(t, pk, big.NewInt(9))
	if a.c.Cmp(b.c) == 0 {
		t.Error("two encryptions of 9 are identical: encryption is not randomised")
	}
}

// TestPrecomputedRandomizer checks that the fixed-base table computes
// hs^x exactly and that its randomizers are N-th residues (rn^λ = 1 mod N²).
func TestPrecomputedRandomizer(t *testing.T) {
	sk := insecureTestKey(t)
	pk := sk.Public()
	if err := pk.Precompute(rand.Reader); err != nil {
		t.Fatal(err)
	}
	if !pk.IsPrecomputed() {
		t.Fatal("IsPrecomputed false after Precompute")
	}
	x := make([]byte, pk.fb.expBytes)
	for trial := range 5 {
		_, _ = rand.Read(x)
		if trial == 0 {
			clear(x)
		}
		xi := new(big.Int).SetBytes(reversed(x))
		want := new(big.Int).Exp(pk.fb.hs, xi, pk.NSquared)
		if got := pk.fb.exp(x, pk.NSquared); got.Cmp(want) != 0 {
			t.Errorf("fixed-base hs^x differs from Exp for x = %v", xi)
		}
	}
	for _, randomizer := range []func() (*big.Int, error){
		func() (*big.Int, error) { return pk.randomizer(rand.Reader) },
		func() (*big.Int, error) { return pk.standardRandomizer(rand.Reader) },
	} {
		rn, err := randomizer()
		if err != nil {
			t.Fatal(err)
		}
		if new(big.Int).Exp(rn, sk.lambda, pk.NSquared).Cmp(one) != 0 {
			t.Error("randomizer is not an N-th residue")
		}
	}
	c := mustEncrypt(t, pk, big.NewInt(31337))
	if got := mustDecrypt(t, sk, c); got.Int64() != 31337 {
		t.Errorf("precomputed Dec(Enc(31337)) = %v", got)
	}
}

func reversed(b []byte) []byte {
	r := make([]byte, len(b))
	for i := range b {
		r[len(b)-1-i] = b[i]
	}
	return r
}

func TestHomomorphisms(t *testing.T) {
	sk := insecureTestKey(t)
	pk := sk.Public()
	signed := func(c *Ciphertext) int64 { return pk.Signed(mustDecrypt(t, sk, c)).Int64() }
	a, b := int64(1234), int64(-5678)
	ea, eb := mustEncrypt(t, pk, big.NewInt(a)), mustEncrypt(t, pk, big.NewInt(b))
	checks := []struct {
		name string
		got  *Ciphertext
		want int64
	}{
		{"Add", pk.Add(ea, eb), a + b},
		{"Sub", pk.Sub(ea, eb), a - b},
		{"Neg", pk.Neg(ea), -a},
		{"AddPlain", pk.AddPlain(ea, big.NewInt(-34)), a - 34},
		{"MulPlain 7", pk.MulPlain(ea, big.NewInt(7)), 7 * a},
		{"MulPlain −3", pk.MulPlain(eb, big.NewInt(-3)), -3 * b},
		{"MulPlain 0", pk.MulPlain(ea, big.NewInt(0)), 0},
		{"MulPlain N+2", pk.MulPlain(ea, new(big.Int).Add(pk.N, two)), 2 * a},
	}
	for _, c := range checks {
		if got := signed(c.got); got != c.want {
			t.Errorf("%s: got %d, want %d", c.name, got, c.want)
		}
	}
	r, err := pk.Rerandomize(rand.Reader, ea)
	if err != nil {
		t.Fatal(err)
	}
	if r.c.Cmp(ea.c) == 0 || signed(r) != a {
		t.Error("Rerandomize did not give a different encryption of the same value")
	}
}

func TestEncoder(t *testing.T) {
	sk := insecureTestKey(t)
	pk := sk.Public()
	e := Encoder{FracBits: 20}
	for _, x := range []float64{0, 1.5, -2.25, 1e6, -3.75e-3, 123456.0078125} {
		m, err := e.Encode(pk, x)
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.Decode(pk, mustDecrypt(t, sk, mustEncrypt(t, pk, m)))
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-x) > math.Ldexp(1, -21) {
			t.Errorf("Decode(Encode(%v)) = %v", x, got)
		}
	}
	// Fixed-point product: Enc(a)^{b̂} carries 2·FracBits fractional bits.
	a, b := -3.5, 2.25
	ma, _ := e.Encode(pk, a)
	qb, _ := e.Quantize(b)
	prod, err := Encoder{FracBits: 40}.Decode(pk, mustDecrypt(t, sk, pk.MulPlain(mustEncrypt(t, pk, ma), qb)))
	if err != nil || prod != a*b {
		t.Errorf("fixed-point product = %v (%v), want %v", prod, err, a*b)
	}
	// Sum of encodings: (−1.5) + 4 = 2.5.
	m1, _ := e.Encode(pk, -1.5)
	m2, _ := e.Encode(pk, 4)
	sum, err := e.Decode(pk, mustDecrypt(t, sk, pk.Add(mustEncrypt(t, pk, m1), mustEncrypt(t, pk, m2))))
	if err != nil || sum != 2.5 {
		t.Errorf("fixed-point sum = %v (%v), want 2.5", sum, err)
	}
	if q, _ := e.Quantize(-0.5 / (1 << 20)); q.Int64() != -1 {
		t.Errorf("Quantize(−2^−21) = %v, want −1 (halves away from zero)", q)
	}
}

func TestEncoderRejects(t *testing.T) {
	pk := insecureTestKey(t).Public()
	if _, err := (Encoder{FracBits: -1}).Encode(pk, 1); err == nil {
		t.Error("negative FracBits accepted")
	}
	if _, err := (Encoder{FracBits: 10}).Encode(pk, math.NaN()); err == nil {
		t.Error("NaN accepted")
	}
	if _, err := (Encoder{FracBits: 10}).Encode(pk, math.Ldexp(1, 600)); err == nil {
		t.Error("2^600 accepted under a 512-bit modulus")
	}
	// N/2 is in the overflow band (N/3, 2N/3).
	if _, err := (Encoder{FracBits: 0}).Decode(pk, new(big.Int).Rsh(pk.N, 1)); err == nil {
		t.Error("Decode(N/2) did not report overflow")
	}
}

func TestParseCiphertextRejects(t *testing.T) {
	pk := insecureTestKey(t).Public()
	size := pk.CiphertextSize()
	bad := map[string][]byte{
		"short": make([]byte, size-1),
		"zero":  make([]byte, size),
		"N²":    pk.NSquared.FillBytes(make([]byte, size)),
		"N":     pk.N.FillBytes(make([]byte, size)),
	}
	for name, b := range bad {
		if _, err := pk.ParseCiphertext(b); err == nil {
			t.Errorf("ParseCiphertext accepted %s", name)
		}
	}
	cs := []*Ciphertext{mustEncrypt(t, pk, big.NewInt(1)), mustEncrypt(t, pk, big.NewInt(2))}
	back, err := pk.UnmarshalCiphertexts(pk.MarshalCiphertexts(cs))
	if err != nil || len(back) != 2 || back[0].c.Cmp(cs[0].c) != 0 || back[1].c.Cmp(cs[1].c) != 0 {
		t.Errorf("ciphertext wire round trip failed: %v", err)
	}
}

func TestAdditiveSharedDecryption(t *testing.T) {
	for _, parties := range []int{2, 3} {
		pk, shares, err := DealInsecureTest(rand.Reader, 512, parties)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []int64{0, 77, -1234567} {
			c := mustEncrypt(t, pk, big.NewInt(m))
			parts := partials(t, shares, c)
			got, err := Combine(pk, shares[0].Sharing, c, parts)
			if err != nil {
				t.Fatalf("%d-of-%d: %v", parties, parties, err)
			}
			if pk.Signed(got).Int64() != m {
				t.Errorf("%d-of-%d: decrypted %v, want %d", parties, parties, pk.Signed(got), m)
			}
			// Missing share: the API refuses, and the raw product does not decode.
			if _, err := Combine(pk, shares[0].Sharing, c, parts[1:]); !errors.Is(err, ErrMissingShares) {
				t.Errorf("%d-of-%d with a share missing: err = %v, want ErrMissingShares", parties, parties, err)
			}
			byIndex, _ := indexParts(shares[0].Sharing, parts[1:])
			if _, err := combineAdditive(pk, byIndex); !errors.Is(err, ErrBadCombination) {
				t.Errorf("%d-of-%d: raw product without share 1 decoded (err %v)", parties, parties, err)
			}
			if _, err := Combine(pk, shares[0].Sharing, c, append(parts, parts[0])); err == nil {
				t.Error("duplicate partial accepted")
			}
		}
	}
}

func partials(t testing.TB, shares []*KeyShare, c *Ciphertext) []*PartialDecryption {
	t.Helper()
	var parts []*PartialDecryption
	for _, ks := range shares {
		p, err := ks.PartialDecrypt(rand.Reader, c)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, p)
	}
	return parts
}

// TestPairwiseSharings mirrors the paper's λ_{x,y}, λ_{y,x}: one key, one
// independent 2-of-2 sharing per pair. Shares of different sharings must
// not combine.
func TestPairwiseSharings(t *testing.T) {
	sk := insecureTestKey(t)
	pk := sk.Public()
	xy, err := sk.ShareAdditive(rand.Reader, 2)
	if err != nil {
		t.Fatal(err)
	}
	xz, err := sk.ShareAdditive(rand.Reader, 2)
	if err != nil {
		t.Fatal(err)
	}
	c := mustEncrypt(t, pk, big.NewInt(99))
	for _, sh := range [][]*KeyShare{xy, xz} {
		got, err := Combine(pk, sh[0].Sharing, c, partials(t, sh, c))
		if err != nil || got.Int64() != 99 {
			t.Errorf("pairwise decryption = %v (%v), want 99", got, err)
		}
	}
	mixed := []*PartialDecryption{partials(t, xy, c)[0], partials(t, xz, c)[1]}
	if _, err := Combine(pk, xy[0].Sharing, c, mixed); err == nil {
		t.Error("partials of two sharings combined")
	}
	mixed[1].SharingID = xy[0].Sharing.ID // forged label: the value must still fail
	if _, err := Combine(pk, xy[0].Sharing, c, mixed); !errors.Is(err, ErrBadCombination) {
		t.Errorf("relabelled foreign partial: err = %v, want ErrBadCombination", err)
	}
}

var (
	thresholdOnce   sync.Once
	thresholdPK     *PublicKey
	thresholdShares []*KeyShare
)

func thresholdKey(t testing.TB) (*PublicKey, []*KeyShare) {
	t.Helper()
	thresholdOnce.Do(func() {
		pk, shares, err := DealThresholdInsecureTest(NewReader(randx.NewSeeded(3)), 512, 2, 3)
		if err != nil {
			panic(err)
		}
		thresholdPK, thresholdShares = pk, shares
	})
	return thresholdPK, thresholdShares
}

func TestThresholdSharedDecryption(t *testing.T) {
	pk, shares := thresholdKey(t)
	sh := shares[0].Sharing
	c := mustEncrypt(t, pk, big.NewInt(-4242))
	all := partials(t, shares, c)
	for _, subset := range [][]int{{0, 1}, {0, 2}, {1, 2}, {0, 1, 2}} {
		var parts []*PartialDecryption
		for _, i := range subset {
			parts = append(parts, all[i])
		}
		got, err := Combine(pk, sh, c, parts)
		if err != nil || pk.Signed(got).Int64() != -4242 {
			t.Errorf("subset %v: %v (%v), want −4242", subset, got, err)
		}
	}
	if _, err := Combine(pk, sh, c, all[:1]); !errors.Is(err, ErrMissingShares) {
		t.Errorf("one of 2 needed: err = %v, want ErrMissingShares", err)
	}
	byIndex, _ := indexParts(sh, all[:1])
	if _, err := combineThresholdSubset(pk, sh.Parties, []int{1}, byIndex); !errors.Is(err, ErrBadCombination) {
		t.Errorf("raw combination of 1 < t shares decoded (err %v)", err)
	}
}

// TestThresholdRejectsBadPartial: a partial shifted by (1+N) would move
// the plaintext by a constant; its proof fails and it is left out.
func TestThresholdRejectsBadPartial(t *testing.T) {
	pk, shares := thresholdKey(t)
	sh := shares[0].Sharing
	c := mustEncrypt(t, pk, big.NewInt(5))
	parts := partials(t, shares, c)
	bad := *parts[1]
	bad.Value = new(big.Int).Mul(bad.Value, new(big.Int).Add(pk.N, one))
	bad.Value.Mod(bad.Value, pk.NSquared)
	if _, err := Combine(pk, sh, c, []*PartialDecryption{parts[0], &bad}); !errors.Is(err, ErrMissingShares) {
		t.Errorf("bad partial among 2: err = %v, want ErrMissingShares", err)
	}
	got, err := Combine(pk, sh, c, []*PartialDecryption{parts[0], &bad, parts[2]})
	if err != nil || got.Int64() != 5 {
		t.Errorf("with one bad of three: %v (%v), want 5", got, err)
	}
	// A valid proof for another ciphertext does not transfer.
	other := mustEncrypt(t, pk, big.NewInt(6))
	if parts[0].verify(pk, sh, other.c) {
		t.Error("proof verified against another ciphertext")
	}
}

func TestMarshalRoundTrips(t *testing.T) {
	pk, shares, err := DealInsecureTest(rand.Reader, 512, 3)
	if err != nil {
		t.Fatal(err)
	}
	tpk, tshares := thresholdKey(t)
	for _, set := range []struct {
		pk     *PublicKey
		shares []*KeyShare
		need   int
	}{{pk, shares, 3}, {tpk, tshares, 2}} {
		pkJSON, err := set.pk.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var pk2 PublicKey
		if err := pk2.UnmarshalJSON(pkJSON); err != nil || !pk2.Equal(set.pk) || pk2.NSquared.Cmp(set.pk.NSquared) != 0 {
			t.Fatalf("public key JSON round trip: %v", err)
		}
		var back []*KeyShare
		for _, ks := range set.shares {
			b, err := ks.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			ks2 := new(KeyShare)
			if err := ks2.UnmarshalJSON(b); err != nil {
				t.Fatalf("key share JSON: %v", err)
			}
			back = append(back, ks2)
		}
		c := mustEncrypt(t, &pk2, big.NewInt(-17))
		var parts []*PartialDecryption
		for _, ks := range back[:set.need] {
			p, err := ks.PartialDecrypt(rand.Reader, c)
			if err != nil {
				t.Fatal(err)
			}
			wire, err := p.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			p2 := new(PartialDecryption)
			if err := p2.UnmarshalBinary(wire); err != nil {
				t.Fatal(err)
			}
			parts = append(parts, p2)
		}
		got, err := Combine(&pk2, back[0].Sharing, c, parts)
		if err != nil || pk2.Signed(got).Int64() != -17 {
			t.Errorf("%s: decryption after round trips = %v (%v)", back[0].Sharing.Scheme, got, err)
		}
	}
}

func TestUnmarshalRejects(t *testing.T) {
	var pk PublicKey
	for _, s := range []string{`{"scheme":"rsa","n":"ff"}`, `{"scheme":"paillier g=N+1","n":"zz"}`, `{"scheme":"paillier g=N+1","n":"10"}`, `[`} {
		if err := pk.UnmarshalJSON([]byte(s)); err == nil {
			t.Errorf("public key %s accepted", s)
		}
	}
	var ks KeyShare
	if err := ks.UnmarshalJSON([]byte(`{"version":1,"index":1}`)); err == nil {
		t.Error("key share without key accepted")
	}
	var p PartialDecryption
	if err := p.UnmarshalBinary([]byte("PLPD\x01\x00\x00")); err == nil {
		t.Error("truncated partial decryption accepted")
	}
	if _, err := insecureTestKey(t).MarshalJSON(); err == nil {
		t.Error("private key marshalled to JSON")
	}
}

// A public key's JSON states its size, and a stated size that does not
// match the modulus is refused.
func TestPublicKeyJSONStatesBits(t *testing.T) {
	pk := &insecureTestKey(t).PublicKey
	js, err := json.Marshal(pk)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), `"bits":512`) {
		t.Fatalf("key JSON does not state 512 bits: %s", js)
	}
	var back PublicKey
	if err := json.Unmarshal(js, &back); err != nil || !back.Equal(pk) {
		t.Fatalf("round trip: %v", err)
	}
	bad := strings.Replace(string(js), `"bits":512`, `"bits":2048`, 1)
	if err := json.Unmarshal([]byte(bad), &back); err == nil || !strings.Contains(err.Error(), "2048 bits") {
		t.Errorf("a key stating 2048 bits with a 512-bit modulus: error %v", err)
	}
}
