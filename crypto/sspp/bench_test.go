package sspp

import (
	"crypto/rand"
	"sync"
	"testing"

	"github.com/dppub/dppub/crypto/paillier"
	"github.com/dppub/dppub/randx"
)

// adultRows is the number of records of UCI Adult, the length of every
// indicator vector in the PDP-MVDS experiments.
const adultRows = 48842

// Measured (2-core VM shared with other jobs, load 2–7, go1.26):
// EncryptVector of 48842 indicators 16–29 s wall on 2 cores (≈0.65 ms·core
// per element), Respond 0.18–0.9 s, Finish 3 ms, commodity product ≈5 ms.
//
// Whole-of-Adult cost (Goethals): each value of each attribute on Alice's
// side of a cross pair needs one encrypted vector, reused across all of
// Bob's values. With Adult discretised to ~150 attribute values, about half
// on each side, Alice encrypts ~75 × 48842 ≈ 3.7M values once (≈ 25–40
// core-minutes with the precomputed table; ≈ 13 core-hours with plain r^N).
// Bob's replies for all values of an attribute b together multiply each of
// the 48842 ciphertexts of a once (each record has one value of b), so per
// (value of a, attribute b) ≈ 48842 × 6 µs ≈ 0.3 s: ≈ 75 × 7 × 0.3 s ≈ 3
// core-minutes over all cross pairs, plus one encryption and one decryption
// per cell (≈ 5600 cells, ~30 s). The commodity-server protocol needs one
// ≈5 ms product per cell (≈ 0.4 MB each way): ≈ 30 s in total.

var (
	benchOnce  sync.Once
	benchAlice *GoethalsAlice
	benchBob   *GoethalsBob
	benchX     []int64
	benchY     []int64
	benchEnc   *EncryptedVector
)

func benchSetup(b *testing.B, withVector bool) {
	b.Helper()
	benchOnce.Do(func() {
		key, err := paillier.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(err)
		}
		benchAlice, err = NewGoethalsAlice(GoethalsAliceOptions{Key: key})
		if err != nil {
			panic(err)
		}
		benchBob, err = NewGoethalsBob(GoethalsBobOptions{PublicKey: benchAlice.PublicKey()})
		if err != nil {
			panic(err)
		}
		src := randx.NewSeeded(1)
		benchX = randomIndicator(src, adultRows, 0.5)
		benchY = randomIndicator(src, adultRows, 0.5)
	})
	if withVector && benchEnc == nil {
		enc, err := benchAlice.EncryptVector(benchX)
		if err != nil {
			b.Fatal(err)
		}
		benchEnc = enc
	}
}

// BenchmarkGoethalsEncryptVector2048 is Alice encrypting one 48842-long
// indicator vector (once per vector; precomputed table, all CPUs).
func BenchmarkGoethalsEncryptVector2048(b *testing.B) {
	benchSetup(b, false)
	for b.Loop() {
		enc, err := benchAlice.EncryptVector(benchX)
		if err != nil {
			b.Fatal(err)
		}
		benchEnc = enc
	}
}

// BenchmarkGoethalsRespond2048 is Bob's reply for one 48842-long indicator
// vector with about half its entries 1.
func BenchmarkGoethalsRespond2048(b *testing.B) {
	benchSetup(b, true)
	for b.Loop() {
		if _, _, err := benchBob.Respond(benchEnc, benchY); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGoethalsFinish2048 is Alice's decryption of the reply.
func BenchmarkGoethalsFinish2048(b *testing.B) {
	benchSetup(b, true)
	reply, _, err := benchBob.Respond(benchEnc, benchY)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := benchAlice.Finish(reply); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCommodity48842 is one whole Du–Atallah scalar product of two
// 48842-long indicator vectors (S's deal, both masks, both shares).
func BenchmarkCommodity48842(b *testing.B) {
	src := randx.NewSeeded(2)
	x, y := randomIndicator(src, adultRows, 0.5), randomIndicator(src, adultRows, 0.5)
	server, _ := NewCommodityServer(CommodityServerOptions{})
	for b.Loop() {
		ca, cb, err := server.Deal(adultRows)
		if err != nil {
			b.Fatal(err)
		}
		alice, _ := NewCommodityAlice(ca)
		bob, _ := NewCommodityBob(cb)
		mx, _ := alice.Mask(x)
		my, _ := bob.Mask(y)
		if _, err := alice.Finish(my); err != nil {
			b.Fatal(err)
		}
		if _, err := bob.Finish(mx); err != nil {
			b.Fatal(err)
		}
	}
}
