package sspp

import (
	"math/big"
	"sync"
	"testing"

	"github.com/dppub/dppub/crypto/paillier"
	"github.com/dppub/dppub/randx"
)

// The Paillier key is INSECURE (512 bits) to keep the tests fast.
var (
	keyOnce sync.Once
	testKey *paillier.PrivateKey
)

func insecureTestKey(t testing.TB) *paillier.PrivateKey {
	t.Helper()
	keyOnce.Do(func() {
		k, err := paillier.GenerateInsecureTestKey(paillier.NewReader(randx.NewSeeded(11)), 512)
		if err != nil {
			panic(err)
		}
		testKey = k
	})
	return testKey
}

func randomIndicator(src *randx.Source, n int, p float64) []int64 {
	v := make([]int64, n)
	for i := range v {
		if src.Float64() < p {
			v[i] = 1
		}
	}
	return v
}

func dot(x, y []int64) int64 {
	var s int64
	for i := range x {
		s += x[i] * y[i]
	}
	return s
}

func newGoethals(t *testing.T, maskBits int) (*GoethalsAlice, *GoethalsBob) {
	t.Helper()
	src := randx.NewSeeded(5)
	alice, err := NewGoethalsAlice(GoethalsAliceOptions{Key: insecureTestKey(t), Random: src.Child()})
	if err != nil {
		t.Fatal(err)
	}
	bob, err := NewGoethalsBob(GoethalsBobOptions{PublicKey: alice.PublicKey(), Random: src.Child(), MaskBits: maskBits})
	if err != nil {
		t.Fatal(err)
	}
	return alice, bob
}

// TestGoethalsIndicators: one encrypted vector reused against several of
// Bob's vectors; every pair of shares sums to the plaintext count.
func TestGoethalsIndicators(t *testing.T) {
	alice, bob := newGoethals(t, 0)
	src := randx.NewSeeded(1)
	x := randomIndicator(src, 1500, 0.4)
	enc, err := alice.EncryptVector(x)
	if err != nil {
		t.Fatal(err)
	}
	ys := [][]int64{randomIndicator(src, 1500, 0.5), randomIndicator(src, 1500, 0.05), make([]int64, 1500), x}
	for k, y := range ys {
		reply, sB, err := bob.Respond(enc, y)
		if err != nil {
			t.Fatal(err)
		}
		sA, err := alice.Finish(reply)
		if err != nil {
			t.Fatal(err)
		}
		got, err := SumModN(alice.PublicKey().N, sA, sB)
		if err != nil {
			t.Fatal(err)
		}
		if want := dot(x, y); got != want {
			t.Errorf("y #%d: shares sum to %d, want x·y = %d", k, got, want)
		}
	}
}

func TestGoethalsGeneralIntegersAndIntegerShares(t *testing.T) {
	alice, bob := newGoethals(t, 200)
	x := []int64{3, -7, 0, 1, 1000000, -1}
	y := []int64{-2, 5, 9, 1, 3, 0}
	enc, err := alice.EncryptVector(x)
	if err != nil {
		t.Fatal(err)
	}
	reply, sB, err := bob.Respond(enc, y)
	if err != nil {
		t.Fatal(err)
	}
	sA, err := alice.Finish(reply)
	if err != nil {
		t.Fatal(err)
	}
	// Integer shares: the plain sum, no reduction, is x·y.
	if got, want := new(big.Int).Add(sA, sB), big.NewInt(dot(x, y)); got.Cmp(want) != 0 {
		t.Errorf("integer shares sum to %v, want %v", got, want)
	}
	if sB.Sign() < 0 || sB.BitLen() > 200 {
		t.Errorf("Bob's share %v outside [0, 2^200)", sB)
	}
}

func TestGoethalsWire(t *testing.T) {
	alice, bob := newGoethals(t, 0)
	x := []int64{1, 0, 1, 1}
	y := []int64{1, 1, 0, 1}
	enc, err := alice.EncryptVector(x)
	if err != nil {
		t.Fatal(err)
	}
	b, err := enc.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var enc2 EncryptedVector
	if err := enc2.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	reply, sB, err := bob.Respond(&enc2, y)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := reply.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var reply2 GoethalsReply
	if err := reply2.UnmarshalBinary(rb); err != nil {
		t.Fatal(err)
	}
	sA, err := alice.Finish(&reply2)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := SumModN(alice.PublicKey().N, sA, sB); got != 2 {
		t.Errorf("after the wire: %d, want 2", got)
	}
	// Corruptions are rejected.
	if err := enc2.UnmarshalBinary(b[:len(b)-1]); err == nil {
		t.Error("truncated encrypted vector accepted")
	}
	if err := reply2.UnmarshalBinary(append(rb, 0)); err == nil {
		t.Error("reply with a trailing byte accepted")
	}
	if _, _, err := bob.Respond(enc, []int64{1, 0, 1}); err == nil {
		t.Error("length mismatch accepted")
	}
	other, err := paillier.GenerateInsecureTestKey(paillier.NewReader(randx.NewSeeded(12)), 512)
	if err != nil {
		t.Fatal(err)
	}
	foreign := &EncryptedVector{Key: other.Public(), Ciphertexts: enc.Ciphertexts}
	if _, _, err := bob.Respond(foreign, y); err == nil {
		t.Error("vector under another key accepted")
	}
}

