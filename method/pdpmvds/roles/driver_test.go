package roles

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/infer"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// measureSome is a small engine: a one-party marginal, a cross-party pair
// score and a cross-party marginal, in that order.
func measureSome(t testing.TB, f *fixture, got *[][]float64) Engine {
	return func(ctx context.Context, m measurement.Measurer) error {
		one := f.release(t, []int{0}, measurement.Laplace, measurement.CountL1, measurement.CountL2, 0.1)
		a, err := m.Marginal(ctx, []int{0}, one)
		if err != nil {
			return err
		}
		b, err := m.Marginal(ctx, []int{2}, f.release(t, []int{2}, measurement.Laplace, measurement.CountL1, measurement.CountL2, 0.1))
		if err != nil {
			return err
		}
		sr := f.release(t, []int{0, 2}, measurement.Gaussian, measurement.IInDifSensitivity, measurement.IInDifSensitivity, 0.1)
		score, err := m.Score(ctx, measurement.ScoreQuery{Kind: measurement.IInDif, A: 0, B: 2, N: f.session.Records, RefA: a, RefB: b}, sr)
		if err != nil {
			return err
		}
		c, err := m.Marginal(ctx, []int{1, 3}, f.release(t, []int{1, 3}, measurement.Gaussian, measurement.CountL1, measurement.CountL2, 0.1))
		if err != nil {
			return err
		}
		*got = [][]float64{a, b, {score}, c}
		return nil
	}
}

// driven is a run's roles under d: d, and S and the parties staying until
// d closes the run.
func (f *fixture) driven(d *Driver) []protocol.Role {
	roles := []protocol.Role{d, Stay(f.third)}
	for _, p := range f.parties {
		roles = append(roles, Stay(p))
	}
	return roles
}

// One protocol session driven by a Driver releases exactly what one
// RunLocal session per measurement releases, for the same seeds, in both
// suites; every role ends done.
func TestDriverMatchesMeasurer(t *testing.T) {
	for _, suite := range []Suite{SuiteCommodity, SuitePaillier} {
		t.Run(string(suite), func(t *testing.T) {
			var want, got [][]float64
			ref := newRoles(t, suite, NoiseInsiderSafe, 300, 1, 7)
			if err := measureSome(t, ref, &want)(context.Background(), ref.m); err != nil {
				t.Fatal(err)
			}
			f := newRoles(t, suite, NoiseInsiderSafe, 300, 1, 7)
			d, err := NewDriver(context.Background(), f.session, measureSome(t, f, &got))
			if err != nil {
				t.Fatal(err)
			}
			roles := f.driven(d)
			if _, err := protocol.RunLocal(context.Background(), roles...); err != nil {
				t.Fatal(err)
			}
			if len(got) != 4 || !slices.EqualFunc(got, want, slices.Equal) {
				t.Fatalf("driven run released %v, per-request runs %v", got, want)
			}
			for _, r := range roles {
				if !r.Done() {
					t.Fatalf("%s is not done", r.ID())
				}
			}
			for k, a := range f.accts {
				if a.Spent() != ref.accts[k].Spent() {
					t.Fatalf("party %d spent %v, per-request run %v", k+1, a.Spent(), ref.accts[k].Spent())
				}
			}
		})
	}
}

// An engine's error fails the session with that error; a role that is
// closed with a request in flight, or closed by someone else, refuses.
func TestDriverFailures(t *testing.T) {
	f := newRoles(t, SuiteCommodity, NoiseInsiderSafe, 50, 1, 3)
	boom := errors.New("boom")
	d, err := NewDriver(context.Background(), f.session, func(ctx context.Context, m measurement.Measurer) error {
		if _, err := m.Marginal(ctx, []int{0}, f.release(t, []int{0}, measurement.Laplace, 2, 2, 0.1)); err != nil {
			return err
		}
		return boom
	})
	if err != nil {
		t.Fatal(err)
	}
	roles := f.driven(d)
	if _, err := protocol.RunLocal(context.Background(), roles...); !errors.Is(err, boom) {
		t.Fatalf("want the engine's error, got %v", err)
	}
	s := Stay(f.parties[0])
	e, _ := protocol.Seal("", ThirdPartyID, PartyID(0), Close{})
	if _, err := s.Handle(e); err == nil || !strings.Contains(err.Error(), "not the coordinator") {
		t.Fatalf("close from S: %v", err)
	}
	if _, err := NewDriver(context.Background(), f.session, nil); err == nil {
		t.Fatal("driver without an engine accepted")
	}
}

