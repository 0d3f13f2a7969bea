package ledger_test

import (
	"bytes"
	"fmt"
	"os"
	"time"

	"github.com/dppub/dppub/ledger"
)

// Two owners submit noisy statistics, the publisher records the direction
// it computed and signs a checkpoint; an owner then audits the log, and
// checks its own entry with nothing but a proof and the checkpoint.
func Example() {
	// Deterministic keys for the example only; use NewIdentity(nil, name).
	seed := func(b byte) []byte { return bytes.Repeat([]byte{b}, 32) }
	alice, _ := ledger.NewIdentityFromSeed("alice", seed(1))
	bob, _ := ledger.NewIdentityFromSeed("bob", seed(2))
	publisher, _ := ledger.NewIdentityFromSeed("publisher", seed(3))
	ring, _ := ledger.NewKeyring(alice.Member(), bob.Member(), publisher.Member())
	signer, _ := publisher.NoteSigner()

	l, err := ledger.NewMemory(ledger.Options{Keyring: ring, Signer: signer, Origin: "example.org/lda-release"})
	if err != nil {
		fmt.Println(err)
		return
	}
	t := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	ledger.AppendNew(l, alice, ledger.KindStatisticsSubmitted, "lda-1", t, []byte(`{"sum":[0.4,1.2]}`))
	ledger.AppendNew(l, bob, ledger.KindStatisticsSubmitted, "lda-1", t.Add(time.Second), []byte(`{"sum":[0.7,0.1]}`))
	ledger.AppendNew(l, publisher, ledger.KindDirectionComputed, "lda-1", t.Add(2*time.Second), []byte(`{"w":[0.6,-0.8]}`))
	checkpoint, _ := l.Checkpoint()

	if err := ledger.Show(os.Stdout, l); err != nil {
		fmt.Println(err)
	}

	verifier, _ := publisher.Member().NoteVerifier()
	report, err := ledger.Verify(l, ring, checkpoint, verifier)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("verified:", report.Entries, "entries, checkpoint size", report.Checkpoint.Size, "signed by", report.Signer)

	// Alice's light-client check of her own entry.
	proof, _ := l.ProveInclusion(0, 3)
	mine, _ := l.Entry(0)
	_, err = ledger.VerifyInclusion(mine, 0, proof, checkpoint, verifier, ring)
	fmt.Println("alice's entry included:", err == nil)

	// Output:
	// 0 seq=0 2024-05-01T10:00:00Z alice statistics-submitted session=lda-1 payload=17B sha256=fa5bb30c8ca2e88c
	// 1 seq=1 2024-05-01T10:00:01Z bob statistics-submitted session=lda-1 payload=17B sha256=a7b37e91929a0e2f
	// 2 seq=2 2024-05-01T10:00:02Z publisher direction-computed session=lda-1 payload=16B sha256=3dde52c91db45265
	// verified: 3 entries, checkpoint size 3 signed by publisher
	// alice's entry included: true
}
