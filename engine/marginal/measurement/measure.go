package measurement

import (
	"context"
	"fmt"
	"math"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// Release says how one measurement is paid for: its noise, and the parties
// whose accountants are each charged Noise's guarantee. A release over
// attributes of several parties must satisfy the strictest of their
// budgets; the plan (allocate) sees to that, the measurer only charges.
type Release struct {
	Purpose string
	Parties []int
	Noise   Noise
}

// Charge is the accountant entry of the release.
func (r Release) Charge() privacy.Charge {
	return privacy.Charge{Purpose: r.Purpose, Spec: r.Noise.Spec(), Calibration: "sound"}
}

// Validate checks the release against K parties.
func (r Release) Validate(parties int) error {
	if len(r.Parties) == 0 {
		return fmt.Errorf("measurement: release %q charges no party", r.Purpose)
	}
	for _, p := range r.Parties {
		if p < 0 || p >= parties {
			return fmt.Errorf("measurement: release %q charges party %d, have %d parties", r.Purpose, p, parties)
		}
	}
	return r.Noise.Validate()
}

// ScoreKind chooses the pair dependency score.
type ScoreKind string

const (
	// IInDif is the paper's score (Algorithm 1): Σ_ij |N*_{a=i} N*_{b=j}/n
	// − N_{a=i,b=j}| against the published noisy one-way counts N*, with
	// sensitivity IInDifSensitivity = 2. The default.
	IInDif ScoreKind = "iindif"
	// InDif is PrivSyn's score Σ_ij |N_ij − N_i M_j/n| against the true
	// one-way counts, sensitivity InDifSensitivity = 6 under replace-one.
	InDif ScoreKind = "indif"
)

// ScoreQuery asks for the dependency score of the pair (A, B), A < B.
type ScoreQuery struct {
	Kind ScoreKind
	A, B int
	// RefA and RefB are the public (post-processed noisy) one-way counts of
	// A and B, and N the public record count; IInDif compares the pair's
	// counts with RefA_i·RefB_j/N. InDif ignores them.
	RefA, RefB []float64
	N          int
}

// Measurer releases noisy statistics of the (possibly distributed) records.
// Every method charges each party in r.Parties before any noisy value
// leaves it and fails, releasing nothing, if a party's accountant refuses.
// The single-owner path is LocalMeasurer; the multi-party protocol
// implements the same methods with secure scalar products and distributed
// noise.
type Measurer interface {
	// Marginal returns the counts over attrs (sorted, mixed radix with the
	// last attribute fastest, see Marginal) plus independent noise per cell.
	Marginal(ctx context.Context, attrs []int, r Release) ([]float64, error)
	// Score returns the pair's dependency score plus one noise draw.
	Score(ctx context.Context, q ScoreQuery, r Release) (float64, error)
}

// Batcher is a Measurer that answers several independent releases in one
// go: a multi-party protocol then spends one round trip per stage instead
// of one per release (method/rowsynth/roles: about 140 rounds on Adult become
// 6). The engine uses it, when the measurer has it, for the stages whose
// releases do not depend on each other — the one-way marginals, the pair
// scores, the selected marginals — and asks in the order it would ask one
// by one, so the charges and the noise draws come in the same order.
type Batcher interface {
	Measurer
	Marginals(ctx context.Context, sets [][]int, rs []Release) ([][]float64, error)
	Scores(ctx context.Context, qs []ScoreQuery, rs []Release) ([]float64, error)
}

// LocalOptions configure a LocalMeasurer.
type LocalOptions struct {
	// Data is the discretised table of the single owner; Chunks, instead,
	// holds it in pieces (a one-pass reader's batches).
	Data   *domain.Dataset
	Chunks domain.Chunks
	// Accountants has one accountant per party (attribute group), indexed
	// like the plan's parties.
	Accountants []*privacy.Accountant
	// Source draws the noise (default randx.NewSecure()).
	Source *randx.Source
	// Neighbours is the relation the measurer holds selections to: a
	// choice stating a utility sensitivity below the query's under it is
	// refused (default replace-one).
	Neighbours dp.Neighbours
}

// LocalMeasurer measures one owner's table in memory.
type LocalMeasurer struct {
	data       domain.Chunks
	accts      []*privacy.Accountant
	neighbours dp.Neighbours
	noiser     *dp.Noiser
	cache      map[string][]float64 // true counts for Select, by attribute set
}

var _ Batcher = (*LocalMeasurer)(nil)

// NewLocalMeasurer validates o.
func NewLocalMeasurer(o LocalOptions) (*LocalMeasurer, error) {
	data := o.Chunks
	if o.Data != nil {
		if len(o.Chunks) > 0 {
			return nil, fmt.Errorf("measurement: local measurer needs a dataset or chunks, not both")
		}
		data = domain.Chunks{domain.CellsOf(o.Data)}
	}
	if data.Len() == 0 {
		return nil, fmt.Errorf("measurement: local measurer needs a non-empty dataset")
	}
	if err := data.Check(); err != nil {
		return nil, err
	}
	if len(o.Accountants) == 0 {
		return nil, fmt.Errorf("measurement: local measurer needs at least one accountant")
	}
	for k, a := range o.Accountants {
		if a == nil {
			return nil, fmt.Errorf("measurement: accountant %d is nil", k)
		}
		if a.Budget().Notion != dp.ZCDP {
			return nil, fmt.Errorf("measurement: party %q has a %v budget, want zCDP", a.Party(), a.Budget().Notion)
		}
	}
	if o.Source == nil {
		o.Source = randx.NewSecure()
	}
	if err := o.Neighbours.Check(); err != nil {
		return nil, fmt.Errorf("measurement: %w", err)
	}
	return &LocalMeasurer{data: data, accts: o.Accountants, neighbours: o.Neighbours, noiser: dp.NewNoiser(o.Source)}, nil
}

// charge checks that every party can afford r, then charges them all, so
// that a refusal leaves no party charged.
func (l *LocalMeasurer) charge(r Release) error {
	if err := r.Validate(len(l.accts)); err != nil {
		return err
	}
	return l.chargeSpec(r.Purpose, r.Parties, r.Charge())
}

// chargeSpec charges c to every one of parties, or to none if any of them
// cannot afford it.
func (l *LocalMeasurer) chargeSpec(purpose string, parties []int, c privacy.Charge) error {
	if len(parties) == 0 {
		return fmt.Errorf("measurement: release %q charges no party", purpose)
	}
	for _, p := range parties {
		if p < 0 || p >= len(l.accts) {
			return fmt.Errorf("measurement: release %q charges party %d, have %d parties", purpose, p, len(l.accts))
		}
		total, err := dp.Compose(l.accts[p].Spent(), c.Spec.Guarantee)
		if err != nil || !dp.Within(total, l.accts[p].Budget()) {
			return fmt.Errorf("measurement: party %q cannot afford %v for %q (remaining %v)",
				l.accts[p].Party(), c.Spec.Guarantee, purpose, l.accts[p].Remaining())
		}
	}
	for _, p := range parties {
		if err := l.accts[p].Spend(c); err != nil {
			return fmt.Errorf("measurement: %w", err)
		}
	}
	return nil
}

// Marginal counts locally, charges, and adds noise.
func (l *LocalMeasurer) Marginal(ctx context.Context, attrs []int, r Release) ([]float64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m, err := l.data.Count(attrs)
	if err != nil {
		return nil, err
	}
	if err := l.charge(r); err != nil {
		return nil, err
	}
	r.Noise.Release(l.noiser, m.Counts)
	return m.Counts, nil
}

// Marginals answers several releases as Marginal would one by one, in
// order (the same charges, the same draws), counting every set in one
// pass over the records first.
func (l *LocalMeasurer) Marginals(ctx context.Context, sets [][]int, rs []Release) ([][]float64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(sets) != len(rs) {
		return nil, fmt.Errorf("measurement: %d sets for %d releases", len(sets), len(rs))
	}
	ms, err := l.data.CountAll(sets)
	if err != nil {
		return nil, err
	}
	out := make([][]float64, len(ms))
	for i, m := range ms {
		if err := l.charge(rs[i]); err != nil {
			return nil, err
		}
		rs[i].Noise.Release(l.noiser, m.Counts)
		out[i] = m.Counts
	}
	return out, nil
}

// Scores answers several score releases as Score would one by one, in
// order, counting every pair in one pass over the records first.
func (l *LocalMeasurer) Scores(ctx context.Context, qs []ScoreQuery, rs []Release) ([]float64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(qs) != len(rs) {
		return nil, fmt.Errorf("measurement: %d score queries for %d releases", len(qs), len(rs))
	}
	pairs := make([][]int, len(qs))
	for i, q := range qs {
		if q.A >= q.B {
			return nil, fmt.Errorf("measurement: score pair (%d, %d) must have A < B", q.A, q.B)
		}
		pairs[i] = []int{q.A, q.B}
	}
	ms, err := l.data.CountAll(pairs)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(qs))
	for i, q := range qs {
		s, err := exactScore(func([]int) (*domain.Marginal, error) { return ms[i], nil }, l.data.Len(), q)
		if err != nil {
			return nil, err
		}
		if err := l.charge(rs[i]); err != nil {
			return nil, err
		}
		v := []float64{s}
		rs[i].Noise.Release(l.noiser, v)
		out[i] = v[0]
	}
	return out, nil
}

