package methods

import (
	mpcrdpspec "github.com/dppub/dppub/method/mpcrdp"
	"strings"
	"testing"

	"github.com/dppub/dppub/consortium"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	protompcrdp "github.com/dppub/dppub/method/mpcrdp/roles"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/transport"
)

// verticalConsortium is a server and two parties holding different
// columns of the same three individuals; party-1 holds the label.
func verticalConsortium(t *testing.T, allowUnsound bool) *consortium.File {
	t.Helper()
	return writeConsortium(t, map[string]string{
		"p1.json": `{"id": "id", "attributes": [{"name": "age", "kind": "numeric", "min": 0, "max": 100},
 {"name": "y", "kind": "binary", "categories": ["no", "yes"]}]}`,
		"p2.json":   `{"id": "id", "attributes": [{"name": "smoker", "kind": "binary", "categories": ["no", "yes"]}]}`,
		"noid.json": `{"attributes": [{"name": "smoker", "kind": "binary", "categories": ["no", "yes"]}]}`,
		"p1.csv":    "id,age,y\n1,30,no\n2,41,yes\n3,52,no\n",
		"p2.csv":    "id,smoker\n1,no\n2,yes\n3,no\n",
		"noid.csv":  "smoker\nno\nyes\nno\n",
	}, []consortium.Member{
		{Name: "server", Role: "server", Address: "h:1"},
		owner("party-1", "h:2", "p1.csv", "p1.json", allowUnsound),
		owner("party-2", "h:3", "noid.csv", "noid.json", false),
	})
}

func TestMPCRDPSettingsAndJoin(t *testing.T) {
	f := verticalConsortium(t, false)
	setup := prepareChecked(t, mpcrdpspec.Spec, f, "server", `{"label": "y", "epsilon": 0.5}`, map[string]string{ // the default notion is standard
		"no settings":        ``,
		"no label":           `{"epsilon": 1}`,
		"no epsilon":         `{"label": "y"}`,
		"typo":               `{"label": "y", "epsilon": 1, "notoin": "standard"}`,
		"no noise":           `{"label": "y", "epsilon": 1, "calibration": "none"}`,
		"bad notion":         `{"label": "y", "epsilon": 1, "notion": "loose"}`,
		"bad release":        `{"label": "y", "epsilon": 1, "release": "none"}`,
		"stranger holds y":   `{"label": "y", "epsilon": 1, "label_holder": "server"}`,
		"feature share of 1": `{"label": "y", "epsilon": 1, "feature_share": 1}`,
	})
	if len(setup.Participants) != 2 || *setup.Participants[0].Budget != dp.Pure(0.5) || !strings.HasPrefix(setup.Session, "mp-crdp-") {
		t.Fatalf("setup %+v", setup)
	}
	joinParty := func(f *consortium.File, name string, params []byte, budget dp.Guarantee, ps []transport.Participant) error {
		return joinAs(mpcrdpspec.Spec, f, setup, "server", name, params, budget, ps)
	}
	params := setup.Participants[0].Params
	if err := joinParty(f, "party-1", params, dp.Pure(0.5), setup.Participants); err != nil {
		t.Fatalf("party-1 should join: %v", err)
	}
	if err := joinParty(f, "party-2", params, dp.Pure(0.5), setup.Participants); err == nil || !strings.Contains(err.Error(), "no ID column") {
		t.Fatalf("party-2 without an ID column: %v", err)
	}
	if err := joinParty(f, "party-1", params, dp.Pure(1), setup.Participants); err == nil || !strings.Contains(err.Error(), "budget") {
		t.Fatalf("budget mismatch: %v", err)
	}
	// The paper's notion is not standard DP: a party must consent.
	unsound, err := prepareAs(mpcrdpspec.Spec, f, "server", `{"label": "y", "epsilon": 0.5, "notion": "mp-crdp"}`)
	if err != nil {
		t.Fatal(err)
	}
	if err := joinParty(f, "party-1", unsound.Participants[0].Params, dp.Pure(0.5), unsound.Participants); err == nil || !strings.Contains(err.Error(), "allow_unsound") {
		t.Fatalf("mp-crdp notion accepted without consent: %v", err)
	}
	if err := joinParty(verticalConsortium(t, true), "party-1", unsound.Participants[0].Params, dp.Pure(0.5), unsound.Participants); err != nil {
		t.Fatalf("with allow_unsound: %v", err)
	}
}

// FuzzMPCRDPMessages feeds every MP-CRDP decoder a node can receive; the
// first byte picks the decoder.
func FuzzMPCRDPMessages(f *testing.F) {
	cols, _ := protompcrdp.Columns{Schema: data.Schema{ID: "id", Attributes: []data.Attribute{{Name: "a", Kind: data.Numeric, Max: 1}}},
		IDs: []string{"1"}, Values: []float64{0.5}}.MarshalBinary()
	f.Add(append([]byte{0}, cols...))
	cr, _ := protompcrdp.ChargeRequest{Step: 1, Name: "s", Charges: []privacy.Charge{{Purpose: "p", Spec: dp.Spec{Guarantee: dp.Pure(1)}}}}.MarshalBinary()
	f.Add(append([]byte{1}, cr...))
	fuzzDecoders(f,
		func(t *testing.T, body []byte) {
			var m protompcrdp.Columns
			if m.UnmarshalBinary(body) == nil && len(m.Values) != len(m.IDs)*len(m.Schema.Attributes) {
				t.Fatal("ragged columns accepted")
			}
		},
		unmarshals[protompcrdp.ChargeRequest](),
		unmarshals[protompcrdp.Approval](),
		unmarshals[protompcrdp.Published](),
		decodesSession(mpcrdpspec.Spec))
}
