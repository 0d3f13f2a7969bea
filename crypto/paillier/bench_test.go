package paillier

import (
	"crypto/rand"
	"math/big"
	"sync"
	"testing"
)

// Benchmarks at the production size, 2048 bits. Reference figures (2-core
// VM, go1.26, one core per op) are in the package report.

var (
	bench2048Once sync.Once
	bench2048     *PrivateKey
)

func benchKey(b *testing.B) *PrivateKey {
	b.Helper()
	bench2048Once.Do(func() {
		k, err := GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(err)
		}
		bench2048 = k
	})
	return bench2048
}

func BenchmarkGenerateKey2048(b *testing.B) {
	for b.Loop() {
		if _, err := GenerateKey(rand.Reader, 2048); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncryptStandard2048(b *testing.B) {
	pk := benchKey(b).Public()
	m := big.NewInt(123456)
	for b.Loop() {
		if _, err := pk.EncryptStandard(rand.Reader, m); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPrecompute2048(b *testing.B) {
	pk := benchKey(b).Public()
	for b.Loop() {
		if err := pk.Precompute(rand.Reader); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncryptPrecomputed2048(b *testing.B) {
	pk := benchKey(b).Public()
	if err := pk.Precompute(rand.Reader); err != nil {
		b.Fatal(err)
	}
	m := big.NewInt(123456)
	for b.Loop() {
		if _, err := pk.Encrypt(rand.Reader, m); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecryptCRT2048(b *testing.B) {
	sk := benchKey(b)
	c, _ := sk.Public().Encrypt(rand.Reader, big.NewInt(42))
	for b.Loop() {
		if _, err := sk.Decrypt(c); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAdd2048(b *testing.B) {
	pk := benchKey(b).Public()
	x, _ := pk.Encrypt(rand.Reader, big.NewInt(1))
	y, _ := pk.Encrypt(rand.Reader, big.NewInt(2))
	for b.Loop() {
		pk.Add(x, y)
	}
}

// BenchmarkSharedDecrypt2of2_2048 is one party's partial decryption (an
// exponentiation mod N² by a ~4200-bit share) plus the combination.
func BenchmarkSharedDecrypt2of2_2048(b *testing.B) {
	sk := benchKey(b)
	shares, err := sk.ShareAdditive(rand.Reader, 2)
	if err != nil {
		b.Fatal(err)
	}
	pk := sk.Public()
	c, _ := pk.Encrypt(rand.Reader, big.NewInt(42))
	other, _ := shares[1].PartialDecrypt(nil, c)
	for b.Loop() {
		mine, err := shares[0].PartialDecrypt(nil, c)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Combine(pk, shares[0].Sharing, c, []*PartialDecryption{mine, other}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDealThreshold2048 is a 2-of-3 threshold deal, dominated by the
// search for two 1024-bit safe primes (high variance: run with -benchtime 3x).
func BenchmarkDealThreshold2048(b *testing.B) {
	for b.Loop() {
		if _, _, err := DealThreshold(rand.Reader, 2048, 2, 3); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkThresholdPartialDecrypt2048 is one party's partial decryption
// with its proof, plus the verified combination of two partials.
func BenchmarkThresholdPartialDecrypt2048(b *testing.B) {
	thresholdBenchOnce.Do(func() {
		pk, shares, err := DealThreshold(rand.Reader, 2048, 2, 3)
		if err != nil {
			panic(err)
		}
		thresholdBenchPK, thresholdBenchShares = pk, shares
	})
	pk, shares := thresholdBenchPK, thresholdBenchShares
	c, _ := pk.Encrypt(rand.Reader, big.NewInt(42))
	other, _ := shares[1].PartialDecrypt(rand.Reader, c)
	for b.Loop() {
		mine, err := shares[0].PartialDecrypt(rand.Reader, c)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Combine(pk, shares[0].Sharing, c, []*PartialDecryption{mine, other}); err != nil {
			b.Fatal(err)
		}
	}
}

var (
	thresholdBenchOnce   sync.Once
	thresholdBenchPK     *PublicKey
	thresholdBenchShares []*KeyShare
)