func TestGoethalsOptions(t *testing.T) {
	if _, err := NewGoethalsAlice(GoethalsAliceOptions{}); err == nil {
		t.Error("Alice without a key accepted")
	}
	pk := insecureTestKey(t).Public()
	for _, opts := range []GoethalsBobOptions{{}, {PublicKey: pk, MaskBits: -1}, {PublicKey: pk, MaskBits: 510}, {PublicKey: pk, Workers: -2}} {
		if _, err := NewGoethalsBob(opts); err == nil {
			t.Errorf("Bob options %+v accepted", opts)
		}
	}
}

func runCommodity(t *testing.T, server *CommodityServer, x, y []int64) (uint64, uint64) {
	t.Helper()
	ca, cb, err := server.Deal(len(x))
	if err != nil {
		t.Fatal(err)
	}
	alice, err := NewCommodityAlice(ca)
	if err != nil {
		t.Fatal(err)
	}
	bob, err := NewCommodityBob(cb)
	if err != nil {
		t.Fatal(err)
	}
	mx, err := alice.Mask(x)
	if err != nil {
		t.Fatal(err)
	}
	my, err := bob.Mask(y)
	if err != nil {
		t.Fatal(err)
	}
	u, err := alice.Finish(my)
	if err != nil {
		t.Fatal(err)
	}
	v, err := bob.Finish(mx)
	if err != nil {
		t.Fatal(err)
	}
	return u, v
}

func TestCommodityIndicators(t *testing.T) {
	server, _ := NewCommodityServer(CommodityServerOptions{Random: randx.NewSeeded(2)})
	src := randx.NewSeeded(3)
	for _, n := range []int{1, 17, 48842} {
		x, y := randomIndicator(src, n, 0.3), randomIndicator(src, n, 0.6)
		u, v := runCommodity(t, server, x, y)
		if got, want := SumMod64(u, v), dot(x, y); got != want {
			t.Errorf("n = %d: shares sum to %d, want %d", n, got, want)
		}
	}
	x := []int64{-5, 1 << 40, 7}
	y := []int64{3, -2, -1 << 20}
	u, v := runCommodity(t, server, x, y)
	if got, want := SumMod64(u, v), dot(x, y); got != want {
		t.Errorf("signed: shares sum to %d, want %d", got, want)
	}
}

func TestCommodityMisuse(t *testing.T) {
	server, _ := NewCommodityServer(CommodityServerOptions{Random: randx.NewSeeded(4)})
	ca, cb, _ := server.Deal(3)
	if _, err := NewCommodityAlice(cb); err == nil {
		t.Error("Bob's correlation accepted by Alice")
	}
	alice, _ := NewCommodityAlice(ca)
	mx, err := alice.Mask([]int64{1, 0, 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := alice.Mask([]int64{1, 1, 1}); err == nil {
		t.Error("second use of a correlation accepted")
	}
	if _, err := alice.Finish(mx); err == nil {
		t.Error("Alice accepted her own masked vector")
	}
	ca2, cb2, _ := server.Deal(3)
	_ = ca2
	bob2, _ := NewCommodityBob(cb2)
	my2, _ := bob2.Mask([]int64{1, 1, 1})
	if _, err := alice.Finish(my2); err == nil {
		t.Error("masked vector from another session accepted")
	}
	if _, _, err := server.Deal(0); err == nil {
		t.Error("Deal(0) accepted")
	}
}

func TestCommodityWire(t *testing.T) {
	server, _ := NewCommodityServer(CommodityServerOptions{Random: randx.NewSeeded(6)})
	ca, cb, _ := server.Deal(4)
	var ca2, cb2 Correlation
	for _, p := range []struct{ in, out *Correlation }{{ca, &ca2}, {cb, &cb2}} {
		b, _ := p.in.MarshalBinary()
		if err := p.out.UnmarshalBinary(b); err != nil || *p.out != *p.in {
			t.Fatalf("correlation round trip: %v", err)
		}
	}
	alice, _ := NewCommodityAlice(&ca2)
	bob, _ := NewCommodityBob(&cb2)
	mx, _ := alice.Mask([]int64{1, 1, 0, 1})
	my, _ := bob.Mask([]int64{1, 0, 1, 1})
	var mx2, my2 MaskedVector
	bx, _ := mx.MarshalBinary()
	by, _ := my.MarshalBinary()
	if err := mx2.UnmarshalBinary(bx); err != nil {
		t.Fatal(err)
	}
	if err := my2.UnmarshalBinary(by); err != nil {
		t.Fatal(err)
	}
	u, _ := alice.Finish(&my2)
	v, _ := bob.Finish(&mx2)
	if got := SumMod64(u, v); got != 2 {
		t.Errorf("after the wire: %d, want 2", got)
	}
	if err := mx2.UnmarshalBinary(bx[:len(bx)-3]); err == nil {
		t.Error("truncated masked vector accepted")
	}
}

func TestGoethalsSeededIsDeterministicAcrossWorkers(t *testing.T) {
	x := randomIndicator(randx.NewSeeded(9), 700, 0.5)
	var first []*paillier.Ciphertext
	for _, workers := range []int{1, 3} {
		pk := insecureTestKey(t).Public()
		if err := pk.Precompute(paillier.NewReader(randx.NewSeeded(10))); err != nil {
			t.Fatal(err)
		}
		// A fresh private key value sharing the same primes and the same table.
		alice, err := NewGoethalsAlice(GoethalsAliceOptions{Key: insecureTestKey(t), Random: randx.NewSeeded(8), Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		alice.pk = pk
		enc, err := alice.EncryptVector(x)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = enc.Ciphertexts
			continue
		}
		for i := range first {
			if first[i].Value().Cmp(enc.Ciphertexts[i].Value()) != 0 {
				t.Fatalf("workers = %d: ciphertext %d differs from the 1-worker run", workers, i)
			}
		}
	}
}
