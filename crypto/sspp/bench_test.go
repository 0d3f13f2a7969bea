package sspp

import (
	"testing"

	"github.com/dppub/dppub/randx"
)

// BenchmarkGoethals is one packed scalar product of 1000 records (a
// 4-value column against an 8-value one) with an INSECURE 512-bit key:
// Alice's encryption, Bob's reply, Alice's decryption.
func BenchmarkGoethals(b *testing.B) {
	sk := testKey(b, 1)
	src := randx.NewSeeded(2)
	const n = 1000
	alice, bob := column(src, n, 4), column(src, n, 8)
	p, _ := NewPacking(sk.Bits(), 58)
	l := NewLayout(p, []int{4})
	b.ResetTimer()
	for b.Loop() {
		vec, err := EncryptOneHots(&sk.PublicKey, l, [][]int32{alice}, src, 0)
		if err != nil {
			b.Fatal(err)
		}
		replies, _, err := Reply(&sk.PublicKey, p, vec[0], bob, 8, 56, src, 0)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := DecryptReplies(sk, p, replies, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCommodity is one commodity-server product of 100 000 records
// (a 4-value column against an 8-value one): S's correction, both masked
// inputs and both shares.
func BenchmarkCommodity(b *testing.B) {
	src := randx.NewSeeded(3)
	const n, du, dz = 100_000, 4, 8
	u := make([]uint64, n*du)
	for r, v := range column(src, n, du) {
		u[r*du+int(v)] = 1
	}
	col := column(src, n, dz)
	b.ResetTimer()
	for b.Loop() {
		sa, sb, srb := NewSeed(src), NewSeed(src), NewSeed(src)
		ra := Expand(sa, n*du)
		corr, _ := Correction(Sum, du, dz, ra, Expand(sb, n*dz), srb, 0)
		maskedZ, _ := MaskOneHot(col, dz, sb)
		if _, err := ShareA(Sum, du, dz, ra, corr, maskedZ, 0); err != nil {
			b.Fatal(err)
		}
		if _, err := ShareB(Sum, du, dz, MaskWords(u, sa), col, srb, 0); err != nil {
			b.Fatal(err)
		}
	}
}
