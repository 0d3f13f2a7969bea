package roles

import (
	"crypto/ecdh"
	"fmt"
	"math"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/ownerstats"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// OwnerOptions configure an owner.
type OwnerOptions struct {
	Params Params
	// Index is the owner's place k (from 0) in the session's owner order.
	Index int
	// Table is the owner's records in the session's schema.
	Table *data.Table
	// Statistics, instead of Table, are the owner's exact counts over a
	// fine domain of the session's schema (ownerstats.Config.Fine, e.g.
	// written by the Beam pipeline): the owner then answers every request
	// a sum of fine counts can answer exactly, the same numbers its rows
	// would give, and refuses the others (ownerstats.Server) before
	// charging anything.
	Statistics *ownerstats.Statistics
	// Accountant is charged every release before the owner's share
	// leaves.
	Accountant *privacy.Accountant
	// Source draws the key and the noise shares.
	Source *randx.Source
	// Auth signs the owner's key-agreement key and checks the other
	// owners' (KeyAuth).
	Auth KeyAuth
}

// Owner is one owner of rows.
type Owner struct {
	p      Params
	k      int
	data   source
	acct   *privacy.Accountant
	src    *randx.Source
	auth   KeyAuth
	noiser *dp.Noiser
	key    *ecdh.PrivateKey
	seeds  [][32]byte // by owner index; own entry unused
	keyed  bool
	domain bool
	closed bool
	// answered are the request IDs answered so far: each is answered once.
	answered map[uint64]struct{}
}

// NewOwner validates o.
func NewOwner(o OwnerOptions) (*Owner, error) {
	if err := o.Params.Validate(); err != nil {
		return nil, err
	}
	switch {
	case o.Index < 0 || o.Index >= o.Params.Owners:
		return nil, fmt.Errorf("rowsynth: owner index %d of %d owners", o.Index, o.Params.Owners)
	case (o.Table == nil) == (o.Statistics == nil):
		return nil, fmt.Errorf("rowsynth: owner %d needs its rows or its statistics, exactly one", o.Index+1)
	case o.Table != nil && !o.Table.Schema.Equal(o.Params.Schema):
		return nil, fmt.Errorf("rowsynth: owner %d's schema differs from the session's", o.Index+1)
	case o.Accountant == nil || o.Source == nil || o.Auth == nil:
		return nil, fmt.Errorf("rowsynth: owner %d needs an accountant, a source and a key authenticator", o.Index+1)
	}
	var src source = &tableSource{t: o.Table}
	if o.Statistics != nil {
		sv, err := ownerstats.NewServer(o.Statistics, o.Params.Schema)
		if err != nil {
			return nil, fmt.Errorf("rowsynth: owner %d: %w", o.Index+1, err)
		}
		src = sv
	}
	if src.Records() == 0 && o.Params.publicRecords() {
		// Under add/remove an owner with no records takes part like any
		// other: refusing would tell its neighbour with one record apart.
		return nil, fmt.Errorf("rowsynth: owner %d holds no records", o.Index+1)
	}
	return &Owner{p: o.Params, k: o.Index, data: src, acct: o.Accountant, src: o.Source, auth: o.Auth, noiser: dp.NewNoiser(o.Source),
		answered: map[uint64]struct{}{}}, nil
}

// source is where an owner's counts come from: its rows (tableSource) or
// its fine statistics (ownerstats.Server), which give the same numbers
// for every request they accept.
type source interface {
	// Records is the number of records.
	Records() int
	// Histogram counts numeric column col on the public grid of cells
	// cells (domain.PublicGrid, clamped and rounded as GridCounts).
	Histogram(col, cells int) ([]float64, error)
	// SetDomain takes the session's discretisation.
	SetDomain(o domain.Options) error
	// Marginal counts the records over attrs in that discretisation.
	Marginal(attrs []int) (*domain.Marginal, error)
}

// tableSource counts the owner's rows.
type tableSource struct {
	t  *data.Table
	ds *domain.Dataset
}

func (s *tableSource) Records() int { return s.t.Len() }

func (s *tableSource) Histogram(col, cells int) ([]float64, error) {
	a := s.t.Schema.Attributes[col]
	vals, err := s.t.Column(a.Name)
	if err != nil {
		return nil, err
	}
	return domain.GridCounts(a, domain.PublicGrid(a, cells), vals), nil
}

func (s *tableSource) SetDomain(o domain.Options) error {
	dom, err := domain.New(s.t.Schema, o)
	if err != nil {
		return err
	}
	s.ds, _, err = dom.Encode(s.t)
	return err
}

func (s *tableSource) Marginal(attrs []int) (*domain.Marginal, error) {
	return domain.Count(s.ds, attrs)
}

func (o *Owner) ID() string { return OwnerID(o.k) }

// Records is the number of records the owner holds (or its statistics
// count).
func (o *Owner) Records() int { return o.data.Records() }
func (o *Owner) Done() bool   { return o.closed }

// Start sends the coordinator the owner's public key and record count
// (under add/remove, where the count is private, 0 instead).
func (o *Owner) Start() ([]protocol.Envelope, error) {
	key, err := OwnerKey(o.src)
	if err != nil {
		return nil, err
	}
	o.key = key
	pub := key.PublicKey().Bytes()
	sig, err := o.auth.Sign(KeyStatement(o.p.Session, o.k, pub))
	if err != nil {
		return nil, fmt.Errorf("rowsynth: %s: signing its key: %w", o.ID(), err)
	}
	records := 0
	if o.p.publicRecords() {
		records = o.data.Records()
	}
	e, err := protocol.Seal("", o.ID(), CoordinatorID, &Hello{Key: pub, Records: records, Sig: sig})
	return []protocol.Envelope{e}, err
}

// Handle takes the keys, the domain, each request and the close, all from
// the coordinator.
func (o *Owner) Handle(e protocol.Envelope) ([]protocol.Envelope, error) {
	if e.From != CoordinatorID {
		return nil, fmt.Errorf("rowsynth: %s: %s from %q, not the coordinator", o.ID(), e.Type, e.From)
	}
	if o.closed {
		return nil, fmt.Errorf("rowsynth: %s: %s after the run was closed", o.ID(), e.Type)
	}
	switch e.Type {
	case TypeKeys:
		var m Keys
		if err := m.UnmarshalBinary(e.Payload); err != nil {
			return nil, err
		}
		return nil, o.takeKeys(m)
	case TypeDomain:
		var m Domain
		if err := m.UnmarshalBinary(e.Payload); err != nil {
			return nil, err
		}
		return nil, o.takeDomain(m)
	case TypeRequest:
		var q Request
		if err := q.UnmarshalBinary(e.Payload); err != nil {
			return nil, err
		}
		return o.answer(&q)
	case TypeClose:
		o.closed = true
		return nil, nil
	}
	return nil, fmt.Errorf("rowsynth: %s: unexpected %s", o.ID(), e.Type)
}

// takeKeys checks every other owner's signature of its key, then derives
// the pairwise seeds; the owner's own key must be listed at its place. The
// coordinator relays the keys; the signatures keep it from choosing them.
func (o *Owner) takeKeys(m Keys) error {
	if o.keyed {
		return fmt.Errorf("rowsynth: %s: keys sent twice", o.ID())
	}
	if len(m.Keys) != o.p.Owners {
		return fmt.Errorf("rowsynth: %s: %d keys for %d owners", o.ID(), len(m.Keys), o.p.Owners)
	}
	if string(m.Keys[o.k]) != string(o.key.PublicKey().Bytes()) {
		return fmt.Errorf("rowsynth: %s: the keys list another key at its own place", o.ID())
	}
	o.seeds = make([][32]byte, o.p.Owners)
	for j, kb := range m.Keys {
		if j == o.k {
			continue
		}
		if err := o.auth.Verify(j, KeyStatement(o.p.Session, j, kb), m.Sigs[j]); err != nil {
			return fmt.Errorf("rowsynth: %s: the key of owner %d is not signed by that owner: %w", o.ID(), j+1, err)
		}
		pub, err := ecdh.X25519().NewPublicKey(kb)
		if err != nil {
			return fmt.Errorf("rowsynth: %s: key of owner %d: %w", o.ID(), j+1, err)
		}
		secret, err := o.key.ECDH(pub)
		if err != nil {
			return fmt.Errorf("rowsynth: %s: key of owner %d: %w", o.ID(), j+1, err)
		}
		o.seeds[j] = PairSeed(o.p.Session, min(o.k, j), max(o.k, j), secret)
	}
	o.keyed = true
	return nil
}

func (o *Owner) takeDomain(m Domain) error {
	if o.domain {
		return fmt.Errorf("rowsynth: %s: domain sent twice", o.ID())
	}
	if err := o.data.SetDomain(domain.Options{Bins: o.p.Bins, BinsFor: o.p.BinsFor, Cuts: m.Cuts}); err != nil {
		return fmt.Errorf("rowsynth: %s: %w", o.ID(), err)
	}
	o.domain = true
	return nil
}

// answer checks q against the owner's own calibration, charges the
// release at the noise the owner itself computed, then sends the owner's
// counts in grid steps plus its noise share plus its masks. Every check
// comes before the charge: a refused request costs nothing.
func (o *Owner) answer(q *Request) ([]protocol.Envelope, error) {
	if !o.keyed {
		return nil, fmt.Errorf("rowsynth: %s: request %d before the keys", o.ID(), q.ID)
	}
	if q.Session != o.p.Session {
		return nil, fmt.Errorf("rowsynth: %s: request %d is for session %q, not %q", o.ID(), q.ID, q.Session, o.p.Session)
	}
	if _, seen := o.answered[q.ID]; seen {
		return nil, fmt.Errorf("rowsynth: %s: request ID %d was used before (a repeated ID is refused: it could reuse a mask)", o.ID(), q.ID)
	}
	noise, err := q.OwnNoiseUnder(o.p.Neighbours)
	if err != nil {
		return nil, fmt.Errorf("rowsynth: %s: request %d: %w", o.ID(), q.ID, err)
	}
	counts, plan, err := o.values(q)
	if err != nil {
		return nil, err
	}
	digest, err := q.Digest()
	if err != nil {
		return nil, err
	}
	o.answered[q.ID] = struct{}{}
	if err := o.acct.Spend(privacy.Charge{Purpose: q.Release.Purpose, Spec: noise.Spec(), Calibration: "sound"}); err != nil {
		return nil, fmt.Errorf("rowsynth: %s: %w", o.ID(), err)
	}
	shares := make([]int64, len(counts))
	o.noiser.Shares(plan, o.p.parts(), shares)
	words := make([]uint64, len(counts))
	for i, c := range counts {
		words[i] = uint64(int64(plan.Snap(c)) + shares[i])
	}
	for j, seed := range o.seeds {
		if j != o.k {
			AddMask(words, seed, digest, j < o.k)
		}
	}
	e, err := protocol.Seal("", o.ID(), CoordinatorID, &Share{ID: q.ID, Words: words})
	return []protocol.Envelope{e}, err
}

// values are the owner's exact values for q (its counts, or its scores)
// and the grid they are released on.
func (o *Owner) values(q *Request) ([]float64, dp.GridNoise, error) {
	if q.Kind == KindSelect {
		return o.selectValues(q)
	}
	v, err := o.counts(q)
	if err != nil {
		return nil, dp.GridNoise{}, err
	}
	out, plan, err := q.Values(v, o.data.Records())
	if err != nil {
		return nil, dp.GridNoise{}, fmt.Errorf("rowsynth: %s: request %d: %w", o.ID(), q.ID, err)
	}
	return out, plan, nil
}

// selectValues are the owner's scores of a select request's candidates
// (Request.SelectValues) and their grid.
func (o *Owner) selectValues(q *Request) ([]float64, dp.GridNoise, error) {
	if !o.domain {
		return nil, dp.GridNoise{}, fmt.Errorf("rowsynth: %s: select request before the domain", o.ID())
	}
	counts := make([][]float64, len(q.Sets))
	for i, set := range q.Sets {
		m, err := o.data.Marginal(set)
		if err != nil {
			return nil, dp.GridNoise{}, fmt.Errorf("rowsynth: %s: request %d: %w", o.ID(), q.ID, err)
		}
		counts[i] = m.Counts
	}
	out, plan, err := q.SelectValues(counts, o.data.Records())
	if err != nil {
		return nil, dp.GridNoise{}, fmt.Errorf("rowsynth: %s: request %d: %w", o.ID(), q.ID, err)
	}
	return out, plan, nil
}

// counts are the owner's exact counts for q (for a score, over the pair).
func (o *Owner) counts(q *Request) ([]float64, error) {
	switch q.Kind {
	case KindHistogram:
		attrs := o.p.Schema.Attributes
		if q.Column < 0 || q.Column >= len(attrs) || attrs[q.Column].Kind != data.Numeric {
			return nil, fmt.Errorf("rowsynth: %s: histogram of column %d, not a numeric attribute", o.ID(), q.Column)
		}
		if q.Cells < 2 || q.Cells > 1<<16 {
			return nil, fmt.Errorf("rowsynth: %s: histogram of %d cells", o.ID(), q.Cells)
		}
		h, err := o.data.Histogram(q.Column, q.Cells)
		if err != nil {
			return nil, fmt.Errorf("rowsynth: %s: request %d: %w", o.ID(), q.ID, err)
		}
		return h, nil
	case KindCount:
		// Only under add/remove: OwnNoiseUnder refuses it otherwise.
		return []float64{float64(o.data.Records())}, nil
	case KindMarginal, KindScore:
		if !o.domain {
			return nil, fmt.Errorf("rowsynth: %s: marginal before the domain", o.ID())
		}
		m, err := o.data.Marginal(q.Attrs)
		if err != nil {
			return nil, fmt.Errorf("rowsynth: %s: %w", o.ID(), err)
		}
		return m.Counts, nil
	}
	return nil, fmt.Errorf("rowsynth: %s: request of kind %q", o.ID(), q.Kind)
}

// OwnNoise is the noise an owner releases q at: its own calibration, at
// the mechanism and ρ the coordinator asked for, of the sensitivity the
// owner computes itself from q's kind and content (Request.Sensitivity:
// a count vector 2 / √2 under replace-one whatever the cells, a pair
// score 2, a select request's candidates' scores from the number of sets
// it was actually sent), whatever the coordinator declared. The declared
// noise must be exactly that: the grid and the noise units are derived
// from the sensitivity and the scale, so a coordinator that declared a
// larger sensitivity with the same scale would get a coarser grid, noise
// of a small fraction of a grid step and nearly exact counts at the
// honest ρ (docs/coordinator-threats.md).
// It is OwnNoiseUnder replace-one: a request that names add/remove is
// refused.
func (q *Request) OwnNoise() (measurement.Noise, error) {
	return q.OwnNoiseUnder(dp.NeighboursReplaceOne)
}

// SelectSensitivity is the sensitivity under replace-one of the vector
// of c candidates' scores (Request.SelectValues) summed over the owners:
// replacing one record changes one owner's counts of every candidate's
// marginal in two cells by one each, so each score by at most 2 and no
// other owner's score at all; Δ₁ = 2c, Δ₂ = 2√c. This is why a round's
// selection costs more noise across owners than one curator's
// exponential mechanism: the coordinator learns every candidate's noisy
// score, not only the winner.
func SelectSensitivity(c int) (l1, l2 float64) {
	return 2 * float64(c), 2 * math.Sqrt(float64(c))
}

// ownCalibration checks the declared noise against the owner's own
// calibration of what, at the declared mechanism and ρ.
func ownCalibration(what string, l1, l2 float64, declared measurement.Noise) (measurement.Noise, error) {
	want, err := measurement.Calibrate(declared.Mechanism, l1, l2, declared.Rho)
	if err != nil {
		return measurement.Noise{}, err
	}
	if declared != want {
		return measurement.Noise{}, fmt.Errorf("declared noise %+v is not the owner's own calibration of %s at ρ = %v (%+v)", declared, what, declared.Rho, want)
	}
	return want, nil
}

// Values are what an owner of records releases for q from its exact
// counts over q — the counts themselves, or for a pair score its one
// summand OwnerScore against ScoreReference (under add/remove, against
// AddRemoveReference: q's relation, which the owner has checked to be its
// session's before) — and the grid plan of the release. The owner and
// the audits that recompute an owner's words call it alike.
func (q *Request) Values(counts []float64, records int) ([]float64, dp.GridNoise, error) {
	if q.Kind != KindScore {
		plan, err := q.Release.Noise.Plan(len(counts))
		return counts, plan, err
	}
	plan, err := q.Release.Noise.Plan(1)
	if err != nil {
		return nil, dp.GridNoise{}, err
	}
	if !q.Neighbours.PublicCount() {
		if len(q.Refs) != 2 {
			return nil, dp.GridNoise{}, fmt.Errorf("score request with %d reference vectors, want 2", len(q.Refs))
		}
		s, err := addRemoveScores([][]float64{counts}, [][]float64{pairFrequencies(q.Refs[0], q.Refs[1])}, records)
		return s, plan, err
	}
	ref, err := q.ScoreReference(records, plan.Grid)
	if err != nil {
		return nil, dp.GridNoise{}, err
	}
	if len(ref) != len(counts) {
		return nil, dp.GridNoise{}, fmt.Errorf("score over %d counts with a reference of %d", len(counts), len(ref))
	}
	if err := exactScore(counts, ref, plan.Grid); err != nil {
		return nil, dp.GridNoise{}, err
	}
	return []float64{OwnerScore(counts, ref)}, plan, nil
}

// exactScore refuses a score whose sum could be rounded: OwnerScore's
// sensitivity 2 holds for the real-valued sum, and floating point keeps it
// only while every term and partial sum is exact. The counts are integers
// and the references multiples of the grid g (a power of two), so every
// term and partial sum is a multiple of min(g, 1) and exact while
// Σ|N| + Σ|r| < 2^52·min(g, 1). A reference beyond that — which an honest
// coordinator never sends (the references are frequencies about 1) —
// could make one record's change round to a much larger step.
func exactScore(counts, ref []float64, grid float64) error {
	total := 0.0
	for i, c := range counts {
		total += math.Abs(c) + math.Abs(ref[i])
	}
	if limit := math.Ldexp(math.Min(grid, 1), 52); !(total < limit) {
		return fmt.Errorf("score reference of total magnitude %.3g is beyond exact arithmetic (%.3g)", total, limit)
	}
	return nil
}

// ScoreReference is an owner's reference for a pair score request:
// r_ij = records·Refs[0][i]·Refs[1][j] rounded to the release grid
// (mixed radix, the second attribute fastest). With Refs the pooled noisy
// one-ways over the public record count n, the owners' references add up
// to the single-curator reference N*_i·N*_j/n.
func (q *Request) ScoreReference(records int, grid float64) ([]float64, error) {
	if len(q.Refs) != 2 {
		return nil, fmt.Errorf("score request with %d reference vectors, want 2", len(q.Refs))
	}
	n := float64(records)
	out := make([]float64, 0, len(q.Refs[0])*len(q.Refs[1]))
	for _, a := range q.Refs[0] {
		for _, b := range q.Refs[1] {
			r := math.Round(n * a * b / grid)
			if math.IsNaN(r) || math.IsInf(r, 0) {
				return nil, fmt.Errorf("score reference %v·%v·%v is not finite", n, a, b)
			}
			out = append(out, r*grid)
		}
	}
	return out, nil
}

// OwnerScore is an owner's summand of a pair score: Σ_ij |N_ij − r_ij|
// over its counts N of the pair against its ScoreReference r. One owner
// holding every record computes the curator's IInDif score, and K owners
// a sum that is at least it (the triangle inequality; the excess is the
// owners' own sampling deviations, see Measurer.Scores). Replacing one of
// the owner's records moves two of its counts by one and changes no other
// owner's summand: sensitivity measurement.IInDifSensitivity = 2 for the
// sum, whoever holds the record.
func OwnerScore(counts, ref []float64) float64 {
	s := 0.0
	for i, c := range counts {
		s += math.Abs(c - ref[i])
	}
	return s
}

// SelectValues are what an owner releases for a select request from its
// exact counts over each candidate set (counts[i] over q.Sets[i]): its
// score OwnerScore(counts[i], r_i) of each candidate against its share
// r_i = records·Refs[i] of the model's estimate, on the release's grid
// (SelectReference), and the grid plan. Each reference must have the
// length of the owner's own marginal and keep the sum exact (as a pair
// score's). The owner and the audits that recompute its words call it
// alike.
func (q *Request) SelectValues(counts [][]float64, records int) ([]float64, dp.GridNoise, error) {
	if q.Kind != KindSelect || len(counts) != len(q.Sets) || len(q.Refs) != len(q.Sets) {
		return nil, dp.GridNoise{}, fmt.Errorf("select values of %d count vectors for a %s request of %d sets and %d references", len(counts), q.Kind, len(q.Sets), len(q.Refs))
	}
	plan, err := q.Release.Noise.Plan(len(q.Sets))
	if err != nil {
		return nil, dp.GridNoise{}, err
	}
	if !q.Neighbours.PublicCount() {
		out, err := addRemoveScores(counts, q.Refs, records)
		return out, plan, err
	}
	out := make([]float64, len(q.Sets))
	for i, c := range counts {
		if len(q.Refs[i]) != len(c) {
			return nil, dp.GridNoise{}, fmt.Errorf("candidate %v has %d cells, its reference %d", q.Sets[i], len(c), len(q.Refs[i]))
		}
		ref, err := SelectReference(q.Refs[i], records, plan.Grid)
		if err != nil {
			return nil, dp.GridNoise{}, fmt.Errorf("candidate %v: %w", q.Sets[i], err)
		}
		if err := exactScore(c, ref, plan.Grid); err != nil {
			return nil, dp.GridNoise{}, fmt.Errorf("candidate %v: %w", q.Sets[i], err)
		}
		out[i] = OwnerScore(c, ref)
	}
	return out, plan, nil
}

// SelectReference is an owner's share of the model's estimate of a
// candidate's marginal: records·f_x for each frequency f_x, rounded to
// the release grid. With f the model's estimate p̂ over the public n, the
// owner's score ‖M(D_k) − (n_k/n)·M(p̂)‖₁ summed over the owners is at
// least the pooled ‖M(D) − M(p̂)‖₁ (the triangle inequality) and equal
// to it with one owner.
func SelectReference(freq []float64, records int, grid float64) ([]float64, error) {
	n := float64(records)
	out := make([]float64, len(freq))
	for i, f := range freq {
		r := math.Round(n * f / grid)
		if math.IsNaN(r) || math.IsInf(r, 0) || f < 0 {
			return nil, fmt.Errorf("reference %v·%v is not finite and non-negative", n, f)
		}
		out[i] = r * grid
	}
	return out, nil
}
