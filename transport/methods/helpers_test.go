package methods

import (
	"bytes"
	"encoding"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dppub/dppub/consortium"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/method/methodtest"
	"github.com/dppub/dppub/ownerstats"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
	"github.com/dppub/dppub/transport"
)

// writeConsortium writes files (name → content) and a consortium file of
// members into a fresh directory and loads it.
func writeConsortium(t *testing.T, files map[string]string, members []consortium.Member) *consortium.File {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := json.Marshal(consortium.File{Name: "t", Members: members})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "c.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := consortium.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// fuzzDecoders fuzzes the decoders a node can receive: an input's first
// byte picks the decoder (modulo their number, in order), the rest is
// the body it decodes; a decoder fails t when it accepts what it must
// not.
func fuzzDecoders(f *testing.F, decoders ...func(t *testing.T, body []byte)) {
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 {
			return
		}
		decoders[int(b[0])%len(decoders)](t, b[1:])
	})
}

// unmarshals is a decoder of fuzzDecoders that unmarshals into a fresh T;
// accepting or refusing is all it may do.
func unmarshals[T any, P interface {
	*T
	encoding.BinaryUnmarshaler
}]() func(*testing.T, []byte) {
	return func(_ *testing.T, body []byte) {
		var m T
		_ = P(&m).UnmarshalBinary(body)
	}
}

// decodesSession is a decoder of fuzzDecoders that decodes a session of
// spec.
func decodesSession(spec method.Spec) func(*testing.T, []byte) {
	return func(_ *testing.T, body []byte) { _, _ = spec.Decode(body) }
}

// prepareAs prepares a session of spec with settings as the member self
// of f, the coordinator's randomness seeded.
func prepareAs(spec method.Spec, f *consortium.File, self, settings string) (*transport.Setup, error) {
	me, _ := f.Member(self)
	return prepare(spec, transport.PrepareInput{Consortium: f, Self: me, Settings: json.RawMessage(settings), Source: randx.NewSeeded(1)})
}

// curatorSession prepares a session of spec with settings as f's
// curator and decodes it as its first participant receives it.
func curatorSession(t *testing.T, spec method.Spec, f *consortium.File, settings string) method.Session {
	t.Helper()
	setup, err := prepareAs(spec, f, "curator", settings)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := spec.Decode(setup.Participants[0].Params)
	if err != nil {
		t.Fatal(err)
	}
	return sess
}

// threeRows is schemaJSON's schema and a table of three rows in it.
func threeRows(t *testing.T) (data.Schema, *data.Table) {
	t.Helper()
	schema, err := data.ParseSchema([]byte(schemaJSON))
	if err != nil {
		t.Fatal(err)
	}
	tab, _, err := data.ReadCSV(strings.NewReader("age,smoker\n30,no\n41,yes\n52,no\n"), schema, data.ReadOptions{Header: true})
	if err != nil {
		t.Fatal(err)
	}
	return schema, tab
}

// statisticsFile is the content of a statistics file of tab under c.
func statisticsFile(t *testing.T, tab *data.Table, c ownerstats.Config) string {
	t.Helper()
	return string(methodtest.StatisticsFile(t, tab, c))
}

// adultFile is the built-in Adult table and its file as write writes it.
func adultFile(t *testing.T, write func(io.Writer, *data.Table) error) (*data.Table, string) {
	t.Helper()
	adult, err := datasets.Load("adult")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := write(&b, adult); err != nil {
		t.Fatal(err)
	}
	return adult, b.String()
}

// joinAs joins the session of setup (of spec, coordinated by
// coordinator) as the member name of f, with params, an accountant
// holding budget and participants as the session's; its randomness is
// seeded.
func joinAs(spec method.Spec, f *consortium.File, setup *transport.Setup, coordinator, name string, params []byte, budget dp.Guarantee, participants []transport.Participant) error {
	self, _ := f.Member(name)
	acct, _ := privacy.NewAccountant(privacy.AccountantOptions{Party: name, Budget: budget})
	_, err := join(spec, transport.JoinInput{Consortium: f, Self: self, Session: setup.Session, Coordinator: coordinator,
		Participants: participants, Params: params, Accountant: acct, Source: randx.NewSeeded(2)})
	return err
}

// owner is an owner of f at addr holding the dataset at path under
// schema, with a lifetime budget of ε = 5.
func owner(name, addr, path, schema string, allowUnsound bool) consortium.Member {
	return consortium.Member{Name: name, Role: "owner", Address: addr, AllowUnsound: allowUnsound,
		Dataset: &consortium.Dataset{Path: path, Schema: schema}, Budget: &consortium.Budget{Epsilon: 5}}
}

// mustJSON is v as JSON.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
