package roles

import (
	"context"
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/method/mullda/lda"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// Changing one value of the means in flight is caught: the digest no longer
// matches the publisher's entry.
func TestOwnerDetectsMeansChangedInFlight(t *testing.T) {
	X, y := twoClassData(200, 3, 7)
	pr := testParams(1, 3, 1, lda.Sound, lda.Correlated)
	_, handles, _, _ := memLedgers(t, []string{"owner-1", "publisher"})
	s := newSession(t, pr, X, y, handles, 8)
	out, err := s.owners[0].Start()
	if err != nil || len(out) != 1 {
		t.Fatal(err)
	}
	means, err := s.publisher.Handle(out[0])
	if err != nil || len(means) != 1 {
		t.Fatal(err)
	}
	// The first mean value sits after the two shape ints and a length.
	pl := means[0].Payload
	binary.LittleEndian.PutUint64(pl[24:], math.Float64bits(0.123))
	if _, err := s.owners[0].Handle(means[0]); err == nil || !strings.Contains(err.Error(), "vouches for the mul-lda-dp/means message") {
		t.Fatalf("want a digest mismatch, got %v", err)
	}
}

// A party that records nothing on the ledger cannot get the session past
// its step: a publisher's means are vouched for by no entry, so the owners
// refuse them; an owner's sums are vouched for by none, so the publisher
// refuses them.
func TestUnrecordedStepsAreRefused(t *testing.T) {
	for _, c := range []struct {
		name, silent, want, refusalOf string
		dataSeed, seed                uint64
	}{
		{"publisher", "publisher", "no class-means-computed entry by publisher", "unrecorded means", 3, 4},
		{"owner", "owner-2", "no statistics-submitted entry by owner-2", "owner-2's unrecorded sums", 5, 6},
	} {
		t.Run(c.name, func(t *testing.T) {
			X, y := twoClassData(200, 3, c.dataSeed)
			pr := testParams(2, 3, 1, lda.Sound, lda.Correlated)
			_, handles, _, _ := memLedgers(t, append(ownerNames(2), "publisher"))
			delete(handles, c.silent)
			s := newSession(t, pr, X, y, handles, c.seed)
			if err := s.run(); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want a refusal of %s, got %v", c.refusalOf, err)
			}
		})
	}
}

// An owner whose budget is too small refuses before anything leaves it:
// no message, no statistics entry.
func TestOverspendingSendsNothing(t *testing.T) {
	X, y := twoClassData(100, 3, 9)
	pr := testParams(1, 3, 1, lda.Sound, lda.Correlated)
	log, handles, _, _ := memLedgers(t, []string{"owner-1", "publisher"})
	acct, _ := privacy.NewAccountant(privacy.AccountantOptions{Party: "owner-1", Budget: dp.Approx(0.5, 1e-3)})
	o, err := NewOwner(OwnerOptions{ID: "owner-1", Params: pr, Data: X, Labels: y, Accountant: acct,
		Source: randx.NewSeeded(1), Ledger: handles["owner-1"]})
	if err != nil {
		t.Fatal(err)
	}
	out, err := o.Start()
	if err == nil || len(out) != 0 || !strings.Contains(err.Error(), "exceed its budget") {
		t.Fatalf("want a budget refusal and no message, got %d messages, %v", len(out), err)
	}
	if log.Len() != 0 {
		t.Fatalf("the ledger holds %d entries after a refused release", log.Len())
	}
}

// With RealProjections the publisher publishes X_m W of the real rows, in
// owner order (the paper's output, not DP).
func TestRealProjectionsAreXW(t *testing.T) {
	X, y := twoClassData(300, 4, 11)
	pr := testParams(2, 4, 1, lda.Paper, lda.Independent)
	pr.Output = RealProjections
	s := newSession(t, pr, X, y, nil, 12)
	if err := s.run(); err != nil {
		t.Fatal(err)
	}
	res, err := s.publisher.Result()
	if err != nil {
		t.Fatal(err)
	}
	want := lda.Project(X, res.Directions)
	if !mat.EqualApprox(res.Projections, want, 1e-12) || len(res.Labels) != 300 || res.Labels[1] != y[1] {
		t.Fatal("published projections are not X·W with the real labels")
	}
	// Paper calibration: two charges per owner, (ε/2, δ/2) each.
	for _, o := range s.owners {
		if c := o.o.Accountant.Charges(); len(c) != 2 || c[0].Spec.Guarantee.Epsilon != 0.5 {
			t.Fatalf("%s charges %+v", o.ID(), c)
		}
	}
}

