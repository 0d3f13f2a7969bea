package roles

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// table has n records over a 3-category attribute and a numeric one in
// [0, 10]; record i has category i%3 and value i%11.
func table(n, offset int) *data.Table {
	s := data.Schema{Attributes: []data.Attribute{
		{Name: "c", Kind: data.Categorical, Categories: []string{"a", "b", "c"}},
		{Name: "x", Kind: data.Numeric, Min: 0, Max: 10, Integer: true},
	}}
	t := &data.Table{Schema: s}
	for i := range n {
		t.Rows = append(t.Rows, []float64{float64((i + offset) % 3), float64((i + offset) % 11)})
	}
	return t
}

type setup struct {
	auth   *testAuth
	owners []*Owner
	accts  []*privacy.Accountant
	tables []*data.Table
	params Params
}

func newSetup(t *testing.T, mode NoiseMode, sizes ...int) *setup {
	t.Helper()
	return setupUnder(t, mode, "", sizes...)
}

// setupUnder is newSetup for a session under the relation nb ("": unset,
// which is replace-one).
func setupUnder(t *testing.T, mode NoiseMode, nb dp.Neighbours, sizes ...int) *setup {
	t.Helper()
	s := &setup{params: Params{Session: "test", Owners: len(sizes), Schema: table(1, 0).Schema, Bins: 11, Noise: mode, Neighbours: nb}}
	src := randx.NewSeeded(7)
	s.auth = newTestAuth(len(sizes))
	for k, n := range sizes {
		acct, err := privacy.NewAccountant(privacy.AccountantOptions{Party: OwnerID(k), Budget: dp.Concentrated(1e9)})
		if err != nil {
			t.Fatal(err)
		}
		tab := table(n, 17*k)
		o, err := NewOwner(OwnerOptions{Params: s.params, Index: k, Table: tab, Accountant: acct, Source: src.Child(), Auth: s.auth.owner(k)})
		if err != nil {
			t.Fatal(err)
		}
		s.owners, s.accts, s.tables = append(s.owners, o), append(s.accts, acct), append(s.tables, tab)
	}
	return s
}

