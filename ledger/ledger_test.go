package ledger

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"testing"

	"golang.org/x/mod/sumdb/tlog"
)

// backends builds an empty ledger of each kind.
func backends(t *testing.T, f *fixture) map[string]Ledger {
	t.Helper()
	m, err := NewMemory(f.options())
	if err != nil {
		t.Fatal(err)
	}
	return map[string]Ledger{"memory": m, "file": f.open(t, t.TempDir())}
}

func TestAppendRefusals(t *testing.T) {
	f := newFixture(t)
	mallory := testIdentity(t, "mallory")
	for name, l := range backends(t, f) {
		t.Run(name, func(t *testing.T) {
			f.fill(t, l, 2)
			seq, prev, err := Head(l)
			if err != nil {
				t.Fatal(err)
			}
			next := func() *Entry {
				return &Entry{Seq: seq, Kind: KindBudgetSpent, Session: "s1", Time: t0, Payload: []byte(`{"eps":0.5}`), PrevHash: prev}
			}
			refuse := func(what string, e *Entry, want error, quoted ...string) {
				t.Helper()
				_, err := l.Append(e)
				if !errors.Is(err, want) {
					t.Fatalf("%s: error %v, want %v", what, err, want)
				}
				for _, q := range quoted {
					if !strings.Contains(err.Error(), q) {
						t.Errorf("%s: error %q does not quote %q", what, err, q)
					}
				}
				if l.Len() != 2 {
					t.Fatalf("%s: refused append changed the length to %d", what, l.Len())
				}
			}

			e := next()
			mallory.Sign(e)
			refuse("non-member", e, ErrUnknownSender, `"mallory"`)

			e = next()
			mallory.Sign(e)
			e.Sender = "alice" // mallory's signature claimed as alice's
			refuse("forged signature", e, ErrBadSignature, `"alice"`, "seq 2")

			e = next()
			f.alice.Sign(e)
			e.Payload = []byte(`{"eps":0.05}`) // altered after signing
			refuse("altered payload", e, ErrBadSignature, `"alice"`)

			e = next()
			e.Seq = 5
			f.alice.Sign(e)
			refuse("wrong seq", e, ErrWrongSeq, "seq 5", "next is 2")

			e = next()
			e.PrevHash[0] ^= 1
			f.alice.Sign(e)
			refuse("wrong prev hash", e, ErrBrokenChain, "seq 2")

			e = next()
			f.alice.Sign(e)
			if i, err := l.Append(e); err != nil || i != 2 {
				t.Fatalf("valid append: index %d, %v", i, err)
			}
			got, err := l.Entry(2)
			if err != nil || got.Sender != "alice" || string(got.Payload) != `{"eps":0.5}` {
				t.Fatalf("entry 2 = %+v, %v", got, err)
			}
		})
	}
}

func TestVerifyValidLog(t *testing.T) {
	f := newFixture(t)
	for name, l := range backends(t, f) {
		t.Run(name, func(t *testing.T) {
			f.fill(t, l, 7)
			cp, err := l.Checkpoint()
			if err != nil {
				t.Fatal(err)
			}
			f.fill(t, l, 2) // two entries after the checkpoint
			r, err := f.verify(l, cp)
			if err != nil {
				t.Fatal(err)
			}
			if r.Entries != 9 || r.Checkpoint.Size != 7 || r.Uncovered() != 2 || r.Signer != "publisher" {
				t.Fatalf("report %+v", r)
			}
			if r.BySender["alice"] != 3 || r.BySender["bob"] != 3 || r.BySender["publisher"] != 3 || r.ByKind[KindStatisticsSubmitted] != 6 {
				t.Fatalf("counts %v %v", r.BySender, r.ByKind)
			}
			if !r.First.Equal(t0) || !r.Last.Equal(t0.Add(8e9)) {
				t.Fatalf("times %v .. %v", r.First, r.Last)
			}
			s := r.String()
			for _, want := range []string{"9 entries", "size 7", "last 2 entries", "alice 3, bob 3, publisher 3"} {
				if !strings.Contains(s, want) {
					t.Errorf("report lacks %q:\n%s", want, s)
				}
			}
		})
	}
}

