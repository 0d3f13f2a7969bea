package ledger

import (
	"fmt"
	"testing"
	"time"
)

// signedChain builds n signed, chained entries without a ledger.
func signedChain(b *testing.B, f *fixture, n int) []*Entry {
	b.Helper()
	ids := []*Identity{f.alice, f.bob, f.publisher}
	out := make([]*Entry, n)
	var prev [32]byte
	for i := range out {
		e := &Entry{Seq: uint64(i), Kind: KindStatisticsSubmitted, Session: "bench", Time: t0.Add(time.Duration(i) * time.Millisecond),
			Payload: fmt.Appendf(nil, `{"i":%d,"sum":[0.123456789,-1.5,2.25,3.125]}`, i), PrevHash: prev}
		if err := ids[i%3].Sign(e); err != nil {
			b.Fatal(err)
		}
		h, err := e.Hash()
		if err != nil {
			b.Fatal(err)
		}
		prev, out[i] = h, e
	}
	return out
}

// BenchmarkAppend times Append of pre-signed entries: it verifies the
// sender's signature, hashes the tree and (file) writes the record.
func BenchmarkAppend(b *testing.B) {
	f := newFixture(b)
	for _, backend := range []string{"memory", "file-nosync", "file-fsync"} {
		b.Run(backend, func(b *testing.B) {
			entries := signedChain(b, f, b.N)
			var l Ledger
			o := f.options()
			o.NoSync = backend != "file-fsync"
			if backend == "memory" {
				l, _ = NewMemory(o)
			} else {
				fl, err := Open(b.TempDir(), o)
				if err != nil {
					b.Fatal(err)
				}
				defer fl.Close()
				l = fl
			}
			b.ResetTimer()
			for _, e := range entries {
				if _, err := l.Append(e); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkVerify10k times a full audit of 10,000 entries.
func BenchmarkVerify10k(b *testing.B) {
	f := newFixture(b)
	entries := signedChain(b, f, 10000)
	mem, _ := NewMemory(f.options())
	fl, err := Open(b.TempDir(), f.options())
	if err != nil {
		b.Fatal(err)
	}
	defer fl.Close()
	for _, l := range []Ledger{mem, fl} {
		for _, e := range entries {
			if _, err := l.Append(e); err != nil {
				b.Fatal(err)
			}
		}
	}
	for name, l := range map[string]Ledger{"memory": mem, "file": fl} {
		cp, err := l.Checkpoint()
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := f.verify(l, cp); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("open-file", func(b *testing.B) {
		o := f.options()
		o.ReadOnly = true
		for b.Loop() {
			l, err := Open(fl.Dir(), o)
			if err != nil || l.Len() != 10000 {
				b.Fatal(l.Len(), err)
			}
			l.Close()
		}
	})
}

// BenchmarkProofs times proving and checking inclusion in a 10k log.
func BenchmarkProofs(b *testing.B) {
	f := newFixture(b)
	m, _ := NewMemory(f.options())
	for _, e := range signedChain(b, f, 10000) {
		m.Append(e)
	}
	cp, _ := m.Checkpoint()
	e, _ := m.Entry(4321)
	b.Run("inclusion", func(b *testing.B) {
		for b.Loop() {
			p, err := m.ProveInclusion(4321, 10000)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := VerifyInclusion(e, 4321, p, cp, f.verifier, f.ring); err != nil {
				b.Fatal(err)
			}
		}
	})
}
