package pdpmvds

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/algo/marginal"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// measureSome is a small engine: a one-party marginal, a cross-party pair
// score and a cross-party marginal, in that order.
func measureSome(t testing.TB, f *fixture, got *[][]float64) Engine {
	return func(ctx context.Context, m marginal.Measurer) error {
		one := f.release(t, []int{0}, marginal.Laplace, marginal.CountL1, marginal.CountL2, 0.1)
		a, err := m.Marginal(ctx, []int{0}, one)
		if err != nil {
			return err
		}
		b, err := m.Marginal(ctx, []int{2}, f.release(t, []int{2}, marginal.Laplace, marginal.CountL1, marginal.CountL2, 0.1))
		if err != nil {
			return err
		}
		sr := f.release(t, []int{0, 2}, marginal.Gaussian, marginal.IInDifSensitivity, marginal.IInDifSensitivity, 0.1)
		score, err := m.Score(ctx, marginal.ScoreQuery{Kind: marginal.IInDif, A: 0, B: 2, N: f.session.Records, RefA: a, RefB: b}, sr)
		if err != nil {
			return err
		}
		c, err := m.Marginal(ctx, []int{1, 3}, f.release(t, []int{1, 3}, marginal.Gaussian, marginal.CountL1, marginal.CountL2, 0.1))
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
	d, err := NewDriver(context.Background(), f.session, func(ctx context.Context, m marginal.Measurer) error {
		if _, err := m.Marginal(ctx, []int{0}, f.release(t, []int{0}, marginal.Laplace, 2, 2, 0.1)); err != nil {
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
