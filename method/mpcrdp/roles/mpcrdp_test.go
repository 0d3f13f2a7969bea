package roles

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/method/methodtest"
	mpcrdp "github.com/dppub/dppub/method/mpcrdp/crdp"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// session splits WDBC among three parties (party-1 holds the label) and
// builds the roles with budgets eps (the third party's may differ).
func session(t *testing.T, c mpcrdp.Config, eps, thirdEps float64) ([]*Party, *Server, []*privacy.Accountant) {
	t.Helper()
	w := methodtest.Table(t, "wdbc")
	f := w.Schema.Names()[1:]
	// Rows in a different order at each party: the join must realign them.
	tables, err := data.SplitVertical(w, [][]string{append(slices.Clone(f[:10]), "diagnosis"), f[10:20], f[20:]})
	if err != nil {
		t.Fatal(err)
	}
	tables[2] = tables[2].Subset(randx.NewSeeded(3).Perm(tables[2].Len()))
	params := Params{Session: "s", Parties: []string{"party-1", "party-2", "party-3"}, Server: "server",
		Label: "diagnosis", LabelHolder: "party-1", Config: c}
	var parties []*Party
	var accts []*privacy.Accountant
	for i, id := range params.Parties {
		budget := eps
		if i == 2 {
			budget = thirdEps
		}
		a, _ := privacy.NewAccountant(privacy.AccountantOptions{Party: id, Budget: dp.Pure(budget)})
		p, err := NewParty(PartyOptions{ID: id, Params: params, Table: tables[i], Accountant: a})
		if err != nil {
			t.Fatal(err)
		}
		parties, accts = append(parties, p), append(accts, a)
	}
	ledger, _ := privacy.NewAccountant(privacy.AccountantOptions{Party: "merged", Budget: dp.Pure(eps)})
	s, err := NewServer(ServerOptions{Params: params, Accountant: ledger, Source: randx.NewSeeded(7)})
	if err != nil {
		t.Fatal(err)
	}
	return parties, s, append(accts, ledger)
}

func roles(parties []*Party, s *Server) []protocol.Role {
	out := []protocol.Role{s}
	for _, p := range parties {
		out = append(out, p)
	}
	return out
}

func TestSessionSpendsEveryChargeEverywhere(t *testing.T) {
	c := mpcrdp.Config{Epsilon: 2, B: 4, Utility: mpcrdp.U1, Release: mpcrdp.SVM, Notion: mpcrdp.Standard}
	parties, s, accts := session(t, c, 2, 2)
	st, err := protocol.RunLocal(context.Background(), roles(parties, s)...)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Result()
	if err != nil {
		t.Fatal(err)
	}
	if res.Merged.Len() != 569 || res.Dropped != 0 || len(res.Merged.Schema.Attributes) != 31 {
		t.Errorf("joined %d rows × %d attributes, dropped %d", res.Merged.Len(), len(res.Merged.Schema.Attributes), res.Dropped)
	}
	for _, a := range accts {
		if math.Abs(a.Spent().Epsilon-2) > 1e-9 || len(a.Charges()) != len(accts[3].Charges()) {
			t.Errorf("%s spent %v in %d charges; every ledger should spend ε = 2 in the same charges", a.Party(), a.Spent(), len(a.Charges()))
		}
	}
	for _, p := range parties {
		if !slices.Equal(p.Summary().Final, res.Result.Final) || p.Summary().Notion != "standard" {
			t.Errorf("%s got summary %+v, server published %v", p.ID(), p.Summary(), res.Result.Final)
		}
	}
	// Rounds: 3 columns, then per charged step a request and an approval
	// per party, then 3 summaries.
	charged := len(accts[0].Charges())
	if steps := (st.Messages - 6) / 6; steps < 4 || steps > charged {
		t.Errorf("%d messages for %d charges", st.Messages, charged)
	}
	if res.Result.Output == nil || res.Result.Output.Model == nil {
		t.Fatal("no model released")
	}
	// The join realigned party-3's shuffled rows: its first feature in the
	// merged table matches the original row with the same ID.
	w, _ := datasets.Load("wdbc")
	j, _ := res.Merged.Schema.Index("radius_worst")
	k, _ := w.Schema.Index("radius_worst")
	for i := range 20 {
		if res.Merged.IDs[i] != w.IDs[i] || res.Merged.Rows[i][j] != w.Rows[i][k] {
			t.Fatalf("row %d misaligned after the join", i)
		}
	}
}

