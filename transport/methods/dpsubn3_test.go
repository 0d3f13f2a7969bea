package methods

import (
	"github.com/dppub/dppub/method/dpsubn3"
	"strings"
	"testing"

	"github.com/dppub/dppub/dp"
	protodpsubn3 "github.com/dppub/dppub/method/dpsubn3/roles"
	"github.com/dppub/dppub/transport"
)

func TestDPSUBN3SettingsAndJoin(t *testing.T) {
	f := testConsortium(t, false)
	setup := prepareChecked(t, dpsubn3.Spec, f, "curator", `{"schema": "s.json", "epsilon": 0.5}`, map[string]string{
		"no settings":    ``,
		"no epsilon":     `{"schema": "s.json"}`,
		"typo":           `{"schema": "s.json", "epsilon": 1, "thetta": 2}`,
		"beta above 1":   `{"schema": "s.json", "epsilon": 1, "beta": 1.5}`,
		"negative k":     `{"schema": "s.json", "epsilon": 1, "k": -1}`,
		"unknown score":  `{"schema": "s.json", "epsilon": 1, "score": "gini"}`,
		"missing schema": `{"schema": "nope.json", "epsilon": 1}`,
	})
	if len(setup.Participants) != 2 || *setup.Participants[0].Budget != dp.Pure(0.5) || setup.Participants[1].Seed == nil ||
		!strings.HasPrefix(setup.Session, "dp-subn3-") {
		t.Fatalf("setup %+v", setup)
	}
	join := func(name string, params []byte, budget dp.Guarantee, participants []transport.Participant) error {
		return joinAs(dpsubn3.Spec, f, setup, "curator", name, params, budget, participants)
	}
	params := setup.Participants[0].Params
	if err := join("owner-1", params, dp.Pure(0.5), setup.Participants); err != nil {
		t.Fatalf("owner-1 should join: %v", err)
	}
	if err := join("owner-2", params, dp.Pure(0.5), setup.Participants); err == nil || !strings.Contains(err.Error(), "schema differs") {
		t.Fatalf("owner-2's other schema: %v", err)
	}
	if err := join("owner-1", params, dp.Pure(1), setup.Participants); err == nil || !strings.Contains(err.Error(), "budget") {
		t.Fatalf("budget mismatch: %v", err)
	}
	if err := join("owner-1", params, dp.Pure(0.5), setup.Participants[:1]); err == nil || !strings.Contains(err.Error(), "differ from its participants") {
		t.Fatalf("owner list mismatch: %v", err)
	}
}

// FuzzDPSUBN3Messages feeds every DP-SUBN3 decoder a node can receive; the
// first byte picks the decoder.
func FuzzDPSUBN3Messages(f *testing.F) {
	up, _ := protodpsubn3.UpdateMsg{Records: 3}.MarshalBinary()
	f.Add(append([]byte{1}, up...))
	pr, _ := protodpsubn3.PriorMsg{}.MarshalBinary()
	f.Add(append([]byte{0}, pr...))
	fuzzDecoders(f,
		func(t *testing.T, body []byte) {
			var m protodpsubn3.PriorMsg
			if m.UnmarshalBinary(body) == nil && (m.Model == nil) != (m.N == 0) {
				t.Fatal("inconsistent prior accepted")
			}
		},
		func(t *testing.T, body []byte) {
			var m protodpsubn3.UpdateMsg
			if m.UnmarshalBinary(body) == nil && (m.Model == nil || m.Records < 1) {
				t.Fatal("empty update accepted")
			}
		},
		decodesSession(dpsubn3.Spec))
}
