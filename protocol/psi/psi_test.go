package psi

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	cpsi "github.com/dppub/dppub/crypto/psi"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

func params(k int) Params {
	p := Params{Session: "link"}
	for i := range k {
		p.Parties = append(p.Parties, fmt.Sprintf("party-%d", i+1))
	}
	return p
}

// sets gives k parties n IDs each; IDs below common are held by all, and
// IDs common..common+pair-1 by parties 1 and 2 only; rows shuffled.
func sets(k, n, common, pair int, src *randx.Source) [][]string {
	out := make([][]string, k)
	for i := range out {
		for j := range n {
			switch {
			case j < common:
				out[i] = append(out[i], fmt.Sprintf("c%d", j))
			case j < common+pair && i < 2:
				out[i] = append(out[i], fmt.Sprintf("p%d", j))
			default:
				out[i] = append(out[i], fmt.Sprintf("own%d-%d", i, j))
			}
		}
		src.Shuffle(n, func(a, b int) { out[i][a], out[i][b] = out[i][b], out[i][a] })
	}
	return out
}

func parties(t *testing.T, p Params, ids [][]string, seed uint64) []*Party {
	t.Helper()
	src := randx.NewSeeded(seed)
	var out []*Party
	for i, id := range p.Parties {
		party, err := NewParty(PartyOptions{ID: id, Params: p, IDs: ids[i], Source: src.Child()})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, party)
	}
	return out
}

func roles(ps []*Party) []protocol.Role {
	var out []protocol.Role
	for _, p := range ps {
		out = append(out, p)
	}
	return out
}

// checkAligned checks every party found the common IDs, in one order.
func checkAligned(t *testing.T, ps []*Party, ids [][]string, common int) {
	t.Helper()
	var order []string
	for i, p := range ps {
		res, err := p.Result()
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range res.Rows {
			got = append(got, ids[i][r])
		}
		if len(got) != common {
			t.Fatalf("%s found %d common rows, want %d", p.ID(), len(got), common)
		}
		if i == 0 {
			order = got
		} else if !slices.Equal(got, order) {
			t.Fatalf("%s's common rows are in another order than %s's", p.ID(), ps[0].ID())
		}
		if res.Sizes[p.ID()] != len(ids[i]) {
			t.Errorf("%s's size %d, want %d", p.ID(), res.Sizes[p.ID()], len(ids[i]))
		}
	}
	for _, id := range order {
		if !strings.HasPrefix(id, "c") {
			t.Fatalf("%q is in the intersection", id)
		}
	}
}

func TestRing(t *testing.T) {
	for _, c := range []struct {
		name                     string
		k, n, common, pair, msgs int
	}{
		{"3 parties, half common", 3, 300, 150, 50, 12},
		{"3 parties, none common", 3, 100, 0, 30, 12},
		{"3 parties, all common", 3, 100, 100, 0, 12},
		{"4 parties", 4, 120, 40, 40, 24},
		{"2 parties", 2, 80, 20, 0, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := params(c.k)
			ids := sets(c.k, c.n, c.common, c.pair, randx.NewSeeded(uint64(c.k*1000+c.common)))
			ps := parties(t, p, ids, 11)
			stats, err := protocol.RunLocal(context.Background(), roles(ps)...)
			if err != nil {
				t.Fatal(err)
			}
			checkAligned(t, ps, ids, c.common)
			// Each set: k−1 hops, then k−1 copies of the full set.
			if stats.Messages != c.msgs {
				t.Errorf("%d messages, want %d", stats.Messages, c.msgs)
			}
		})
	}
}

// A party's view holds neither its peers' IDs nor their unblinded hashes:
// every element it receives is blinded by at least one key it lacks.
func TestViewHoldsNoIDsOrHashes(t *testing.T) {
	p := params(3)
	ids := sets(3, 50, 25, 10, randx.NewSeeded(2))
	ps := parties(t, p, ids, 3)
	recs := make([]*protocol.Recorder, len(ps))
	var rs []protocol.Role
	for i, party := range ps {
		recs[i] = &protocol.Recorder{Role: party}
		rs = append(rs, recs[i])
	}
	if _, err := protocol.RunLocal(context.Background(), rs...); err != nil {
		t.Fatal(err)
	}
	for i, rec := range recs {
		for _, e := range rec.Received {
			for j := range ids {
				for _, id := range ids[j] {
					h := cpsi.HashToGroup(id)
					if bytes.Contains(e.Payload, []byte(id)) && len(id) > 3 || bytes.Contains(e.Payload, h[:]) {
						t.Fatalf("%s received %s from %s holding ID %q or its hash", ps[i].ID(), e.Type, e.From, id)
					}
				}
			}
		}
	}
}