func TestPartyRefusesOverspendingAndNothingIsPublished(t *testing.T) {
	c := mpcrdp.Config{Epsilon: 2, B: 4, Utility: mpcrdp.U1, Release: mpcrdp.LogReg}
	parties, s, _ := session(t, c, 2, 0.5)
	_, err := protocol.RunLocal(context.Background(), roles(parties, s)...)
	if err == nil || !strings.Contains(err.Error(), "party-3 refuses") {
		t.Fatalf("want party-3 to refuse, got %v", err)
	}
	if s.Done() || parties[0].Done() {
		t.Error("the session finished despite the refusal")
	}
	if _, err := s.Result(); err == nil {
		t.Error("a result is available after a refusal")
	}
}

func TestJoin(t *testing.T) {
	a := &data.Table{Schema: data.Schema{ID: "id", Attributes: []data.Attribute{{Name: "x", Kind: data.Numeric, Min: 0, Max: 9}}},
		IDs: []string{"1", "2", "3"}, Rows: [][]float64{{1}, {2}, {3}}}
	b := &data.Table{Schema: data.Schema{ID: "id", Attributes: []data.Attribute{{Name: "y", Kind: data.Numeric, Min: 0, Max: 9}}},
		IDs: []string{"3", "1"}, Rows: [][]float64{{30}, {10}}}
	j, dropped, err := Join([]*data.Table{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if dropped != 1 || !slices.Equal(j.IDs, []string{"1", "3"}) || j.Rows[0][1] != 10 || j.Rows[1][1] != 30 {
		t.Errorf("join: ids %v rows %v dropped %d", j.IDs, j.Rows, dropped)
	}
	if _, _, err := Join([]*data.Table{a, a}); err == nil {
		t.Error("an attribute held twice accepted")
	}
	b.IDs[1] = "3"
	if _, _, err := Join([]*data.Table{a, b}); err == nil {
		t.Error("a duplicated ID accepted")
	}
}

func TestMessagesRoundTrip(t *testing.T) {
	s := data.Schema{ID: "id", Attributes: []data.Attribute{{Name: "c", Kind: data.Categorical, Categories: []string{"a", "b"}}}}
	cols := Columns{Schema: s, IDs: []string{"x", "y"}, Values: []float64{0, 1},
		Analysis: mpcrdp.PartyAnalysis{Party: "p", Sensitivity: 2.5, K: 3, MeanDegree: 0.8333}}
	b, _ := cols.MarshalBinary()
	var back Columns
	if err := back.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if !back.Schema.Equal(s) || !slices.Equal(back.IDs, cols.IDs) || back.Analysis != cols.Analysis {
		t.Errorf("columns round trip: %+v", back)
	}
	if err := back.UnmarshalBinary(b[:len(b)-3]); err == nil {
		t.Error("truncated columns accepted")
	}
	act := dp.Pure(3)
	req := ChargeRequest{Step: 2, Name: "n", Charges: []privacy.Charge{{Purpose: "p", Spec: dp.SelectionSpec(1, 0.5), Actual: &act}}}
	b, _ = req.MarshalBinary()
	var rback ChargeRequest
	if err := rback.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if rback.Step != 2 || rback.Charges[0].Spec.Guarantee != dp.Pure(0.5) || *rback.Charges[0].Actual != act {
		t.Errorf("charge request round trip: %+v", rback)
	}
	pub := Published{Summary: Summary{MCD: 0.9, Final: []string{"a"}}}
	b, _ = pub.MarshalBinary()
	var pback Published
	if err := pback.UnmarshalBinary(b); err != nil || pback.Summary.MCD != 0.9 {
		t.Errorf("published round trip: %+v, %v", pback, err)
	}
}

func TestRolesRejectStrangers(t *testing.T) {
	c := mpcrdp.Config{Epsilon: 1, B: 4}
	parties, s, _ := session(t, c, 1, 1)
	env, _ := protocol.Seal("s", "mallory", "server", Approval{Step: 0})
	if _, err := s.Handle(env); err == nil {
		t.Error("server accepted a message from a stranger")
	}
	env, _ = protocol.Seal("s", "party-2", "party-1", Approval{Step: 0})
	if _, err := parties[0].Handle(env); err == nil {
		t.Error("party accepted a message from another party")
	}
	env, _ = protocol.Seal("s", "party-1", "server", Approval{Step: 0})
	if _, err := s.Handle(env); err == nil {
		t.Error("server accepted an approval with nothing pending")
	}
}