// runShuffled delivers envelopes in a random order that keeps only each
// (sender, recipient) pair's order, as a network does, until every role
// is done.
func runShuffled(t *testing.T, seed uint64, roles ...protocol.Role) {
	t.Helper()
	byID := map[string]protocol.Role{}
	var pending []protocol.Envelope
	for _, r := range roles {
		byID[r.ID()] = r
		out, err := r.Start()
		if err != nil {
			t.Fatal(err)
		}
		pending = append(pending, out...)
	}
	rng := randx.NewSeeded(seed)
	for len(pending) > 0 {
		// The first pending envelope of a random pair is deliverable.
		i := rng.IntN(len(pending))
		for j := range i {
			if pending[j].From == pending[i].From && pending[j].To == pending[i].To {
				i = j
				break
			}
		}
		e := pending[i]
		pending = slices.Delete(pending, i, i+1)
		out, err := byID[e.To].Handle(e)
		if err != nil {
			t.Fatal(err)
		}
		pending = append(pending, out...)
	}
	for _, r := range roles {
		if !r.Done() {
			t.Fatalf("%s is not done", r.ID())
		}
	}
}

// Delivered in network order (a fellow role's message may overtake the
// coordinator's request), a driven run releases the same values: roles
// keep early messages until their request opens.
func TestDriverToleratesNetworkOrder(t *testing.T) {
	var want [][]float64
	ref := newRoles(t, SuiteCommodity, NoiseInsiderSafe, 200, 1, 5)
	if err := measureSome(t, ref, &want)(context.Background(), ref.m); err != nil {
		t.Fatal(err)
	}
	for seed := range uint64(5) {
		var got [][]float64
		f := newRoles(t, SuiteCommodity, NoiseInsiderSafe, 200, 1, 5)
		d, err := NewDriver(context.Background(), f.session, measureSome(t, f, &got))
		if err != nil {
			t.Fatal(err)
		}
		roles := f.driven(d)
		runShuffled(t, seed, roles...)
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("order %d released %v, want %v", seed, got, want)
		}
	}
}