// relayOrder delivers messages in a seeded random order (as a network
// may, across senders): the result is the same.
func TestAnyOrderAndReplays(t *testing.T) {
	p := params(3)
	ids := sets(3, 60, 20, 10, randx.NewSeeded(4))
	ps := parties(t, p, ids, 5)
	byID := map[string]*Party{}
	var queue []protocol.Envelope
	for _, party := range ps {
		byID[party.ID()] = party
		out, err := party.Start()
		if err != nil {
			t.Fatal(err)
		}
		queue = append(queue, out...)
	}
	shuffle := randx.NewSeeded(6)
	delivered := 0
	for len(queue) > 0 {
		i := shuffle.IntN(len(queue))
		e := queue[i]
		queue = slices.Delete(queue, i, i+1)
		out, err := byID[e.To].Handle(e)
		if err != nil {
			t.Fatal(err)
		}
		// Every message is delivered twice: the replay changes nothing.
		again, err := byID[e.To].Handle(e)
		if err != nil || len(again) != 0 {
			t.Fatalf("replayed %s from %s: %d messages, %v", e.Type, e.From, len(again), err)
		}
		queue = append(queue, out...)
		delivered++
	}
	if delivered != 12 {
		t.Errorf("%d messages delivered, want 12", delivered)
	}
	checkAligned(t, ps, ids, 20)
}

func TestRefusals(t *testing.T) {
	p := params(3)
	ids := sets(3, 10, 5, 0, randx.NewSeeded(1))
	ps := parties(t, p, ids, 1)
	for _, party := range ps {
		if _, err := party.Start(); err != nil {
			t.Fatal(err)
		}
	}
	set := []cpsi.Element{cpsi.HashToGroup("x")}
	seal := func(from, to string, m protocol.Message) protocol.Envelope {
		e, err := protocol.Seal("link", from, to, m)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	for _, c := range []struct {
		name, want string
		e          protocol.Envelope
	}{
		{"not from the previous party", "not from the previous party",
			seal("party-3", "party-2", BlindedMsg{Origin: "party-3", Hops: 1, Elements: set})},
		{"wrong hop count", "blinded 2 times, want 1",
			seal("party-1", "party-2", BlindedMsg{Origin: "party-1", Hops: 2, Elements: set})},
		{"own set", "not another party's",
			seal("party-1", "party-2", BlindedMsg{Origin: "party-2", Hops: 3, Elements: set})},
		{"full set not from its last blinder", "not from its last blinder",
			seal("party-1", "party-2", FullMsg{Origin: "party-1", Elements: set})},
		{"unknown origin", "not a party",
			seal("party-3", "party-2", FullMsg{Origin: "mallory", Elements: set})},
		{"own set with another size", "came back with 1 elements, it sent 10",
			seal("party-1", "party-2", FullMsg{Origin: "party-2", Elements: set})},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := ps[1].Handle(c.e); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error saying %q", err, c.want)
			}
		})
	}
	bad := seal("party-1", "party-2", BlindedMsg{Origin: "party-1", Hops: 1, Elements: set})
	bad.Payload = bad.Payload[:len(bad.Payload)-1]
	if _, err := ps[1].Handle(bad); err == nil {
		t.Error("a truncated set was accepted")
	}
	dup := []string{"a", "b", "a"}
	party, _ := NewParty(PartyOptions{ID: "party-1", Params: p, IDs: dup, Source: randx.NewSeeded(1)})
	if _, err := party.Start(); err == nil || !strings.Contains(err.Error(), `ID "a" is on rows 0 and 2`) {
		t.Errorf("repeated ID: %v", err)
	}
	if _, err := NewParty(PartyOptions{ID: "party-9", Params: p, Source: randx.NewSeeded(1)}); err == nil {
		t.Error("a stranger was accepted as a party")
	}
	if err := (Params{Parties: []string{"a"}}).Validate(); err == nil {
		t.Error("a one-party linkage was accepted")
	}
}

func TestMessagesRoundTrip(t *testing.T) {
	set := []cpsi.Element{cpsi.HashToGroup("a"), cpsi.HashToGroup("b")}
	b, _ := BlindedMsg{Origin: "o", Hops: 2, Elements: set}.MarshalBinary()
	var m BlindedMsg
	if err := m.UnmarshalBinary(b); err != nil || m.Origin != "o" || m.Hops != 2 || !slices.Equal(m.Elements, set) {
		t.Errorf("round trip: %+v, %v", m, err)
	}
	f, _ := FullMsg{Origin: "o", Elements: set}.MarshalBinary()
	if err := m.UnmarshalBinary(f); err == nil {
		t.Error("a full set was read as a blinded one")
	}
	var fm FullMsg
	if err := fm.UnmarshalBinary(append(f, 0)); err == nil {
		t.Error("trailing bytes were accepted")
	}
}