// The direction reaches every owner, and an owner that never received its
// shares sends nothing (it waits for the dealer).
func TestOwnerWaitsForShares(t *testing.T) {
	X, y := twoClassData(100, 3, 13)
	pr := testParams(3, 3, 1, lda.Sound, lda.Correlated)
	s := newSession(t, pr, X, y, nil, 14)
	if out, err := s.owners[0].Start(); err != nil || len(out) != 0 {
		t.Fatalf("owner sent %d messages before its shares: %v", len(out), err)
	}
	if _, err := protocol.RunLocal(context.Background(), s.publisher); err == nil {
		t.Fatal("a publisher alone finished a session")
	}
}

func TestParamsValidate(t *testing.T) {
	good := testParams(2, 3, 1, lda.Sound, lda.Correlated)
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	cases := map[string]func(*Params){
		"no dealer":      func(p *Params) { p.Dealer = "" },
		"dealer is user": func(p *Params) { p.Dealer = "owner-1" },
		"plan owners":    func(p *Params) { p.Plan.Owners = 3 },
		"ridge":          func(p *Params) { p.Ridge = -1 },
		"output":         func(p *Params) { p.Output = "raw" },
		"epsilon":        func(p *Params) { p.Plan.Epsilon = 0 },
		"duplicate":      func(p *Params) { p.Owners = []string{"a", "a"} },
	}
	for name, mutate := range cases {
		p := good
		p.Owners = append([]string(nil), good.Owners...)
		mutate(&p)
		if err := p.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	ind := testParams(2, 3, 1, lda.Sound, lda.Independent)
	ind.Dealer = "dealer"
	if err := ind.Validate(); err == nil {
		t.Error("a dealer for independent noise was accepted")
	}
}

func TestMessagesRoundTripAndRejectTruncation(t *testing.T) {
	msgs := []interface {
		protocol.Message
	}{
		Shares{Classes: 2, P: 2, Sums: []int64{1, -2, 3, 4}, Counts: []int64{1, 2}, Upper: []int64{1, 2, -3}},
		Sums{Classes: 2, P: 1, Sums: []float64{1, 2}, Counts: []float64{3, 4}},
		Means{Classes: 2, P: 1, Means: []float64{1, 2}, Counts: []float64{3, 4}},
		Second{P: 2, Upper: []float64{1, 2, 3}},
		Direction{P: 2, D: 1, W: []float64{0.6, 0.8}},
		Projections{D: 1, Z: []float64{0.5}, Labels: []uint64{1}},
	}
	decoders := []func([]byte) error{
		func(b []byte) error { var m Shares; return m.UnmarshalBinary(b) },
		func(b []byte) error { var m Sums; return m.UnmarshalBinary(b) },
		func(b []byte) error { var m Means; return m.UnmarshalBinary(b) },
		func(b []byte) error { var m Second; return m.UnmarshalBinary(b) },
		func(b []byte) error { var m Direction; return m.UnmarshalBinary(b) },
		func(b []byte) error { var m Projections; return m.UnmarshalBinary(b) },
	}
	for i, m := range msgs {
		b, _ := m.MarshalBinary()
		if err := decoders[i](b); err != nil {
			t.Fatalf("%s: %v", m.MessageType(), err)
		}
		if err := decoders[i](b[:len(b)-1]); err == nil {
			t.Fatalf("%s: truncated message accepted", m.MessageType())
		}
	}
	bad, _ := Sums{Classes: 2, P: 2, Sums: []float64{1}, Counts: []float64{1, 2}}.MarshalBinary()
	if err := decoders[1](bad); err == nil {
		t.Fatal("sums of the wrong length accepted")
	}
}