// TestMerkleRootKnownAnswer recomputes RFC 6962 roots by hand.
func TestMerkleRootKnownAnswer(t *testing.T) {
	f := newFixture(t)
	m := newMemory(t, f, 3)
	var h [3]tlog.Hash
	for i := range h {
		h[i] = tlog.RecordHash(m.records[i])
	}
	want := map[uint64]tlog.Hash{
		1: h[0],
		2: tlog.NodeHash(h[0], h[1]),
		3: tlog.NodeHash(tlog.NodeHash(h[0], h[1]), h[2]),
	}
	for size, root := range want {
		got, err := tlog.TreeHash(int64(size), m.tree)
		if err != nil || got != root {
			t.Fatalf("root at size %d = %v, %v; want %v", size, got, err, root)
		}
	}
	cp, _ := m.Checkpoint()
	c, err := OpenCheckpoint(cp, f.verifier)
	if err != nil || c.Size != 3 || c.Hash != want[3] || c.Origin != "example.org/release-1" {
		t.Fatalf("checkpoint %v, %v", c, err)
	}
	if !bytes.HasPrefix(cp, []byte("example.org/release-1\n3\n"+want[3].String()+"\n\n— publisher ")) {
		t.Fatalf("checkpoint note layout:\n%s", cp)
	}
	// Entry i+1's PrevHash is entry i's leaf hash: chain and tree agree.
	e2, _ := m.Entry(2)
	if e2.PrevHash != h[1] {
		t.Fatal("PrevHash is not the previous leaf hash")
	}
}

// TestVerifyDetectsEveryByteFlip flips each bit-0 of every stored byte of a
// small in-memory log, i.e. a dishonest backend serving altered entries.
func TestVerifyDetectsEveryByteFlip(t *testing.T) {
	f := newFixture(t)
	m := newMemory(t, f, 4)
	cp, _ := m.Checkpoint()
	if _, err := f.verify(m, cp); err != nil {
		t.Fatal(err)
	}
	positions := 0
	for i, rec := range m.records {
		for j := range rec {
			for _, mask := range []byte{0x01, 0x80} {
				rec[j] ^= mask
				if _, err := f.verify(m, cp); err == nil {
					t.Fatalf("flipping byte %d of entry %d with %#x went undetected", j, i, mask)
				}
				rec[j] ^= mask
				positions++
			}
		}
	}
	t.Logf("%d altered copies, all detected", positions)
}

func TestVerifyDetectsReorderAndDrop(t *testing.T) {
	f := newFixture(t)
	m := newMemory(t, f, 4)
	cp4, _ := m.Checkpoint()
	f.fill(t, m, 1)
	cp5, _ := m.Checkpoint()
	orig := append([][]byte(nil), m.records...)

	m.records[1], m.records[3] = m.records[3], m.records[1]
	if _, err := f.verify(m, cp5); !errors.Is(err, ErrWrongSeq) {
		t.Fatalf("reordered entries: error %v, want ErrWrongSeq", err)
	}

	// Drop entry 2: the length gives it away against cp5, the sequence
	// numbers against cp4.
	m.records = append(append([][]byte(nil), orig[:2]...), orig[3:]...)
	m.tree.n = 4
	if _, err := f.verify(m, cp5); err == nil || !strings.Contains(err.Error(), "dropped") {
		t.Fatalf("dropped entry against size 5: error %v", err)
	}
	if _, err := f.verify(m, cp4); !errors.Is(err, ErrWrongSeq) {
		t.Fatalf("dropped entry against size 4: error %v, want ErrWrongSeq", err)
	}

	// Drop the last entry: only the checkpoint can tell.
	m.records = orig[:4]
	if _, err := f.verify(m, cp4); err != nil {
		t.Fatalf("the surviving prefix should verify against cp4: %v", err)
	}
	if _, err := f.verify(m, cp5); err == nil || !strings.Contains(err.Error(), "dropped") {
		t.Fatalf("dropped last entry: error %v", err)
	}
}

