package protocol

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/dppub/dppub/internal/testenv"
	"github.com/dppub/dppub/internal/wire"
)

type pingMsg struct{ n uint64 }

func (pingMsg) MessageType() string { return "ping" }
func (m pingMsg) MarshalBinary() ([]byte, error) {
	var w wire.Writer
	w.Uint64(m.n)
	return w.Data(), nil
}

// pinger sends n pings to its peer and is done after receiving n replies.
type pinger struct {
	id, peer string
	n, got   uint64
	first    bool
}

func (p *pinger) ID() string { return p.id }
func (p *pinger) Start() ([]Envelope, error) {
	if !p.first {
		return nil, nil
	}
	e, err := Seal("s", p.id, p.peer, pingMsg{1})
	return []Envelope{e}, err
}
func (p *pinger) Handle(e Envelope) ([]Envelope, error) {
	r := wire.NewReader(e.Payload)
	v := r.Uint64()
	if err := r.Finish(); err != nil {
		return nil, err
	}
	p.got++
	if v >= p.n {
		return nil, nil
	}
	out, err := Seal("s", p.id, p.peer, pingMsg{v + 1})
	return []Envelope{out}, err
}
func (p *pinger) Done() bool { return p.got >= p.n/2 }

func TestRunLocalDeliversAndCounts(t *testing.T) {
	a := &pinger{id: "a", peer: "b", n: 10, first: true}
	b := &pinger{id: "b", peer: "a", n: 10}
	st, err := RunLocal(context.Background(), a, b)
	if err != nil {
		t.Fatal(err)
	}
	if st.Messages != 10 || a.got != 5 || b.got != 5 {
		t.Fatalf("messages %d, a got %d, b got %d; want 10, 5, 5", st.Messages, a.got, b.got)
	}
}

func TestRunLocalReportsStuckRoles(t *testing.T) {
	a := &pinger{id: "a", peer: "b", n: 10}
	b := &pinger{id: "b", peer: "a", n: 10}
	_, err := RunLocal(context.Background(), a, b)
	if err == nil || !strings.Contains(err.Error(), "a, b not done") {
		t.Fatalf("want a stuck-roles error, got %v", err)
	}
}

// HandleEach answers the envelopes in their order, each answer after the
// ones before it, and stops at the first error with nothing else.
func TestHandleEachKeepsOrderAndStopsAtAnError(t *testing.T) {
	es := []Envelope{{From: "a"}, {From: "b"}, {From: "c"}}
	echo := func(e Envelope) ([]Envelope, error) {
		if e.From == "fail" {
			return nil, errors.New("refused")
		}
		return []Envelope{{To: e.From}, {To: e.From + "2"}}, nil
	}
	out, err := HandleEach(es, echo)
	var to []string
	for _, e := range out {
		to = append(to, e.To)
	}
	if err != nil || strings.Join(to, " ") != "a a2 b b2 c c2" {
		t.Fatalf("answers %v, %v", to, err)
	}
	if out, err := HandleEach(append(es, Envelope{From: "fail"}), echo); err == nil || out != nil {
		t.Fatalf("an error gave %d envelopes and %v", len(out), err)
	}
}

func TestEnvelopeRejectsTruncated(t *testing.T) {
	var e Envelope
	if err := e.UnmarshalBinary([]byte{1, 2, 3}); err == nil {
		t.Fatal("truncated envelope accepted")
	}
}

func FuzzEnvelope(f *testing.F) {
	e := Envelope{Session: "s", From: "a", To: "b", Seq: 3, Type: "t", Payload: []byte("xyz")}
	b, _ := e.MarshalBinary()
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		var e Envelope
		if e.UnmarshalBinary(data) != nil {
			return
		}
		again, _ := e.MarshalBinary()
		var e2 Envelope
		if err := e2.UnmarshalBinary(again); err != nil || e2.Seq != e.Seq || string(e2.Payload) != string(e.Payload) {
			t.Fatalf("round trip failed: %v", err)
		}
	})
}

func TestCheckRoster(t *testing.T) {
	cases := []struct {
		name        string
		coordinator string
		members     []string
		want        string // "" when the roster is valid
	}{
		{"valid", "curator", []string{"a", "b"}, ""},
		{"no members", "curator", nil, "no member with role owner"},
		{"unnamed coordinator", "", []string{"a"}, "the curator needs a name"},
		{"empty member", "curator", []string{"a", ""}, `owner name "" is empty or repeated`},
		{"repeated member", "curator", []string{"a", "a"}, `owner name "a" is empty or repeated`},
		{"member named as the coordinator", "curator", []string{"curator"}, `owner name "curator"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckRoster("curator", c.coordinator, "owner", c.members)
			if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
				t.Fatalf("CheckRoster = %v, want %q", err, c.want)
			}
		})
	}
}

// TestAgreedOr checks that a role works from the session's agreed
// parameters without checking them again, checks its own otherwise, and
// refuses both at once.
func TestAgreedOr(t *testing.T) {
	type params struct{ N int }
	checks := 0
	check := func(p params) (int, error) { checks++; return 2 * p.N, nil }
	agreed, err := Agree(params{N: 3}, check)
	if err != nil || agreed.Derived() != 6 || agreed.Params().N != 3 {
		t.Fatalf("Agree = %v, %v", agreed, err)
	}
	cases := []struct {
		name       string
		agreed     *Agreed[params, int]
		p          params
		wantN      int
		wantChecks int
		wantErr    bool
	}{
		{"agreed", agreed, params{}, 3, 0, false},
		{"own parameters", nil, params{N: 5}, 5, 1, false},
		{"both", agreed, params{N: 5}, 0, 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checks = 0
			got, err := AgreedOr(c.agreed, c.p, check)
			if c.wantErr != (err != nil) {
				t.Fatalf("AgreedOr error %v, want error %v", err, c.wantErr)
			}
			if err == nil && got.Params().N != c.wantN {
				t.Errorf("AgreedOr works from N = %d, want %d", got.Params().N, c.wantN)
			}
			if checks != c.wantChecks {
				t.Errorf("checked %d times, want %d", checks, c.wantChecks)
			}
			// Settle agrees the same way and leaves the options holding
			// the agreed parameters only.
			a, p := c.agreed, c.p
			got, err = Settle(&a, &p, check)
			if c.wantErr != (err != nil) || (err == nil && (p.N != c.wantN || a != nil || got.Params() != p)) {
				t.Errorf("Settle gave %v, %v and left %v, %v", got, err, a, p)
			}
		})
	}
}

// TestMessagesKeepTheirBytes pins the wire bytes of the envelope (taken
// before the messages listed their fields for wire.Marshal).
func TestMessagesKeepTheirBytes(t *testing.T) {
	testenv.CheckPinned(t, []testenv.Pinned{
		{Name: "envelope", Msg: &Envelope{Session: "s", From: "a", To: "bb", Seq: 7, Type: "x/y", Payload: []byte{1, 2, 3}}, Want: "0100000000000000730100000000000000610200000000000000626207000000000000000300000000000000782f790300000000000000010203"},
	})
}
