package roles

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/ledger"
	"github.com/dppub/dppub/method/mullda/lda"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

func ownerNames(m int) []string {
	names := make([]string, m)
	for i := range names {
		names[i] = fmt.Sprintf("owner-%d", i+1)
	}
	return names
}

func testParams(m, p int, eps float64, cal lda.Calibration, mode lda.NoiseMode) Params {
	pr := Params{Session: "s1", Owners: ownerNames(m), Publisher: "publisher",
		Plan: lda.PlanOptions{Calibration: cal, Epsilon: eps, Delta: 1e-3, P: p, Classes: 2, Owners: m, Noise: mode}}
	if pr.NeedsDealer() {
		pr.Dealer = "dealer"
	}
	return pr
}

// memLedgers builds an in-memory ledger and one Ledger handle per party.
func memLedgers(t testing.TB, parties []string) (ledger.Ledger, map[string]*Ledger, ledger.Keyring, *ledger.Identity) {
	t.Helper()
	ids := map[string]*ledger.Identity{}
	var members []ledger.Member
	for i, name := range parties {
		id, err := ledger.NewIdentityFromSeed(name, bytes.Repeat([]byte{byte(i + 1)}, 32))
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = id
		members = append(members, id.Member())
	}
	ring, err := ledger.NewKeyring(members...)
	if err != nil {
		t.Fatal(err)
	}
	pub := ids["publisher"]
	signer, err := pub.NoteSigner()
	if err != nil {
		t.Fatal(err)
	}
	verifier, err := pub.Member().NoteVerifier()
	if err != nil {
		t.Fatal(err)
	}
	log, err := ledger.NewMemory(ledger.Options{Keyring: ring, Signer: signer, Origin: "test/mul-lda-dp"})
	if err != nil {
		t.Fatal(err)
	}
	handles := map[string]*Ledger{}
	for name, id := range ids {
		handles[name] = &Ledger{Log: log, Identity: id, Keyring: ring, Operator: verifier}
	}
	return log, handles, ring, pub
}

// twoClassData draws n rows of dimension p in two shifted Gaussian classes,
// scaled into the unit ball.
func twoClassData(n, p int, seed uint64) (*mat.Dense, []int) {
	src := randx.NewSeeded(seed)
	X := mat.NewDense(n, p, nil)
	y := make([]int, n)
	for i := 0; i < n; i++ {
		y[i] = i % 2
		row := X.RawRowView(i)
		for j := range row {
			row[j] = 0.1 * src.NormFloat64()
		}
		row[0] += 0.2 * float64(y[i])
		row[1] -= 0.1 * float64(y[i])
		norm := 0.0
		for _, v := range row {
			norm += v * v
		}
		if norm = math.Sqrt(norm); norm > 1 {
			for j := range row {
				row[j] /= norm
			}
		}
	}
	return X, y
}

type session struct {
	owners    []*Owner
	dealer    *NoiseDealer
	publisher *Publisher
	roles     []protocol.Role
}

// newSession splits X among the owners in equal contiguous blocks.
func newSession(t testing.TB, pr Params, X *mat.Dense, y []int, ledgers map[string]*Ledger, seed uint64) *session {
	t.Helper()
	src := randx.NewSeeded(seed)
	n, _ := X.Dims()
	m := len(pr.Owners)
	s := &session{}
	for i, id := range pr.Owners {
		lo, hi := i*n/m, (i+1)*n/m
		acct, err := privacy.NewAccountant(privacy.AccountantOptions{Party: id, Budget: dp.Approx(pr.Plan.Epsilon, pr.Plan.Delta)})
		if err != nil {
			t.Fatal(err)
		}
		o, err := NewOwner(OwnerOptions{ID: id, Params: pr, Data: mat.DenseCopyOf(X.Slice(lo, hi, 0, X.RawMatrix().Cols)),
			Labels: y[lo:hi], Accountant: acct, Source: src.Child(), Ledger: ledgers[id]})
		if err != nil {
			t.Fatal(err)
		}
		s.owners = append(s.owners, o)
		s.roles = append(s.roles, o)
	}
	if pr.NeedsDealer() {
		d, err := NewNoiseDealer(DealerOptions{Params: pr, Source: src.Child()})
		if err != nil {
			t.Fatal(err)
		}
		s.dealer = d
		s.roles = append(s.roles, d)
	}
	pb, err := NewPublisher(PublisherOptions{Params: pr, Source: src.Child(), Ledger: ledgers["publisher"]})
	if err != nil {
		t.Fatal(err)
	}
	s.publisher = pb
	s.roles = append(s.roles, pb)
	return s
}

// run runs every role of the session in one process.
func (s *session) run() error {
	_, err := protocol.RunLocal(context.Background(), s.roles...)
	return err
}