// coordinator is the coordinator running engine over the setup's owners,
// from seed 3.
func (s *setup) coordinator(t *testing.T, engine Engine) *Coordinator {
	t.Helper()
	c, err := NewCoordinator(context.Background(), s.params, engine, randx.NewSeeded(3))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// run runs engine at a coordinator over the setup's owners, in one
// process.
func (s *setup) run(t *testing.T, engine Engine) error {
	t.Helper()
	_, err := protocol.RunLocal(context.Background(), s.roles(s.coordinator(t, engine))...)
	return err
}

func (s *setup) roles(c *Coordinator) []protocol.Role {
	roles := []protocol.Role{c}
	for _, o := range s.owners {
		roles = append(roles, o)
	}
	return roles
}

// pooled are the exact pooled counts over (c, x) on the equal-width
// domain of the parameters.
func (s *setup) pooled(t *testing.T, attrs []int) []float64 {
	t.Helper()
	dom, err := domain.New(s.params.Schema, domain.Options{Bins: s.params.Bins})
	if err != nil {
		t.Fatal(err)
	}
	var out []float64
	for _, tab := range s.tables {
		ds, _, err := dom.Encode(tab)
		if err != nil {
			t.Fatal(err)
		}
		m, err := domain.Count(ds, attrs)
		if err != nil {
			t.Fatal(err)
		}
		if out == nil {
			out = make([]float64, len(m.Counts))
		}
		for i, v := range m.Counts {
			out[i] += v
		}
	}
	return out
}

func release(t *testing.T, rho float64) measurement.Release {
	t.Helper()
	n, err := measurement.Calibrate(measurement.Gaussian, measurement.CountL1, measurement.CountL2, rho)
	if err != nil {
		t.Fatal(err)
	}
	return measurement.Release{Purpose: "test", Parties: []int{0}, Noise: n}
}

// The masks cancel: at a huge ρ the coordinator's release is the pooled
// counts (noise σ ≈ 10⁻⁴), for one, two and five owners in both modes,
// and every owner is charged each release once.
func TestReleaseIsThePooledCounts(t *testing.T) {
	for _, mode := range []NoiseMode{NoiseExact, NoiseInsiderSafe} {
		for _, sizes := range [][]int{{40}, {40, 7}, {5, 9, 13, 30, 2}} {
			t.Run(fmt.Sprintf("%s/%d", mode, len(sizes)), func(t *testing.T) {
				s := newSetup(t, mode, sizes...)
				var got []float64
				engine := func(ctx context.Context, m *Measurer) error {
					if m.Records() != sum(sizes) {
						return fmt.Errorf("records %d, want %d", m.Records(), sum(sizes))
					}
					if err := m.SetDomain(ctx, nil); err != nil {
						return err
					}
					var err error
					got, err = m.Marginal(ctx, []int{0, 1}, release(t, 1e8))
					return err
				}
				if err := s.run(t, engine); err != nil {
					t.Fatal(err)
				}
				want := s.pooled(t, []int{0, 1})
				for i := range want {
					if math.Abs(got[i]-want[i]) > 0.01 {
						t.Fatalf("cell %d: released %v, pooled count %v", i, got[i], want[i])
					}
				}
				for k, a := range s.accts {
					if n := len(a.Charges()); n != 1 {
						t.Errorf("%s charged %d times, want once", OwnerID(k), n)
					}
				}
			})
		}
	}
}

func sum(v []int) int {
	t := 0
	for _, x := range v {
		t += x
	}
	return t
}

// What the coordinator receives from one owner is masked: each word,
// read as a value on the grid, is uniform over 2^64 grid steps, so it
// lies within 2^50 steps of the owner's true count with probability
// 2^-13 per cell. The test fails if more than 2 of the 33 cells × 3
// owners do (false rejection rate below 10⁻⁶).
func TestCoordinatorSeesOnlyMaskedShares(t *testing.T) {
	s := newSetup(t, NoiseExact, 40, 30, 20)
	engine := func(ctx context.Context, m *Measurer) error {
		if err := m.SetDomain(ctx, nil); err != nil {
			return err
		}
		_, err := m.Marginal(ctx, []int{0, 1}, release(t, 1e8))
		return err
	}
	c := s.coordinator(t, engine)
	rec := &protocol.Recorder{Role: c}
	roles := s.roles(c)
	roles[0] = rec
	if _, err := protocol.RunLocal(context.Background(), roles...); err != nil {
		t.Fatal(err)
	}
	close := 0
	for _, e := range rec.Received {
		if e.Type != TypeShare {
			continue
		}
		var sh Share
		if err := sh.UnmarshalBinary(e.Payload); err != nil {
			t.Fatal(err)
		}
		for _, w := range sh.Words {
			if v := int64(w); v > -(1<<50) && v < 1<<50 {
				close++
			}
		}
	}
	if close > 2 {
		t.Fatalf("%d of the shares' words lie near a count: the masks do not hide the owners' counts", close)
	}
}

// An owner refuses a release whose noise is below the calibration of its
// ρ, before charging or sending anything.
func TestOwnerRefusesUndercalibratedNoise(t *testing.T) {
	s := newSetup(t, NoiseExact, 10, 10)
	o := s.owners[0]
	if err := o.takeKeys(s.keys(t)); err != nil {
		t.Fatal(err)
	}
	r := release(t, 0.5)
	r.Noise.Scale /= 2
	q := &Request{Session: s.params.Session, ID: 1, Kind: KindHistogram, Column: 1, Cells: 11, Release: r}
	e, err := protocol.Seal("", CoordinatorID, o.ID(), q)
	if err != nil {
		t.Fatal(err)
	}
	_, err = o.Handle(e)
	if err == nil || !strings.Contains(err.Error(), "not the owner's own calibration of a count vector") {
		t.Fatalf("under-calibrated request: %v", err)
	}
	if n := len(s.accts[0].Charges()); n != 0 {
		t.Fatalf("the owner was charged %d times for a refused request", n)
	}
}

// A replayed share, a share for another request and a message from a
// stranger are refused; a run whose owner stops answering fails instead
// of publishing, with the charges already made kept.
func TestFaults(t *testing.T) {
	engine := func(ctx context.Context, m *Measurer) error {
		if err := m.SetDomain(ctx, nil); err != nil {
			return err
		}
		for range 3 {
			if _, err := m.Marginal(ctx, []int{0}, release(t, 1)); err != nil {
				return err
			}
		}
		return nil
	}
	t.Run("replayed share", func(t *testing.T) {
		s := newSetup(t, NoiseExact, 10, 10)
		c := s.coordinator(t, engine)
		roles := s.roles(c)
		roles[1] = &replayer{Role: roles[1]}
		_, err := protocol.RunLocal(context.Background(), roles...)
		if err == nil || !strings.Contains(err.Error(), "two shares") {
			t.Fatalf("replayed share: %v", err)
		}
	})
	t.Run("stranger", func(t *testing.T) {
		s := newSetup(t, NoiseExact, 10)
		c := s.coordinator(t, engine)
		_, err := c.Handle(protocol.Envelope{From: "owner-9", To: CoordinatorID, Type: TypeShare})
		if err == nil || !strings.Contains(err.Error(), "not an owner") {
			t.Fatalf("stranger: %v", err)
		}
	})
	t.Run("owner drops out", func(t *testing.T) {
		s := newSetup(t, NoiseExact, 10, 10, 10)
		c := s.coordinator(t, engine)
		roles := s.roles(c)
		roles[2] = &dropper{Role: roles[2], after: 1}
		_, err := protocol.RunLocal(context.Background(), roles...)
		c.Stop()
		if err == nil || !strings.Contains(err.Error(), "not done") {
			t.Fatalf("dropped owner: %v", err)
		}
		if n := len(s.accts[0].Charges()); n != 2 {
			t.Fatalf("owner 1 has %d charges, want the 2 releases it answered", n)
		}
	})
}

// replayer sends each of its shares twice.
type replayer struct{ protocol.Role }

func (r *replayer) Handle(e protocol.Envelope) ([]protocol.Envelope, error) {
	out, err := r.Role.Handle(e)
	for _, x := range out {
		if x.Type == TypeShare {
			out = append(out, x)
			break
		}
	}
	return out, err
}

// dropper stops answering after `after` requests.
type dropper struct {
	protocol.Role
	after, seen int
}

func (d *dropper) Handle(e protocol.Envelope) ([]protocol.Envelope, error) {
	if e.Type == TypeRequest {
		d.seen++
		if d.seen > d.after {
			return nil, nil
		}
	}
	return d.Role.Handle(e)
}

// A pair score is answered inside the protocol: at a huge ρ the release
// is the sum of the owners' own scores against the public reference; one
// owner holding every record gives the single curator's IInDif score
// exactly (measurement.LocalMeasurer on the same records), and several
// owners a sum at least the pooled score.
func TestScoreIsTheOwnersSum(t *testing.T) {
	refA, refB := []float64{30, 41, 29}, []float64{9, 11, 8, 10, 9, 10, 9, 8, 9, 10, 7}
	for _, sizes := range [][]int{{100}, {40, 60}, {13, 30, 57}} {
		t.Run(fmt.Sprint(len(sizes)), func(t *testing.T) {
			s := newSetup(t, NoiseInsiderSafe, sizes...)
			n := sum(sizes)
			q := measurement.ScoreQuery{Kind: measurement.IInDif, A: 0, B: 1, RefA: refA, RefB: refB, N: n}
			noise, err := measurement.Calibrate(measurement.Gaussian, measurement.IInDifSensitivity, measurement.IInDifSensitivity, 1e8)
			if err != nil {
				t.Fatal(err)
			}
			r := measurement.Release{Purpose: "score", Parties: []int{0}, Noise: noise}
			var got float64
			engine := func(ctx context.Context, m *Measurer) error {
				if err := m.SetDomain(ctx, nil); err != nil {
					return err
				}
				got, err = m.Score(ctx, q, r)
				return err
			}
			if err := s.run(t, engine); err != nil {
				t.Fatal(err)
			}
			pooled := s.curatorScore(t, q)
			owners := 0.0
			for k := range sizes {
				owners += s.ownerScore(t, k, q)
			}
			if math.Abs(got-owners) > 0.01 {
				t.Fatalf("released score %v, owners' sum %v", got, owners)
			}
			if len(sizes) == 1 && math.Abs(got-pooled) > 0.01 {
				t.Fatalf("one owner's score %v, the curator's %v", got, pooled)
			}
			if got < pooled-0.01 {
				t.Fatalf("owners' score %v below the pooled score %v", got, pooled)
			}
			if n := len(s.accts[0].Charges()); n != 1 {
				t.Fatalf("owner 1 charged %d times, want once", n)
			}
		})
	}
}

// curatorScore is the single curator's IInDif score of q on the pooled
// records.
func (s *setup) curatorScore(t *testing.T, q measurement.ScoreQuery) float64 {
	t.Helper()
	pooled := &data.Table{Schema: s.params.Schema}
	for _, tab := range s.tables {
		pooled.Rows = append(pooled.Rows, tab.Rows...)
	}
	dom, err := domain.New(s.params.Schema, domain.Options{Bins: s.params.Bins})
	if err != nil {
		t.Fatal(err)
	}
	ds, _, err := dom.Encode(pooled)
	if err != nil {
		t.Fatal(err)
	}
	v, err := measurement.ExactScore(ds, q)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// ownerScore is owner k's summand, computed here from its counts: Σ_ij
// |N_ij − n_k·a_i·b_j| with a, b the references over n.
func (s *setup) ownerScore(t *testing.T, k int, q measurement.ScoreQuery) float64 {
	t.Helper()
	one := &setup{params: s.params, tables: s.tables[k : k+1]}
	counts := one.pooled(t, []int{q.A, q.B})
	nk := float64(s.tables[k].Len())
	v := 0.0
	for i, a := range q.RefA {
		for j, b := range q.RefB {
			v += math.Abs(counts[i*len(q.RefB)+j] - nk*a*b/float64(q.N)/float64(q.N))
		}
	}
	return v
}

// An owner refuses a score whose noise is calibrated for a count vector
// (Δ₂ = √2) instead of the score's sensitivity 2, before charging.
func TestScoreBelowItsCalibrationIsRefused(t *testing.T) {
	s := newSetup(t, NoiseExact, 30, 40)
	engine := func(ctx context.Context, m *Measurer) error {
		if err := m.SetDomain(ctx, nil); err != nil {
			return err
		}
		q := measurement.ScoreQuery{Kind: measurement.IInDif, A: 0, B: 1, RefA: []float64{20, 30, 20}, RefB: make([]float64, 11), N: 70}
		_, err := m.Score(ctx, q, release(t, 0.5))
		return err
	}
	err := s.run(t, engine)
	if err == nil || !strings.Contains(err.Error(), "not the owner's own calibration of a pair score") {
		t.Fatalf("got %v, want a refusal of the score's calibration", err)
	}
	for k, a := range s.accts {
		if n := len(a.Charges()); n != 0 {
			t.Errorf("%s charged %d times before refusing", OwnerID(k), n)
		}
	}
}

// Independent releases go out together: a batch of marginals is answered
// in one round, each release equal to the pooled counts and each charged
// once, in order.
func TestBatchIsOneRound(t *testing.T) {
	s := newSetup(t, NoiseInsiderSafe, 20, 30, 40)
	var got [][]float64
	engine := func(ctx context.Context, m *Measurer) error {
		if err := m.SetDomain(ctx, nil); err != nil {
			return err
		}
		var err error
		got, err = m.Marginals(ctx, [][]int{{0}, {1}, {0, 1}}, []measurement.Release{release(t, 1e8), release(t, 1e8), release(t, 1e8)})
		return err
	}
	c := s.coordinator(t, engine)
	// The round test: when owner 1 handles the second request, the
	// coordinator has received no share yet (one by one, it would hold
	// all three owners' shares of the first).
	crec := &protocol.Recorder{Role: c}
	sharesSeen := -1
	roles := s.roles(c)
	roles[0] = crec
	roles[1] = &probe{Role: roles[1], onRequest: func(n int) {
		if n == 2 {
			sharesSeen = 0
			for _, e := range crec.Received {
				if e.Type == TypeShare {
					sharesSeen++
				}
			}
		}
	}}
	if _, err := protocol.RunLocal(context.Background(), roles...); err != nil {
		t.Fatal(err)
	}
	if sharesSeen != 0 {
		t.Fatalf("the coordinator held %d shares when the second request reached owner 1: the releases were not sent together", sharesSeen)
	}
	for i, attrs := range [][]int{{0}, {1}, {0, 1}} {
		want := s.pooled(t, attrs)
		for j := range want {
			if math.Abs(got[i][j]-want[j]) > 0.01 {
				t.Fatalf("release %d cell %d: %v, pooled %v", i, j, got[i][j], want[j])
			}
		}
	}
	if n := len(s.accts[0].Charges()); n != 3 {
		t.Fatalf("owner 1 charged %d times, want 3", n)
	}
}

// probe calls onRequest with the number of requests handled so far.
type probe struct {
	protocol.Role
	n         int
	onRequest func(int)
}

func (p *probe) Handle(e protocol.Envelope) ([]protocol.Envelope, error) {
	if e.Type == TypeRequest {
		p.n++
		p.onRequest(p.n)
	}
	return p.Role.Handle(e)
}