// TestVerifyDetectsResignedRewrite: members re-sign a rewritten entry and
// everything after it; the chain and signatures are then valid and only
// the checkpoint catches it.
func TestVerifyDetectsResignedRewrite(t *testing.T) {
	f := newFixture(t)
	honest := newMemory(t, f, 6)
	cp, _ := honest.Checkpoint()
	forged := newMemory(t, f, 2)
	f.appendOne(forged, `,"rewritten":true`)
	f.fill(t, forged, 3)
	if _, err := f.verify(forged, nil); err == nil {
		t.Fatal("nil checkpoint accepted")
	}
	_, err := f.verify(forged, cp)
	if err == nil || !strings.Contains(err.Error(), "rewritten") {
		t.Fatalf("rewritten history: error %v", err)
	}
	other := testIdentity(t, "publisher") // same name, same key: must verify
	v, _ := other.Member().NoteVerifier()
	if _, err := Verify(honest, f.ring, cp, v); err != nil {
		t.Fatal(err)
	}
	impostor, _ := NewIdentityFromSeed("publisher", bytes.Repeat([]byte{1}, 32))
	v, _ = impostor.Member().NoteVerifier()
	if _, err := Verify(honest, f.ring, cp, v); !errors.Is(err, ErrBadCheckpoint) {
		t.Fatalf("checkpoint under another key: error %v, want ErrBadCheckpoint", err)
	}
}

func TestInclusionProofs(t *testing.T) {
	f := newFixture(t)
	m, _ := NewMemory(f.options())
	for size := uint64(1); size <= 9; size++ {
		f.fill(t, m, 1)
		cp, err := m.Checkpoint()
		if err != nil {
			t.Fatal(err)
		}
		for i := range size {
			p, err := m.ProveInclusion(i, size)
			if err != nil {
				t.Fatal(err)
			}
			e, _ := m.Entry(i)
			if _, err := VerifyInclusion(e, i, p, cp, f.verifier, f.ring); err != nil {
				t.Fatalf("entry %d in size %d: %v", i, size, err)
			}
			e.Payload = append(e.Payload, ' ')
			if _, err := VerifyInclusion(e, i, p, cp, f.verifier, f.ring); err == nil {
				t.Fatalf("altered entry %d verified in size %d", i, size)
			}
		}
	}
	cp, _ := m.Checkpoint()
	e3, _ := m.Entry(3)
	p4, _ := m.ProveInclusion(4, 9)
	if _, err := VerifyInclusion(e3, 4, p4, cp, f.verifier, f.ring); !errors.Is(err, ErrWrongSeq) {
		t.Fatalf("entry 3 claimed at index 4: %v", err)
	}
	// A valid, re-signed entry that is not in the log: the proof fails.
	fake := *e3
	fake.Payload = []byte(`{"fake":true}`)
	f.alice.Sign(&fake)
	p3, _ := m.ProveInclusion(3, 9)
	if _, err := VerifyInclusion(&fake, 3, p3, cp, f.verifier, f.ring); err == nil || !strings.Contains(err.Error(), "not in") {
		t.Fatalf("signed entry outside the log: %v", err)
	}
	for _, c := range [][2]uint64{{9, 9}, {0, 10}, {5, 3}} {
		if _, err := m.ProveInclusion(c[0], c[1]); err == nil {
			t.Errorf("ProveInclusion(%d, %d) succeeded", c[0], c[1])
		}
	}
}

