package methods

import (
	"github.com/dppub/dppub/ownerstats"
	"strings"
	"testing"

	"github.com/dppub/dppub/consortium"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/method/methodtest"
	ppcaspec "github.com/dppub/dppub/method/ppcadpmh"
	ppcadpmh "github.com/dppub/dppub/method/ppcadpmh/roles"
	"github.com/dppub/dppub/randx"
	"github.com/dppub/dppub/transport"
)

const schemaJSON = `{"attributes": [
 {"name": "age", "kind": "numeric", "min": 0, "max": 100},
 {"name": "smoker", "kind": "binary", "categories": ["no", "yes"]}]}`

func testConsortium(t *testing.T, allowUnsound bool) *consortium.File {
	t.Helper()
	return writeConsortium(t, map[string]string{
		"s.json":     schemaJSON,
		"other.json": strings.Replace(schemaJSON, "100", "120", 1),
		"a.csv":      "age,smoker\n30,no\n41,yes\n52,no\n",
	}, []consortium.Member{
		{Name: "curator", Role: "curator", Address: "h:1"},
		owner("owner-1", "h:2", "a.csv", "s.json", allowUnsound),
		owner("owner-2", "h:3", "a.csv", "other.json", false),
	})
}

func TestPrepareChecksSettings(t *testing.T) {
	f := testConsortium(t, false)
	setup := prepareChecked(t, ppcaspec.Spec, f, "curator", `{"schema": "s.json", "epsilon": 0.5, "k": 1}`, map[string]string{
		"gaussian, no delta": `{"schema": "s.json", "epsilon": 1, "mechanism": "gaussian"}`,
		"laplace with delta": `{"schema": "s.json", "epsilon": 1, "mechanism": "laplace", "delta": 1e-6}`,
		"typo":               `{"schema": "s.json", "epsilonn": 1}`,
		"no epsilon":         `{"schema": "s.json"}`,
		"missing schema":     `{"schema": "nope.json", "epsilon": 1}`,
		"paper + aggregate":  `{"schema": "s.json", "epsilon": 1, "calibration": "paper", "noise": "secure-aggregate"}`,
	})
	// Without a schema file the first owner's declared schema is shared.
	if _, err := prepareAs(ppcaspec.Spec, f, "curator", `{"epsilon": 0.5, "k": 1}`); err != nil {
		t.Fatalf("no schema file: %v", err)
	}
	if len(setup.Participants) != 2 || *setup.Participants[0].Budget != dp.Pure(0.5) || setup.Participants[1].Seed == nil {
		t.Fatalf("participants %+v", setup.Participants)
	}
	// The session ID and the seeds follow ppcaspec.Publish's draws.
	src := randx.NewSeeded(1)
	if want := "ppca-dp-mh-"; !strings.HasPrefix(setup.Session, want) {
		t.Fatalf("session %q", setup.Session)
	}
	_ = src.Uint64()
	if got, want := *setup.Participants[0].Seed, src.Uint64(); got != want {
		t.Fatalf("owner-1 seed %d, want the first child seed %d", got, want)
	}
}

func joinPPCA(t *testing.T, f *consortium.File, setup *transport.Setup, name string) error {
	t.Helper()
	me := participant(setup, name)
	return joinAs(ppcaspec.Spec, f, setup, "curator", name, me.Params, *me.Budget, setup.Participants)
}

func TestJoinChecksPolicyAndData(t *testing.T) {
	f := testConsortium(t, false)
	setup, err := prepareAs(ppcaspec.Spec, f, "curator", `{"schema": "s.json", "epsilon": 1, "k": 1}`)
	if err != nil {
		t.Fatal(err)
	}
	if err := joinPPCA(t, f, setup, "owner-1"); err != nil {
		t.Fatalf("owner-1 should join: %v", err)
	}
	if err := joinPPCA(t, f, setup, "owner-2"); err == nil || !strings.Contains(err.Error(), "schema differs") {
		t.Fatalf("owner-2's other schema: %v", err)
	}
	unsound, err := prepareAs(ppcaspec.Spec, f, "curator", `{"schema": "s.json", "epsilon": 1, "k": 1, "paper_latent": true}`)
	if err != nil {
		t.Fatal(err)
	}
	if err := joinPPCA(t, f, unsound, "owner-1"); err == nil || !strings.Contains(err.Error(), "allow_unsound") {
		t.Fatalf("paper latent codes accepted without consent: %v", err)
	}
	if err := joinPPCA(t, testConsortium(t, true), unsound, "owner-1"); err != nil {
		t.Fatalf("with allow_unsound: %v", err)
	}
	// A coordinator that lists other owners than it addresses is refused.
	setup.Participants = setup.Participants[:1]
	if err := joinPPCA(t, f, setup, "owner-1"); err == nil || !strings.Contains(err.Error(), "differ from its participants") {
		t.Fatalf("owner list mismatch: %v", err)
	}
}

// FuzzPPCAMessages feeds every PPCA-DP-MH decoder a node can receive; the
// first byte picks the decoder.
func FuzzPPCAMessages(f *testing.F) {
	st, _ := ppcadpmh.Statistics{N: 3, P: 1, Packed: []float64{1, 2}}.MarshalBinary()
	f.Add(append([]byte{1}, st...))
	fuzzDecoders(f,
		unmarshals[ppcadpmh.MaskSeed](),
		func(t *testing.T, body []byte) {
			var m ppcadpmh.Statistics
			if m.UnmarshalBinary(body) == nil && m.P < 1 {
				t.Fatalf("statistics for p=%d accepted", m.P)
			}
		},
		func(t *testing.T, body []byte) {
			var m ppcadpmh.ModelMsg
			if m.UnmarshalBinary(body) == nil && len(m.Components) != len(m.Mean)*m.K {
				t.Fatal("inconsistent model accepted")
			}
		},
		func(t *testing.T, body []byte) {
			var m ppcadpmh.Rows
			if m.UnmarshalBinary(body) == nil && len(m.Data)%m.P != 0 {
				t.Fatal("ragged rows accepted")
			}
		},
		decodesSession(ppcaspec.Spec))
}

// An owner whose consortium entry names a statistics file (computed
// elsewhere, e.g. by the Beam pipeline) joins like one holding rows.
func TestJoinWithStatisticsFile(t *testing.T) {
	schema, tab := threeRows(t)
	f := writeConsortium(t, map[string]string{"s.json": schemaJSON, "a.stats": string(methodtest.StatisticsFile(t, tab, ownerstats.Config{Schema: schema}))}, []consortium.Member{
		{Name: "curator", Role: "curator", Address: "h:1"},
		{Name: "owner-1", Role: "owner", Address: "h:2",
			Dataset: &consortium.Dataset{Statistics: "a.stats", Schema: "s.json"}, Budget: &consortium.Budget{Epsilon: 5}},
	})
	setup, err := prepareAs(ppcaspec.Spec, f, "curator", `{"epsilon": 1, "k": 1}`)
	if err != nil {
		t.Fatal(err)
	}
	if err := joinPPCA(t, f, setup, "owner-1"); err != nil {
		t.Fatalf("an owner with a statistics file should join: %v", err)
	}
	latent, err := prepareAs(ppcaspec.Spec, f, "curator", `{"epsilon": 1, "k": 1, "paper_latent": true}`)
	if err != nil {
		t.Fatal(err)
	}
	if err := joinPPCA(t, f, latent, "owner-1"); err == nil {
		t.Fatal("paper latent codes accepted from statistics alone")
	}
}
