package transport

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/ledger"
	"github.com/dppub/dppub/privacy"
)

// A published and an aborted session are recorded as signed, verifiable
// entries whose payloads say what was published and who spent what.
func TestRecordSessions(t *testing.T) {
	id, err := ledger.NewIdentity(nil, "curator")
	if err != nil {
		t.Fatal(err)
	}
	ring, _ := ledger.NewKeyring(id.Member())
	signer, _ := id.NoteSigner()
	l, err := ledger.NewMemory(ledger.Options{Keyring: ring, Signer: signer})
	if err != nil {
		t.Fatal(err)
	}
	spent, left := dp.Pure(1), dp.Pure(2)
	charge := privacy.Charge{Purpose: "noisy moments", Spec: dp.Spec{Guarantee: spent}}
	res := &Result{Session: "s-1", Receipts: map[string]Receipt{
		"owner-1": {Budget: &spent, Charges: []privacy.Charge{charge}, Remaining: &left},
		"dealer":  {},
	}}
	files := map[string]string{"out.csv": FileDigest([]byte("a,b\n"))}
	if _, err := Record(l, id, PublishedRecord(res, "curator", json.RawMessage(`{"epsilon":1}`), "ppca-dp-mh", files), time.Now()); err != nil {
		t.Fatal(err)
	}
	failure := &SessionError{Session: "s-2", Method: "ppca-dp-mh", Participants: []string{"owner-1", "owner-2"}, prefix: " failed: ",
		Err: errors.New("owner-2 is unreachable"), Receipts: map[string]Receipt{"owner-1": res.Receipts["owner-1"]}}
	wrapped := fmt.Errorf("run: %w", failure)
	if _, err := Record(l, id, AbortedRecord(wrapped, "curator", nil, "ppca-dp-mh"), time.Now()); err != nil {
		t.Fatal(err)
	}
	cp, _ := l.Checkpoint()
	verifier, _ := id.Member().NoteVerifier()
	if _, err := ledger.Verify(l, ring, cp, verifier); err != nil {
		t.Fatal(err)
	}
	var got []SessionRecord
	var kinds []string
	for i := range l.Len() {
		e, _ := l.Entry(i)
		var r SessionRecord
		if err := json.Unmarshal(e.Payload, &r); err != nil {
			t.Fatal(err)
		}
		got, kinds = append(got, r), append(kinds, e.Kind)
	}
	if !slices.Equal(kinds, []string{KindSessionPublished, KindSessionAborted}) {
		t.Fatalf("kinds %v", kinds)
	}
	pub, ab := got[0], got[1]
	if len(pub.Spent) != 1 || pub.Spent[0].Member != "owner-1" || pub.Spent[0].Remaining != left.String() ||
		pub.Published["out.csv"] != files["out.csv"] || !slices.Equal(pub.Participants, []string{"dealer", "owner-1"}) {
		t.Fatalf("published record %+v", pub)
	}
	if ab.Session != "s-2" || !slices.Equal(ab.Missing, []string{"owner-2"}) || len(ab.Spent) != 1 ||
		ab.Failure != "run: transport: session s-2 failed: owner-2 is unreachable" || ab.Published != nil {
		t.Fatalf("aborted record %+v", ab)
	}
}
