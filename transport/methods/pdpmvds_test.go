package methods

import (
	pdpmvdsspec "github.com/dppub/dppub/method/pdpmvds"
	"math/big"
	"strings"
	"testing"

	"github.com/dppub/dppub/consortium"
	"github.com/dppub/dppub/crypto/dlpa"
	"github.com/dppub/dppub/crypto/paillier"
	"github.com/dppub/dppub/dp"
	pdpmvds "github.com/dppub/dppub/method/pdpmvds/roles"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
	"github.com/dppub/dppub/transport"
)

// pdpmvdsConsortium is a synthesizer, two parties holding different
// columns of the same three rows, and S.
func pdpmvdsConsortium(t *testing.T) *consortium.File {
	t.Helper()
	return writeConsortium(t, map[string]string{
		"p1.json": `{"attributes": [{"name": "age", "kind": "numeric", "min": 0, "max": 100}]}`,
		"p2.json": `{"attributes": [{"name": "smoker", "kind": "binary", "categories": ["no", "yes"]}]}`,
		"p1.csv":  "age\n30\n41\n52\n",
		"p2.csv":  "smoker\nno\nyes\n",
	}, []consortium.Member{
		{Name: "synth", Role: "synthesizer", Address: "h:1"},
		{Name: "a", Role: "owner", Address: "h:2", Dataset: &consortium.Dataset{Path: "p1.csv", Schema: "p1.json"}, Budget: &consortium.Budget{Rho: 1}},
		{Name: "b", Role: "owner", Address: "h:3", Dataset: &consortium.Dataset{Path: "p2.csv", Schema: "p2.json"}, Budget: &consortium.Budget{Rho: 1}},
		{Name: "s", Role: "third-party", Address: "h:4"},
	})
}

func TestPDPMVDSSettingsAndJoin(t *testing.T) {
	f := pdpmvdsConsortium(t)
	prep := func(settings string) (*transport.Setup, error) {
		return prepareAs(pdpmvdsspec.Spec, f, "synth", settings)
	}
	setup := prepareChecked(t, pdpmvdsspec.Spec, f, "synth", `{"records": 3, "rho": 0.5, "budgets": {"b": 0.25}}`, map[string]string{
		"no records":         `{"rho": 1}`,
		"no budget":          `{"records": 3}`,
		"stranger budget":    `{"records": 3, "rho": 1, "budgets": {"zed": 1}}`,
		"keys outside":       `{"records": 3, "rho": 1, "sspp": "paillier", "keys": "../keys"}`,
		"keys absolute":      `{"records": 3, "rho": 1, "sspp": "paillier", "keys": "/etc"}`,
		"bad noise":          `{"records": 3, "rho": 1, "noise": "loud"}`,
		"bad mechanism":      `{"records": 3, "rho": 1, "mechanism": "cauchy"}`,
		"typo":               `{"records": 3, "rho": 1, "roundz": 3}`,
		"negative rounds":    `{"records": 3, "rho": 1, "rounds": -1}`,
		"delta out of (0,1)": `{"records": 3, "rho": 1, "delta": 2}`,
	})
	if len(setup.Participants) != 3 || *setup.Participants[1].Budget != dp.Concentrated(0.25) || setup.Participants[2].Budget != nil {
		t.Fatalf("participants %+v", setup.Participants)
	}
	setup.Cleanup()
	joinAs := func(name string, budget *dp.Guarantee) (protocol.Role, error) {
		return join(pdpmvdsspec.Spec, joinInput(f, setup, "synth", name, setup.Participants[0].Params, budget))
	}
	half, quarter := dp.Concentrated(0.5), dp.Concentrated(0.25)
	r, err := joinAs("a", &half)
	if err != nil {
		t.Fatalf("a should join: %v", err)
	}
	if r.ID() != "a" {
		t.Fatalf("a's role is named %q", r.ID())
	}
	if s, err := joinAs("s", nil); err != nil || s.ID() != "s" {
		t.Fatalf("S should join as s: %v", err)
	}
	if _, err := joinAs("b", &quarter); err == nil || !strings.Contains(err.Error(), "2 records") {
		t.Fatalf("b holds 2 of 3 records: %v", err)
	}
	if _, err := joinAs("a", &quarter); err == nil || !strings.Contains(err.Error(), "budget") {
		t.Fatalf("budget mismatch: %v", err)
	}
	// The paillier suite needs the key ceremony's directory.
	keyless, err := prep(`{"records": 3, "rho": 1, "sspp": "paillier"}`)
	if err != nil {
		t.Fatal(err)
	}
	keyless.Cleanup()
	one := dp.Concentrated(1)
	if _, err := join(pdpmvdsspec.Spec, joinInput(f, keyless, "synth", "a", keyless.Participants[0].Params, &one)); err == nil || !strings.Contains(err.Error(), "needs keys") {
		t.Fatalf("paillier without keys: %v", err)
	}
	// Messages are renamed both ways; a message from a non-member is refused.
	e, _ := protocol.Seal(setup.Session, "zed", "a", pdpmvds.Close{})
	if _, err := r.Handle(e); err == nil || !strings.Contains(err.Error(), "not a member") {
		t.Fatalf("message from a stranger: %v", err)
	}
}

// FuzzPDPMVDSMessages feeds every PDP-MVDS decoder a node can receive:
// the envelopes' (request, body, close, session), and the Paillier
// suite's blobs inside bodies (a fellow's modulus, ciphertexts, partial
// decryptions, DLPA messages); the first byte picks the decoder.
func FuzzPDPMVDSMessages(f *testing.F) {
	q, _ := (&pdpmvds.Request{ID: 1, Kind: pdpmvds.KindMarginal, Attrs: []int{0, 1}}).MarshalBinary()
	f.Add(append([]byte{0}, q...))
	b, _ := (&pdpmvds.Body{Kind: "totals", ID: 1, Words: []uint64{1, 2}}).MarshalBinary()
	f.Add(append([]byte{1}, b...))
	sk, err := paillier.GenerateInsecureTestKey(paillier.NewReader(randx.NewSeeded(1)), 512)
	if err != nil {
		f.Fatal(err)
	}
	pk := &sk.PublicKey
	c, err := pk.Encrypt(paillier.NewReader(randx.NewSeeded(2)), big.NewInt(7))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(append([]byte{5}, pk.MarshalCiphertexts([]*paillier.Ciphertext{c})...))
	f.Add(append([]byte{4}, pk.N.Bytes()...))
	fuzzDecoders(f,
		unmarshals[pdpmvds.Request](),
		unmarshals[pdpmvds.Body](),
		func(t *testing.T, body []byte) {
			var m pdpmvds.Close
			if m.UnmarshalBinary(body) == nil && len(body) != 0 {
				t.Fatal("close with a body accepted")
			}
		},
		decodesSession(pdpmvdsspec.Spec),
		func(_ *testing.T, body []byte) { _, _ = paillier.NewPublicKey(new(big.Int).SetBytes(body)) },
		func(_ *testing.T, body []byte) { _, _ = pk.UnmarshalCiphertexts(body) },
		unmarshals[paillier.PartialDecryption](),
		unmarshals[dlpa.SharesMessage](),
		unmarshals[dlpa.Contribution]())
}