// testEngine is Algorithm 3 over testSizes' categorical attributes, with
// the fixture's parties (one ρ for all) and a few GUM rounds; src drives
// GUM.
func testEngine(t testing.TB, rho float64, src *randx.Source, res **marginal.Result) Engine {
	var s data.Schema
	for j, n := range testSizes {
		a := data.Attribute{Name: fmt.Sprintf("a%d", j), Kind: data.Categorical}
		for c := range n {
			a.Categories = append(a.Categories, fmt.Sprint(c))
		}
		s.Attributes = append(s.Attributes, a)
	}
	dom, err := domain.New(s, domain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	parties := make([]marginal.Party, 3)
	for k := range parties {
		parties[k] = marginal.Party{Name: PartyID(k), Rho: rho}
	}
	for j, k := range testOwners {
		parties[k].Attrs = append(parties[k].Attrs, j)
	}
	return func(ctx context.Context, m measurement.Measurer) error {
		var err error
		*res, err = marginal.Synthesize(ctx, m, marginal.Options{Domain: dom, Parties: parties, Records: testRecords,
			GUM: infer.GUMOptions{Rounds: 3}, Source: src})
		return err
	}
}

const testRecords = 300

// The whole engine (Algorithm 3) driven in one protocol session
// synthesises exactly the table it synthesises through the Measurer (one
// session per measurement), for the same seeds.
func TestDriverSynthesizeMatchesMeasurer(t *testing.T) {
	var want, got *marginal.Result
	ref := newRoles(t, SuiteCommodity, NoiseInsiderSafe, testRecords, 1, 11)
	if err := testEngine(t, 1, randx.NewSeeded(12), &want)(context.Background(), ref.m); err != nil {
		t.Fatal(err)
	}
	f := newRoles(t, SuiteCommodity, NoiseInsiderSafe, testRecords, 1, 11)
	d, err := NewDriver(context.Background(), f.session, testEngine(t, 1, randx.NewSeeded(12), &got))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := protocol.RunLocal(context.Background(), f.driven(d)...); err != nil {
		t.Fatal(err)
	}
	if len(got.Measured) == 0 || len(got.Measured) != len(want.Measured) {
		t.Fatalf("measured %d marginals, per-request run %d", len(got.Measured), len(want.Measured))
	}
	t.Logf("%d releases, %d marginals measured", len(got.Plan), len(got.Measured))
	for j := range want.Data.Cols {
		if !slices.Equal(got.Data.Cols[j], want.Data.Cols[j]) {
			t.Fatalf("synthetic column %d differs from the per-request run's", j)
		}
	}
	for k, a := range f.accts {
		if a.Spent() != ref.accts[k].Spent() {
			t.Fatalf("party %d spent %v, per-request run %v", k+1, a.Spent(), ref.accts[k].Spent())
		}
	}
}

// Stopping a driver (a session that aborts) ends the engine's goroutine
// even while it waits for a reply that will never come; an engine that
// fails or measures nothing ends at Start.
func TestDriverStop(t *testing.T) {
	f := newRoles(t, SuiteCommodity, NoiseInsiderSafe, 50, 1, 3)
	ended := make(chan error, 1)
	d, err := NewDriver(context.Background(), f.session, func(ctx context.Context, m measurement.Measurer) error {
		_, err := m.Marginal(ctx, []int{0}, f.release(t, []int{0}, measurement.Laplace, 2, 2, 0.1))
		ended <- err
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := d.Start()
	if err != nil || len(out) == 0 {
		t.Fatalf("start: %d envelopes, %v", len(out), err)
	}
	d.Stop()
	// A goroutine still blocked fails the test by its deadline.
	select {
	case err := <-ended:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the engine's measurement ended with %v, want context.Canceled", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the engine still waits after Stop")
	}
	if _, err := d.Handle(out[0]); err == nil || d.Done() {
		t.Fatalf("a stopped driver handled a message: %v", err)
	}

	boom := errors.New("boom")
	d, _ = NewDriver(context.Background(), f.session, func(context.Context, measurement.Measurer) error { return boom })
	if _, err := d.Start(); !errors.Is(err, boom) || d.Done() {
		t.Fatalf("failing engine: start returned %v", err)
	}
	d, _ = NewDriver(context.Background(), f.session, func(context.Context, measurement.Measurer) error { return nil })
	out, err = d.Start()
	if err != nil || !d.Done() || len(out) != 4 {
		t.Fatalf("idle engine: %d envelopes, done %v, %v", len(out), d.Done(), err)
	}
	for _, e := range out {
		if e.Type != TypeClose || e.From != CoordinatorID {
			t.Fatalf("idle engine sent %s from %s", e.Type, e.From)
		}
	}
}

// fuzzKinds are the commodity suite's message kinds, the request's and
// the close's (the request and close are not Bodies: mutating into them
// sends a body under their type).
var fuzzKinds = []string{"result", "ready", "totals", "pair-seed", "mask-seeds", "masked", "deal", "noise",
	"sign-query", "signs", "request", "close"}

// mutate rewrites one envelope of a run as a misbehaving sender could:
// another sender or kind, another request ID, stage or index, other or
// truncated words.
func mutate(e protocol.Envelope, from, kind uint8, dID int8, stage, index int, words []byte) protocol.Envelope {
	ids := []string{CoordinatorID, ThirdPartyID, PartyID(0), PartyID(1), PartyID(2)}
	if int(from) < len(ids) {
		e.From = ids[from]
	}
	if e.Type == (&Request{}).MessageType() {
		var q Request
		if q.UnmarshalBinary(e.Payload) == nil {
			q.ID += uint64(int64(dID))
			if len(q.Attrs) > 0 {
				q.Attrs[0] = index
			}
			e.Payload, _ = q.MarshalBinary()
		}
		return e
	}
	var m Body
	if m.UnmarshalBinary(e.Payload) != nil {
		return e
	}
	if int(kind) < len(fuzzKinds) {
		m.Kind = fuzzKinds[kind]
	}
	m.ID += uint64(int64(dID))
	m.Stage, m.Index = stage, index
	switch {
	case len(words)%8 == 0 && len(words) > 0:
		m.Words = bytesWords(words)
	case len(words) < len(m.Words):
		m.Words = m.Words[:len(words)]
	}
	e.Payload, _ = m.MarshalBinary()
	e.Type = m.MessageType()
	return e
}

// fuzzRunLen is the number of messages of FuzzDrivenRoles' run.
const fuzzRunLen = 64

// FuzzDrivenRoles replaces one message of a driven commodity run with a
// mutated one: whatever a fellow role sends, the roles refuse it or carry
// on, and never panic (a panic would bring down a member's server).
//
//	go test -run XXX -fuzz FuzzDrivenRoles ./protocol/pdpmvds
func FuzzDrivenRoles(f *testing.F) {
	f.Add(uint16(3), uint8(9), uint8(5), int8(0), 0, 7, []byte{1, 2, 3})
	f.Add(uint16(20), uint8(9), uint8(6), int8(0), 1, 1, []byte{})
	f.Add(uint16(40), uint8(2), uint8(3), int8(1), 0, 0, make([]byte, 16))
	f.Add(uint16(0), uint8(0), uint8(0), int8(0), -1, 99, []byte{0})
	f.Fuzz(func(t *testing.T, step uint16, from, kind uint8, dID int8, stage, index int, words []byte) {
		fx := newRoles(t, SuiteCommodity, NoiseInsiderSafe, 20, 1, 3)
		var got [][]float64
		d, err := NewDriver(context.Background(), fx.session, measureSome(t, fx, &got))
		if err != nil {
			t.Fatal(err)
		}
		defer d.Stop()
		byID := map[string]protocol.Role{}
		var pending []protocol.Envelope
		for _, r := range fx.driven(d) {
			byID[r.ID()] = r
			out, err := r.Start()
			if err != nil {
				t.Fatal(err)
			}
			pending = append(pending, out...)
		}
		for n := 0; len(pending) > 0; n++ {
			e := pending[0]
			pending = pending[1:]
			if n == int(step)%fuzzRunLen {
				e = mutate(e, from, kind, dID, stage, index, words)
			}
			out, err := byID[e.To].Handle(e)
			if err != nil {
				return
			}
			pending = append(pending, out...)
		}
	})
}