// Score computes the exact score locally, charges, and adds noise.
func (l *LocalMeasurer) Score(ctx context.Context, q ScoreQuery, r Release) (float64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s, err := exactScore(l.data.Count, l.data.Len(), q)
	if err != nil {
		return 0, err
	}
	if err := l.charge(r); err != nil {
		return 0, err
	}
	v := []float64{s}
	r.Noise.Release(l.noiser, v)
	return v[0], nil
}

// ExactScore is the noiseless score of q on ds.
func ExactScore(ds *domain.Dataset, q ScoreQuery) (float64, error) {
	return exactScore(func(attrs []int) (*domain.Marginal, error) { return domain.Count(ds, attrs) }, ds.Len(), q)
}

// exactScore is the noiseless score of q on n records counted by count.
func exactScore(count func([]int) (*domain.Marginal, error), n int, q ScoreQuery) (float64, error) {
	if q.A >= q.B {
		return 0, fmt.Errorf("measurement: score pair (%d, %d) must have A < B", q.A, q.B)
	}
	ab, err := count([]int{q.A, q.B})
	if err != nil {
		return 0, err
	}
	var ra, rb []float64
	var nf float64
	switch q.Kind {
	case IInDif:
		if len(q.RefA) != ab.Sizes[0] || len(q.RefB) != ab.Sizes[1] {
			return 0, fmt.Errorf("measurement: IInDif of (%d, %d) needs references of lengths %d and %d, got %d and %d",
				q.A, q.B, ab.Sizes[0], ab.Sizes[1], len(q.RefA), len(q.RefB))
		}
		if q.N <= 0 {
			return 0, fmt.Errorf("measurement: IInDif needs the public record count, got %d", q.N)
		}
		ra, rb, nf = q.RefA, q.RefB, float64(q.N)
	case InDif:
		pa, _ := ab.Project([]int{q.A})
		pb, _ := ab.Project([]int{q.B})
		ra, rb, nf = pa.Counts, pb.Counts, float64(n)
	default:
		return 0, fmt.Errorf("measurement: unknown score kind %q (want iindif or indif)", q.Kind)
	}
	return dependency(ab.Counts, ra, rb, nf), nil
}

// dependency is Σ_ij |ra_i·rb_j/n − N_ij|.
func dependency(joint, ra, rb []float64, n float64) float64 {
	s := 0.0
	for i, a := range ra {
		row := joint[i*len(rb) : (i+1)*len(rb)]
		for j, b := range rb {
			s += math.Abs(a*b/n - row[j])
		}
	}
	return s
}
