package ledger

import (
	"crypto/sha256"
	"fmt"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"
)

// fixture holds deterministic identities: two owners and the publisher,
// who also signs checkpoints.
type fixture struct {
	alice, bob, publisher *Identity
	ring                  Keyring
	signer                note.Signer
	verifier              note.Verifier
}

func testIdentity(t testing.TB, name string) *Identity {
	t.Helper()
	seed := sha256.Sum256([]byte("dppub ledger test key " + name))
	id, err := NewIdentityFromSeed(name, seed[:])
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	f := &fixture{alice: testIdentity(t, "alice"), bob: testIdentity(t, "bob"), publisher: testIdentity(t, "publisher")}
	var err error
	if f.ring, err = NewKeyring(f.alice.Member(), f.bob.Member(), f.publisher.Member()); err != nil {
		t.Fatal(err)
	}
	if f.signer, err = f.publisher.NoteSigner(); err != nil {
		t.Fatal(err)
	}
	if f.verifier, err = f.publisher.Member().NoteVerifier(); err != nil {
		t.Fatal(err)
	}
	return f
}

// verify verifies l against checkpoint with the fixture's keyring and
// the publisher's note verifier.
func (f *fixture) verify(l Ledger, checkpoint []byte) (*Report, error) {
	return Verify(l, f.ring, checkpoint, f.verifier)
}

// open opens the file ledger in dir with the fixture's options, closed
// when the test ends.
func (f *fixture) open(t testing.TB, dir string) *FileLedger {
	t.Helper()
	l, err := Open(dir, f.options())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func (f *fixture) options() Options {
	return Options{Keyring: f.ring, Signer: f.signer, Origin: "example.org/release-1", NoSync: true}
}

var t0 = time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)

// fill appends n entries, the senders and kinds cycling as a release would.
func (f *fixture) fill(t testing.TB, l Ledger, n int) {
	t.Helper()
	for range n {
		if _, err := f.appendOne(l, ""); err != nil {
			t.Fatal(err)
		}
	}
}

// appendOne appends the next entry of the standard sequence; extra changes
// its payload (to build alternative histories).
func (f *fixture) appendOne(l Ledger, extra string) (uint64, error) {
	i := l.Len()
	senders := []*Identity{f.alice, f.bob, f.publisher}
	kinds := []string{KindStatisticsSubmitted, KindStatisticsSubmitted, KindDirectionComputed}
	payload := fmt.Sprintf(`{"i":%d,"stat":[%d.5,-%d.25]%s}`, i, i, i, extra)
	return AppendNew(l, senders[i%3], kinds[i%3], "s1", t0.Add(time.Duration(i)*time.Second), []byte(payload))
}

func newMemory(t testing.TB, f *fixture, n int) *Memory {
	t.Helper()
	m, err := NewMemory(f.options())
	if err != nil {
		t.Fatal(err)
	}
	f.fill(t, m, n)
	return m
}