func TestConsistencyProofs(t *testing.T) {
	f := newFixture(t)
	m := newMemory(t, f, 3)
	cp0, _ := NewMemory(f.options())
	empty, _ := cp0.Checkpoint()
	cp3, _ := m.Checkpoint()
	f.fill(t, m, 4)
	cp7, _ := m.Checkpoint()

	p, err := m.ProveConsistency(3, 7)
	if err != nil {
		t.Fatal(err)
	}
	o, n, err := VerifyConsistency(cp3, cp7, p, f.verifier)
	if err != nil || o.Size != 3 || n.Size != 7 {
		t.Fatalf("3 -> 7: %v %v %v", o, n, err)
	}

	// A rewritten history: entry 1 differs (validly re-signed by its
	// sender, the publisher signs the new head). Neither the forged log's
	// proof nor the honest one links the old checkpoint to the forged one.
	forged := newMemory(t, f, 1)
	f.appendOne(forged, `,"rewritten":true`)
	f.fill(t, forged, 5)
	forged7, _ := forged.Checkpoint()
	pf, _ := forged.ProveConsistency(3, 7)
	for name, proof := range map[string]tlog.TreeProof{"forged proof": pf, "honest proof": p} {
		if _, _, err := VerifyConsistency(cp3, forged7, proof, f.verifier); err == nil {
			t.Fatalf("%s: rewritten history passed", name)
		}
	}
	// Every prefix of the honest log extends the empty log and itself.
	for _, c := range [][]byte{cp3, cp7} {
		if _, _, err := VerifyConsistency(empty, c, nil, f.verifier); err != nil {
			t.Fatalf("empty -> %s: %v", c, err)
		}
		if _, _, err := VerifyConsistency(c, c, nil, f.verifier); err != nil {
			t.Fatalf("same size: %v", err)
		}
	}
	if _, _, err := VerifyConsistency(cp7, cp3, p, f.verifier); err == nil || !strings.Contains(err.Error(), "shrank") {
		t.Fatalf("7 -> 3: %v", err)
	}
	other, _ := NewMemory(Options{Keyring: f.ring, Signer: f.signer, Origin: "other-log"})
	f.fill(t, other, 7)
	otherCP, _ := other.Checkpoint()
	if _, _, err := VerifyConsistency(cp3, otherCP, p, f.verifier); err == nil || !strings.Contains(err.Error(), "origins") {
		t.Fatalf("different origin: %v", err)
	}
}

func TestCheckpointWithoutSigner(t *testing.T) {
	m, err := NewMemory(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Checkpoint(); err == nil {
		t.Fatal("checkpoint without a signer succeeded")
	}
	if _, err := NewMemory(Options{Origin: "two\nlines"}); err == nil {
		t.Fatal("origin with a newline accepted")
	}
}

func TestShow(t *testing.T) {
	f := newFixture(t)
	m := newMemory(t, f, 3)
	var b bytes.Buffer
	if err := Show(&b, m); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	want := "2 seq=2 2024-05-01T10:00:02Z publisher direction-computed session=s1 payload=26B sha256="
	if !strings.HasPrefix(lines[2], want) || len(lines[2]) != len(want)+16 {
		t.Fatalf("line %q, want prefix %q and 16 hex digits", lines[2], want)
	}
}

func TestConcurrentAppendersRetry(t *testing.T) {
	f := newFixture(t)
	m, _ := NewMemory(f.options())
	var wg sync.WaitGroup
	for _, id := range []*Identity{f.alice, f.bob, f.publisher} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 20; {
				_, err := AppendNew(m, id, KindBudgetSpent, "s", t0, []byte{byte(k)})
				switch {
				case err == nil:
					k++
				case errors.Is(err, ErrWrongSeq) || errors.Is(err, ErrBrokenChain):
					// lost the race for the head: retry
				default:
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	cp, _ := m.Checkpoint()
	r, err := f.verify(m, cp)
	if err != nil || r.Entries != 60 || r.BySender["bob"] != 20 {
		t.Fatalf("after concurrent appends: %v, %v", r, err)
	}
}
