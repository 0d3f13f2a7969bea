package roles

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// newAddRemoveSetup is newSetup for a session under add/remove
// neighbours (an owner may hold no records).
func newAddRemoveSetup(t *testing.T, mode NoiseMode, sizes ...int) *setup {
	t.Helper()
	return setupUnder(t, mode, dp.NeighboursAddRemove, sizes...)
}

// Under add/remove no owner's count reaches the coordinator before the
// count release (hellos carry 0, Records is 0, OwnerRecords nil); at a
// huge ρ the released total is Σ n_k exactly, including an owner with no
// records, and a marginal after it the pooled counts; every owner is
// charged the count first, at sensitivity 1, then the marginal at
// sensitivity 1.
func TestAddRemoveCountThenMarginal(t *testing.T) {
	for _, mode := range []NoiseMode{NoiseExact, NoiseInsiderSafe} {
		t.Run(string(mode), func(t *testing.T) {
			sizes := []int{40, 0, 7}
			s := newAddRemoveSetup(t, mode, sizes...)
			var n int
			var got []float64
			engine := func(ctx context.Context, m *Measurer) error {
				if m.Records() != 0 || m.OwnerRecords() != nil {
					return fmt.Errorf("before the count release: records %d, owners' %v", m.Records(), m.OwnerRecords())
				}
				var err error
				if n, err = m.ReleaseRecords(ctx, 1e8); err != nil {
					return err
				}
				if err := m.SetDomain(ctx, nil); err != nil {
					return err
				}
				noise, err := measurement.CountNoise(measurement.Gaussian, dp.NeighboursAddRemove, 1e8)
				if err != nil {
					return err
				}
				got, err = m.Marginal(ctx, []int{0, 1}, measurement.Release{Purpose: "test marginal", Parties: []int{0}, Noise: noise})
				return err
			}
			c := s.coordinator(t, engine)
			if _, err := protocol.RunLocal(context.Background(), s.roles(c)...); err != nil {
				t.Fatal(err)
			}
			if n != 47 || c.Records()[0] != 0 || c.Records()[2] != 0 {
				t.Fatalf("released %d records (want 47), hellos gave %v (want zeros)", n, c.Records())
			}
			want := s.pooled(t, []int{0, 1})
			for i := range want {
				if math.Abs(got[i]-want[i]) > 0.01 {
					t.Fatalf("cell %d: released %v, pooled count %v", i, got[i], want[i])
				}
			}
			for k, a := range s.accts {
				cs := a.Charges()
				if len(cs) != 2 || cs[0].Purpose != "record count (add/remove neighbours)" || cs[0].Spec.Sensitivity != 1 || cs[1].Spec.Sensitivity != 1 {
					t.Errorf("%s's charges %+v: want the count then the marginal, both at sensitivity 1", OwnerID(k), cs)
				}
			}
		})
	}
}

// The owners' summed score under add/remove moves by at most
// AddRemoveScoreSensitivity = 1 + ‖f̃‖₁ when a record is added to or
// removed from one owner, and the bound is attained: an owner holding
// 4 records in cell 0 against f = (0, 1) scores 4 + 4 = 8; with a fifth
// in cell 0 it scores 5 + 5 = 10, a move of 2 = 1 + ‖f‖₁. Then 2 000
// random owners, references and added or removed records (seeded) stay
// within the bound.
func TestAddRemoveScoreSensitivity(t *testing.T) {
	score := func(counts, f []float64) float64 {
		records := 0
		for _, c := range counts {
			records += int(c)
		}
		s, err := addRemoveScores([][]float64{counts}, [][]float64{f}, records)
		if err != nil {
			t.Fatal(err)
		}
		return s[0]
	}
	f := []float64{0, 1}
	bound, err := AddRemoveScoreSensitivity(f)
	if err != nil || bound != 2 {
		t.Fatalf("sensitivity %v (%v), want 2", bound, err)
	}
	if a, b := score([]float64{4, 0}, f), score([]float64{5, 0}, f); a != 8 || b != 10 {
		t.Fatalf("scores %v and %v, want 8 and 10", a, b)
	}
	src := randx.NewSeeded(11)
	for trial := range 2000 {
		cells := 2 + src.IntN(6)
		f, counts := make([]float64, cells), make([]float64, cells)
		total := 0.0
		for i := range f {
			f[i] = src.Float64()
			total += f[i]
			counts[i] = float64(src.IntN(5))
		}
		for i := range f {
			f[i] /= total
		}
		bound, err := AddRemoveScoreSensitivity(f)
		if err != nil {
			t.Fatal(err)
		}
		next := append([]float64(nil), counts...)
		cell := src.IntN(cells)
		if next[cell] > 0 && src.IntN(2) == 0 {
			next[cell]-- // a removed record
		} else {
			next[cell]++
		}
		if d := math.Abs(score(next, f) - score(counts, f)); d > bound {
			t.Fatalf("trial %d: counts %v → %v against %v moved the score by %v, above the bound %v", trial, counts, next, f, d, bound)
		}
	}
}

// An owner of an add/remove session refuses, before any charge, a request
// calibrated to replace-one, and a request that names add/remove but
// declares replace-one's count sensitivity; it answers the honest count
// request. A coordinator of an add/remove session refuses a hello that
// carries a record count.
func TestAddRemoveOwnerChecksTheRelation(t *testing.T) {
	s := newAddRemoveSetup(t, NoiseExact, 40, 7)
	o := s.owners[0]
	if err := o.takeKeys(s.keys(t)); err != nil {
		t.Fatal(err)
	}
	if err := o.takeDomain(Domain{}); err != nil {
		t.Fatal(err)
	}
	replaceOne := &Request{Session: "test", ID: 1, Kind: KindMarginal, Attrs: []int{0}, Release: release(t, 0.1)}
	misdeclared := &Request{Session: "test", ID: 2, Kind: KindMarginal, Attrs: []int{0}, Release: release(t, 0.1), Neighbours: dp.NeighboursAddRemove}
	honest := &Request{Session: "test", ID: 3, Kind: KindCount, Release: measurement.Release{Purpose: "count", Parties: []int{0}}}
	if err := honest.Calibrate(dp.NeighboursAddRemove, measurement.Gaussian, 0.1); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		q    *Request
		want string
	}{
		{"replace-one request", replaceOne, "calibrated to replace-one neighbours, the owner's session to add-remove"},
		{"replace-one sensitivity under add/remove", misdeclared, "not the owner's own calibration"},
		{"honest count", honest, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := len(s.accts[0].Charges())
			out, err := ask(t, o, c.q)
			charged := len(s.accts[0].Charges()) - before
			switch {
			case c.want == "" && (err != nil || charged != 1 || len(out) != 1):
				t.Fatalf("honest request: %v, %d charges, %d messages", err, charged, len(out))
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || charged != 0 || len(out) != 0):
				t.Fatalf("got %v with %d charges and %d messages, want a refusal containing %q before any charge", err, charged, len(out), c.want)
			}
		})
	}
	c := s.coordinator(t, func(context.Context, *Measurer) error { return nil })
	h, err := protocol.Seal("", OwnerID(1), CoordinatorID, &Hello{Key: make([]byte, 32), Records: 7})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Handle(h); err == nil || !strings.Contains(err.Error(), "private") {
		t.Fatalf("a hello with a record count under add/remove: %v, want a refusal", err)
	}
}
