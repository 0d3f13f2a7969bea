package ledger

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

func TestEntryEncodingKnownAnswer(t *testing.T) {
	e := &Entry{Seq: 1, Kind: "k", Sender: "a", Time: time.Unix(2, 3), Payload: []byte("xy")}
	got, err := e.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	want := "01" + "0000000000000001" + "000000016b" + "0000000161" + "00000000" +
		"0000000000000002" + "00000003" + "000000027879" + strings.Repeat("00", 32) + "00000000"
	if hex.EncodeToString(got) != want {
		t.Fatalf("encoding\n got %x\nwant %s", got, want)
	}
	msg, err := e.SigningMessage()
	if err != nil {
		t.Fatal(err)
	}
	if wantMsg := signingDomain + string(got[:len(got)-4]); string(msg) != wantMsg {
		t.Fatalf("signing message %q, want domain + encoding without signature %q", msg, wantMsg)
	}
	h, err := e.Hash()
	if err != nil {
		t.Fatal(err)
	}
	if h != tlog.RecordHash(got) {
		t.Fatalf("hash %v is not the RFC 6962 leaf hash of the encoding", h)
	}
}

func TestEntryRoundTrip(t *testing.T) {
	f := newFixture(t)
	e := &Entry{Seq: 7, Kind: KindArtifactPublished, Session: "release-2024", Time: time.Date(2024, 2, 29, 23, 59, 59, 999999999, time.FixedZone("CET", 3600)),
		Payload: []byte(`{"w":[0.1,0.2]}`), PrevHash: [32]byte{1, 2, 3}}
	if err := f.publisher.Sign(e); err != nil {
		t.Fatal(err)
	}
	enc, err := e.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var d Entry
	if err := d.UnmarshalBinary(enc); err != nil {
		t.Fatal(err)
	}
	if d.Seq != e.Seq || d.Kind != e.Kind || d.Sender != "publisher" || d.Session != e.Session || !d.Time.Equal(e.Time) ||
		!bytes.Equal(d.Payload, e.Payload) || d.PrevHash != e.PrevHash || !bytes.Equal(d.Signature, e.Signature) {
		t.Fatalf("round trip changed the entry:\n%+v\n%+v", e, &d)
	}
	again, _ := d.MarshalBinary()
	if !bytes.Equal(again, enc) {
		t.Fatal("re-encoding differs: encoding is not canonical")
	}
	if err := f.ring.VerifyEntry(&d); err != nil {
		t.Fatalf("decoded entry no longer verifies: %v", err)
	}
}

func TestUnmarshalRefusesNonCanonical(t *testing.T) {
	f := newFixture(t)
	e := &Entry{Seq: 3, Kind: "k", Session: "s", Time: t0, Payload: []byte("p")}
	if err := f.alice.Sign(e); err != nil {
		t.Fatal(err)
	}
	enc, _ := e.MarshalBinary()
	for n := range len(enc) {
		if err := new(Entry).UnmarshalBinary(enc[:n]); !errors.Is(err, ErrMalformed) {
			t.Fatalf("truncation to %d bytes: error %v, want ErrMalformed", n, err)
		}
	}
	cases := map[string][]byte{
		"trailing byte": append(bytes.Clone(enc), 0),
		"version 2":     append([]byte{2}, enc[1:]...),
	}
	nanos := bytes.Clone(enc)
	nanosAt := 1 + 8 + 4 + 1 + 4 + 5 + 4 + 1 + 8
	copy(nanos[nanosAt:], []byte{0x3b, 0x9a, 0xca, 0x00}) // 1e9
	cases["nanoseconds 1e9"] = nanos
	huge := bytes.Clone(enc)
	copy(huge[9:], []byte{0xff, 0xff, 0xff, 0xff}) // kind length
	cases["kind length 2^32-1"] = huge
	space := bytes.Clone(enc)
	space[13] = ' ' // the kind "k" becomes " "
	cases["kind with a space"] = space
	for name, b := range cases {
		if err := new(Entry).UnmarshalBinary(b); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: error %v, want ErrMalformed", name, err)
		}
	}
}

