package roles

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/dppub/dppub/dp"
	dpsubn3 "github.com/dppub/dppub/method/dpsubn3/subn3"
	privbayes "github.com/dppub/dppub/method/privbayes/bayesnet"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// toyParts makes m parties' data over 3 binary attributes where attribute
// 2 copies attribute 0.
func toyParts(m, n int, src *randx.Source) []*privbayes.Data {
	var out []*privbayes.Data
	for range m {
		rows := make([][]int, n)
		for i := range rows {
			a := src.IntN(2)
			rows[i] = []int{a, src.IntN(2), a}
		}
		d, _ := privbayes.NewData([]int{2, 2, 2}, rows)
		out = append(out, d)
	}
	return out
}

func session(m int, eps float64) Params {
	p := Params{Session: "s", Curator: "curator", Cards: []int{2, 2, 2},
		Options: dpsubn3.Options{PrivBayes: privbayes.Options{Epsilon: eps}}}
	for i := range m {
		p.Parties = append(p.Parties, fmt.Sprintf("party-%d", i+1))
	}
	return p
}

func run(t *testing.T, p Params, parts []*privbayes.Data) (*Result, []*privacy.Accountant, *protocol.Stats) {
	t.Helper()
	src := randx.NewSeeded(5)
	var roles []protocol.Role
	var accts []*privacy.Accountant
	for i, id := range p.Parties {
		a, err := privacy.NewAccountant(privacy.AccountantOptions{Party: id, Budget: dp.Pure(p.Options.PrivBayes.Epsilon)})
		if err != nil {
			t.Fatal(err)
		}
		party, err := NewParty(PartyOptions{ID: id, Params: p, Data: parts[i], Accountant: a, Source: src.Child()})
		if err != nil {
			t.Fatal(err)
		}
		roles, accts = append(roles, party), append(accts, a)
	}
	cur, err := NewCurator(p, src.Child())
	if err != nil {
		t.Fatal(err)
	}
	stats, err := protocol.RunLocal(context.Background(), append(roles, cur)...)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cur.Result()
	if err != nil {
		t.Fatal(err)
	}
	return res, accts, stats
}

func TestThreePartiesRunInTurn(t *testing.T) {
	p := session(3, 1)
	parts := toyParts(3, 500, randx.NewSeeded(1))
	res, accts, stats := run(t, p, parts)
	if len(res.Rows) != 1500 || res.Counts["party-2"] != 500 {
		t.Errorf("%d synthetic rows, counts %v", len(res.Rows), res.Counts)
	}
	// One prior and one update per party.
	if stats.Messages != 6 {
		t.Errorf("%d messages, want 6", stats.Messages)
	}
	for _, a := range accts {
		if math.Abs(a.Spent().Epsilon-1) > 1e-12 {
			t.Errorf("%s spent %v, want ε = 1", a.Party(), a.Spent())
		}
	}
	// The copy survives: in the synthetic rows attribute 2 equals
	// attribute 0 far more often than the 50% of independence (with ε = 1
	// and 1500 rows the edge is found with overwhelming probability; the
	// seeded run is deterministic).
	same := 0
	for _, r := range res.Rows {
		if r[0] == r[2] {
			same++
		}
	}
	if same < 1200 {
		t.Errorf("attribute 2 equals attribute 0 in %d of 1500 synthetic rows", same)
	}
}

func TestMessagesRoundTrip(t *testing.T) {
	m := &privbayes.Model{Cards: []int{2, 3}, Net: privbayes.Network{{Child: 1}, {Child: 0, Parents: []int{1}}},
		Cond: [][]float64{{0.2, 0.3, 0.5}, {1, 0, 0.5, 0.5, 0.25, 0.75}}}
	b, _ := UpdateMsg{Records: 7, Model: m}.MarshalBinary()
	var got UpdateMsg
	if err := got.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if got.Records != 7 || !slices.Equal(got.Model.Cond[1], m.Cond[1]) || got.Model.Net[1].Parents[0] != 1 {
		t.Errorf("round trip gave %+v", got)
	}
	// A conditional that is not a distribution is refused.
	m.Cond[0][0] = 0.9
	b, _ = UpdateMsg{Records: 7, Model: m}.MarshalBinary()
	if err := got.UnmarshalBinary(b); err == nil {
		t.Error("a model whose conditional sums to 1.7 was accepted")
	}
	var pr PriorMsg
	b, _ = PriorMsg{}.MarshalBinary()
	if err := pr.UnmarshalBinary(b); err != nil || pr.Model != nil {
		t.Errorf("empty prior: %v %+v", err, pr)
	}
	if err := pr.UnmarshalBinary(append(b, 0)); err == nil {
		t.Error("trailing bytes were accepted")
	}
}

func TestCuratorRefusesOutOfTurn(t *testing.T) {
	p := session(2, 1)
	cur, err := NewCurator(p, randx.NewSeeded(1))
	if err != nil {
		t.Fatal(err)
	}
	m := &privbayes.Model{Cards: []int{2, 2, 2}, Net: privbayes.Network{{Child: 0}, {Child: 1}, {Child: 2}},
		Cond: [][]float64{{0.5, 0.5}, {0.5, 0.5}, {0.5, 0.5}}}
	e, _ := protocol.Seal("s", "party-2", "curator", UpdateMsg{Records: 3, Model: m})
	if _, err := cur.Handle(e); err == nil {
		t.Error("party-2's update was accepted before party-1's")
	}
	if _, err := NewCurator(Params{Session: "s", Curator: "c", Parties: []string{"c"}, Cards: []int{2}}, randx.NewSeeded(1)); err == nil {
		t.Error("a party named like the curator was accepted")
	}
}
