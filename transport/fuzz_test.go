package transport

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/internal/testenv"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/transport/gen/transportv1"
	"google.golang.org/protobuf/proto"
)

// The decoders below read bytes from the network; they must never panic,
// what they accept must survive a re-encoding unchanged, and what no
// sender may declare (an Open's δ beside a budget it does not fit) they
// refuse.

func FuzzOpen(f *testing.F) {
	seed := uint64(7)
	b, _ := Open{Method: "ppca-dp-mh", Coordinator: "curator", CoordinatorAddress: "127.0.0.1:7400",
		Participants: []Participant{{Name: "owner-1", Role: "owner", Address: "127.0.0.1:7401", Budget: ptr(dp.Approx(1, 1e-6)), Seed: &seed, Params: []byte(`{"k":1}`)},
			{Name: "owner-2", Role: "owner", Address: "h:1"}}}.MarshalBinary()
	f.Add(b)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		var o Open
		if err := o.UnmarshalBinary(b); err != nil {
			return
		}
		again, err := o.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var o2 Open
		if err := o2.UnmarshalBinary(again); err != nil || !reflect.DeepEqual(normalise(o), normalise(o2)) {
			t.Fatalf("round trip: %v\n%+v\n%+v", err, o, o2)
		}
	})
}

// normalise maps empty and nil params alike (the codec does not keep the
// difference).
func normalise(o Open) Open {
	for i := range o.Participants {
		if len(o.Participants[i].Params) == 0 {
			o.Participants[i].Params = nil
		}
	}
	return o
}

// An Open message carries each participant's δ, at which its ledger counts
// a zCDP session against an (ε, δ) lifetime budget; a δ without a zCDP
// budget, or outside (0, 1), is refused.
func TestOpenCarriesSessionDelta(t *testing.T) {
	for _, tc := range []struct {
		name   string
		budget *dp.Guarantee
		delta  float64
		want   string
	}{
		{"zCDP with δ", ptr(dp.Concentrated(0.03)), 1e-5, ""},
		{"zCDP without δ", ptr(dp.Concentrated(0.03)), 0, ""},
		{"(ε, δ) budget", ptr(dp.Approx(1, 1e-6)), 0, ""},
		{"δ beside an (ε, δ) budget", ptr(dp.Approx(1, 1e-6)), 1e-5, "δ 1e-05 of \"owner-1\" with budget (ε=1, δ=1e-06)"},
		{"δ without a budget", nil, 1e-5, "with budget none"},
		{"δ of 1", ptr(dp.Concentrated(0.03)), 1, "δ 1 of \"owner-1\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := Open{Method: "synthesize-rows", Coordinator: "curator",
				Participants: []Participant{{Name: "owner-1", Role: "owner", Budget: tc.budget, Delta: tc.delta}}}
			b, err := o.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			var got Open
			err = got.UnmarshalBinary(b)
			if testenv.ErrorCase(t, err, tc.want) {
				return
			}
			if got.Participants[0].Delta != tc.delta {
				t.Fatalf("round trip: %+v", got.Participants)
			}
		})
	}
}

func FuzzNotice(f *testing.F) {
	b, _ := Notice{OK: false, Reason: "owner-2 is unreachable"}.MarshalBinary()
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		var n Notice
		if err := n.UnmarshalBinary(b); err != nil {
			return
		}
		again, _ := n.MarshalBinary()
		if !bytes.Equal(again, b) {
			t.Fatalf("round trip changed %q into %q", b, again)
		}
	})
}

func FuzzReceipt(f *testing.F) {
	b, _ := Receipt{Budget: ptr(dp.Pure(1)), Charges: []privacy.Charge{{Purpose: "sums", Spec: dp.Spec{Mechanism: "laplace", Guarantee: dp.Pure(1)}}},
		Lifetime: ptr(dp.Pure(3)), Remaining: ptr(dp.Pure(2))}.MarshalBinary()
	f.Add(b)
	f.Add([]byte(`{"charges":[{"spec":{"guarantee":{"notion":"pure-dp","epsilon":-1}}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var r Receipt
		if err := r.UnmarshalBinary(b); err != nil {
			return
		}
		if len(r.Charges) > 0 && r.Budget == nil {
			t.Fatal("charges accepted without a budget")
		}
		for _, c := range r.Charges {
			if c.Spec.Guarantee.Validate() != nil {
				t.Fatalf("invalid charge accepted: %+v", c)
			}
		}
	})
}

// FuzzEnvelope covers what a server decodes from the wire: the protobuf
// envelope and its header checks, and the protocol's binary envelope.
func FuzzEnvelope(f *testing.F) {
	b, _ := proto.Marshal(&transportv1.Envelope{Session: "ppca-dp-mh-0123456789abcdef", From: "curator", To: "owner-1", Seq: 3, Type: "ppca-dp-mh/model", Payload: []byte{1, 2, 3}})
	f.Add(b)
	e := protocol.Envelope{Session: "s", From: "owner-1", To: "curator", Seq: 1, Type: "ppca-dp-mh/rows", Payload: []byte("rows")}
	pb, _ := e.MarshalBinary()
	f.Add(pb)
	f.Fuzz(func(t *testing.T, b []byte) {
		var m transportv1.Envelope
		if proto.Unmarshal(b, &m) == nil {
			if env, err := fromProto(&m); err == nil {
				if checkToken("session", env.Session, maxSessionLen) != nil || env.From == "" || env.To == "" {
					t.Fatalf("bad header accepted: %+v", env)
				}
				back := toProto(env)
				if !proto.Equal(back, &transportv1.Envelope{Session: m.Session, From: m.From, To: m.To, Seq: m.Seq, Type: m.Type, Payload: m.Payload}) {
					t.Fatal("conversion changed the envelope")
				}
			}
		}
		var pe protocol.Envelope
		if pe.UnmarshalBinary(b) == nil {
			again, _ := pe.MarshalBinary()
			if !bytes.Equal(again, b) {
				t.Fatal("protocol envelope round trip changed the bytes")
			}
		}
	})
}