func TestEntryFieldValidation(t *testing.T) {
	bad := []Entry{
		{Kind: "", Sender: "a"},
		{Kind: "k", Sender: ""},
		{Kind: "k", Sender: "a+b"},
		{Kind: "k", Sender: "a b"},
		{Kind: "k\n", Sender: "a"},
		{Kind: "k", Sender: "a", Session: "x\x00"},
		{Kind: "k", Sender: strings.Repeat("a", MaxNameLen+1)},
		{Kind: "k", Sender: "a", Payload: make([]byte, MaxPayloadLen+1)},
	}
	for _, e := range bad {
		if _, err := e.MarshalBinary(); err == nil {
			t.Errorf("entry %q/%q/%q encoded without error", e.Kind, e.Sender, e.Session)
		}
	}
}

func TestIdentityKeysMatchNoteFormat(t *testing.T) {
	skey, vkey, err := note.GenerateKey(bytes.NewReader(bytes.Repeat([]byte{7}, 32)), "publisher")
	if err != nil {
		t.Fatal(err)
	}
	id, err := ParseIdentity([]byte(skey))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := id.MarshalText(); string(got) != skey {
		t.Fatalf("identity text %q, want note's %q", got, skey)
	}
	if got := id.Member().VerifierKey(); got != vkey {
		t.Fatalf("verifier key %q, want note's %q", got, vkey)
	}
	if strings.Contains(id.String(), "PRIVATE") {
		t.Fatalf("String leaks the key: %s", id)
	}
	m, err := ParseMember([]byte(vkey))
	if err != nil || m.Name != "publisher" || !m.PublicKey.Equal(id.Member().PublicKey) {
		t.Fatalf("ParseMember(%q) = %+v, %v", vkey, m, err)
	}
	// A checkpoint signed with NoteSigner opens with note's own verifier.
	signer, err := id.NoteSigner()
	if err != nil {
		t.Fatal(err)
	}
	v, err := note.NewVerifier(vkey)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := SignCheckpoint(Checkpoint{Origin: "o", Size: 0}, signer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenCheckpoint(msg, v); err != nil {
		t.Fatal(err)
	}
	// A wrong key hash is refused.
	bad := strings.Replace(vkey, vkey[len("publisher+"):len("publisher+")+8], "00000000", 1)
	if _, err := ParseMember([]byte(bad)); err == nil {
		t.Fatalf("ParseMember accepted a wrong key hash: %q", bad)
	}
}

func TestNewIdentityIsDeterministicInItsReader(t *testing.T) {
	a, err := NewIdentity(bytes.NewReader(bytes.Repeat([]byte{9}, 32)), "alice")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewIdentityFromSeed("alice", bytes.Repeat([]byte{9}, 32))
	if !a.Member().PublicKey.Equal(b.Member().PublicKey) {
		t.Fatal("NewIdentity does not use its reader as the seed")
	}
	c, err := NewIdentity(nil, "alice")
	if err != nil || len(c.Member().PublicKey) != ed25519.PublicKeySize || c.Member().PublicKey.Equal(a.Member().PublicKey) {
		t.Fatalf("NewIdentity(nil) = %v, %v", c, err)
	}
	if _, err := NewIdentity(nil, "bad name"); err == nil {
		t.Fatal("NewIdentity accepted a name with a space")
	}
}

func TestKeyring(t *testing.T) {
	f := newFixture(t)
	text, err := f.ring.MarshalText()
	if err != nil {
		t.Fatal(err)
	}
	ring, err := ParseKeyring(append([]byte("# owners and publisher\n\n"), text...))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range ring.Members() {
		names = append(names, m.Name)
	}
	if strings.Join(names, ",") != "alice,bob,publisher" {
		t.Fatalf("members %v", names)
	}
	if _, err := NewKeyring(f.alice.Member(), f.alice.Member()); err == nil {
		t.Fatal("duplicate member accepted")
	}
	if _, err := NewKeyring(Member{Name: "x", PublicKey: []byte{1, 2}}); err == nil {
		t.Fatal("short public key accepted")
	}
	if _, err := ParseKeyring([]byte("alice+12345678+AAAA\n")); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("bad keyring line: error %v", err)
	}
}
