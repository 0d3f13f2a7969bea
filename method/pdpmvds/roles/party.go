package roles

import (
	"fmt"
	"math/big"
	"slices"

	"github.com/dppub/dppub/crypto/paillier"
	"github.com/dppub/dppub/crypto/sspp"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// PartyOptions configure one data owner P_k.
type PartyOptions struct {
	// Session is the public description of the run (validated here).
	Session Session
	// Index is the party's 0-based number.
	Index int
	// Columns holds the party's discretised attributes: for every
	// attribute it owns (global index), one cell per record, records in
	// the order all parties agreed on.
	Columns map[int][]uint16
	// Accountant is charged before any value derived from the party's
	// data leaves it. Its budget must be zCDP.
	Accountant *privacy.Accountant
	// Keys is the party's key file from the key ceremony (Paillier suite).
	Keys *KeyFile
	// OwnKey is the party's own Paillier key for the scalar products
	// (Paillier suite); nil makes a fresh one at setup. Only its owner may
	// know it.
	OwnKey *paillier.PrivateKey
	// Source draws noise, masks and keys (default randx.NewSecure()).
	Source *randx.Source
	// Workers bounds parallelism inside a step (0: GOMAXPROCS).
	Workers int
}

// Party is a data owner's role: it answers requests for noisy statistics
// of the records, alone when they involve only its attributes, and with
// the other parties and S otherwise. It never sends its data, only
// masked values, ciphertexts and shares.
type Party struct {
	base
	o        PartyOptions
	index    int
	n        int
	attrs    []int
	localDS  *domain.Dataset
	localIdx map[int]int
	noiser   *dp.Noiser
	src      *randx.Source
	// onShare sees every noise share the party draws (ObserveOwnShares).
	onShare func(OwnShare)

	// Commodity suite.
	maskSeeds map[[2]int]sspp.Seed // (own attribute, recipient) → mask seed
	masked    map[[2]int][]uint64  // (owner, attribute) → its masked one-hot
	pairSeeds map[int]sspp.Seed
	maskCache sspp.MaskCache

	// Paillier suite.
	own     *paillier.PrivateKey
	shared  *paillier.PublicKey // precomputed copy of the shared key
	peers   map[int]*paillier.PublicKey
	vectors map[int][][]*paillier.Ciphertext // party → block → record
	digits  map[string][][]*big.Int          // Alice's cached shares N − m
	masks   map[string][][]*big.Int          // Bob's cached masks m
	setupOK bool
	// setupAsked is set by the first setup request.
	setupAsked bool
}

var _ protocol.Role = (*Party)(nil)

// NewParty validates o.
func NewParty(o PartyOptions) (*Party, error) {
	if err := o.Session.Validate(); err != nil {
		return nil, err
	}
	s := o.Session
	if o.Index < 0 || o.Index >= s.Parties {
		return nil, fmt.Errorf("pdpmvds: party index %d of %d", o.Index, s.Parties)
	}
	if o.Accountant == nil {
		return nil, fmt.Errorf("pdpmvds: party %d needs an accountant", o.Index+1)
	}
	if o.Accountant.Budget().Notion != dp.ZCDP {
		return nil, fmt.Errorf("pdpmvds: party %d has a %v budget, want zCDP", o.Index+1, o.Accountant.Budget().Notion)
	}
	attrs := s.attrsOf(o.Index)
	if len(o.Columns) != len(attrs) {
		return nil, fmt.Errorf("pdpmvds: party %d holds attributes %v but was given %d columns", o.Index+1, attrs, len(o.Columns))
	}
	ds := &domain.Dataset{}
	idx := map[int]int{}
	for i, a := range attrs {
		col, ok := o.Columns[a]
		if !ok {
			return nil, fmt.Errorf("pdpmvds: party %d has no column for its attribute %d", o.Index+1, a)
		}
		if len(col) != s.Records {
			return nil, fmt.Errorf("pdpmvds: party %d: attribute %d has %d records, the session %d", o.Index+1, a, len(col), s.Records)
		}
		for r, v := range col {
			if int(v) >= s.Sizes[a] {
				return nil, fmt.Errorf("pdpmvds: party %d: record %d of attribute %d is cell %d of %d", o.Index+1, r, a, v, s.Sizes[a])
			}
		}
		ds.Sizes = append(ds.Sizes, s.Sizes[a])
		ds.Cols = append(ds.Cols, col)
		idx[a] = i
	}
	if s.Suite == SuitePaillier {
		if o.Keys == nil {
			return nil, fmt.Errorf("pdpmvds: party %d needs its key file for the Paillier suite", o.Index+1)
		}
		if err := o.Keys.Validate(); err != nil {
			return nil, err
		}
		if o.Keys.Party != o.Index || o.Keys.Parties != s.Parties {
			return nil, fmt.Errorf("pdpmvds: party %d was given the key file of party %d of %d", o.Index+1, o.Keys.Party+1, o.Keys.Parties)
		}
		if o.OwnKey != nil && o.OwnKey.Bits() != s.KeyBits {
			return nil, fmt.Errorf("pdpmvds: party %d's own key has %d bits, the session %d", o.Index+1, o.OwnKey.Bits(), s.KeyBits)
		}
	}
	if o.Source == nil {
		o.Source = randx.NewSecure()
	}
	p := &Party{
		base: base{id: PartyID(o.Index), session: s, jobs: map[uint64]*job{}},
		o:    o, index: o.Index, n: s.Records, attrs: attrs, localDS: ds, localIdx: idx,
		noiser: dp.NewNoiser(o.Source.Child()), src: o.Source,
		maskSeeds: map[[2]int]sspp.Seed{}, masked: map[[2]int][]uint64{}, pairSeeds: map[int]sspp.Seed{}, maskCache: sspp.MaskCache{},
		peers: map[int]*paillier.PublicKey{}, vectors: map[int][][]*paillier.Ciphertext{},
		digits: map[string][][]*big.Int{}, masks: map[string][][]*big.Int{},
	}
	if o.OwnKey != nil {
		sk, err := paillier.NewPrivateKey(o.OwnKey.P, o.OwnKey.Q)
		if err != nil {
			return nil, fmt.Errorf("pdpmvds: party %d's own key: %w", o.Index+1, err)
		}
		p.own = sk // a private copy: setup precomputes on it
	}
	p.openJob = p.open
	return p, nil
}

func (p *Party) open(q *Request) (*job, error) {
	if q.Kind == KindSetup {
		// One setup per session: a second would replace the pair seeds
		// and mask seeds every later request is built on.
		if p.setupAsked {
			return nil, fmt.Errorf("pdpmvds: %s: setup requested again (request %d)", p.id, q.ID)
		}
		p.setupAsked = true
		if p.session.Suite == SuiteCommodity {
			return newJob(q, p.commoditySetup()), nil
		}
		return newJob(q, p.paillierSetup()), nil
	}
	if !p.setupOK {
		return nil, fmt.Errorf("pdpmvds: %s: request %d before the setup", p.id, q.ID)
	}
	pl, err := p.session.plan(q)
	if err != nil {
		return nil, err
	}
	if pl.local {
		if pl.involved[0] != p.index {
			return nil, fmt.Errorf("pdpmvds: %s was asked about attributes %v of another party", p.id, q.Attrs)
		}
		return newJob(q, func(*job) (bool, error) { return true, p.answerLocally(pl) }), nil
	}
	if slices.Contains(pl.involved, p.index) {
		if err := p.charge(pl); err != nil {
			return nil, err
		}
	}
	if p.session.Suite == SuiteCommodity {
		return newJob(q, p.commodityFlow(pl)), nil
	}
	return newJob(q, p.paillierFlow(pl)), nil
}

// charge checks the release and spends it on the party's accountant
// before anything derived from the data leaves the party.
func (p *Party) charge(pl *plan) error {
	q := pl.req
	l1, l2 := measurement.CountL1, measurement.CountL2
	if q.Kind == KindScore {
		l1, l2 = measurement.IInDifSensitivity, measurement.IInDifSensitivity
	}
	if err := p.session.checkRelease(q.Attrs, q.Release, l1, l2); err != nil {
		return err
	}
	c := q.Release.Charge()
	if !pl.local {
		c.Note = p.session.noiseNote(q.Release.Noise, len(pl.contributors))
	}
	if err := p.o.Accountant.Spend(c); err != nil {
		return fmt.Errorf("pdpmvds: %s: %w", p.id, err)
	}
	return nil
}

// noiseNote says, for the ledger, who drew the noise of a joint release.
func (s *Session) noiseNote(n measurement.Noise, contributors int) string {
	if s.Noise == NoiseInsiderSafe {
		return fmt.Sprintf("noise drawn jointly by %d contributors (every party and S), any %d of whose shares sum to the calibrated %s noise: the guarantee holds against S and against each single party",
			contributors, contributors-1, n.Mechanism)
	}
	return fmt.Sprintf("noise drawn jointly by the %d parties measured, whose shares sum to exactly the calibrated %s noise: the guarantee holds against S and outsiders; a party knows its own share", contributors, n.Mechanism)
}

// answerLocally measures the party's own attributes with exact noise.
func (p *Party) answerLocally(pl *plan) error {
	if err := p.charge(pl); err != nil {
		return err
	}
	q := pl.req
	local := make([]int, len(q.Attrs))
	for i, a := range q.Attrs {
		local[i] = p.localIdx[a]
	}
	var vals []float64
	if q.Kind == KindScore {
		s, err := measurement.ExactScore(p.localDS, measurement.ScoreQuery{Kind: measurement.IInDif, A: local[0], B: local[1],
			RefA: q.RefA, RefB: q.RefB, N: p.n})
		if err != nil {
			return err
		}
		vals = []float64{s}
	} else {
		m, err := domain.Count(p.localDS, local)
		if err != nil {
			return err
		}
		vals = m.Counts
	}
	q.Release.Noise.Release(p.noiser, vals) // g·(round(x/g) + K) on the release's grid
	return p.send(CoordinatorID, &Body{Kind: "result", ID: q.ID, Floats: vals})
}

// column returns the composite column of the party's attributes attrs.
func (p *Party) column(attrs []int) []int32 {
	return compositeColumn(p.o.Columns, p.session.Sizes, attrs, p.n)
}

// noiseShares draws this contributor's integer share of every released
// value, in grid steps.
func (p *Party) noiseShares(pl *plan) ([]int64, error) {
	sp, err := p.session.shareSpec(pl.req.Release.Noise, pl.values, len(pl.contributors))
	if err != nil {
		return nil, err
	}
	k := sp.draw(p.noiser, pl.values)
	if p.onShare != nil {
		p.onShare(OwnShare{Request: pl.req, Grid: sp.plan.Grid, Steps: slices.Clone(k)})
	}
	return k, nil
}

// OwnShare is one noise share a party drew for a joint release.
type OwnShare struct {
	// Request is the release's request.
	Request *Request
	// Grid is the release's public grid step: the share of value c is
	// Grid·Steps[c] in the units of the released values.
	Grid  float64
	Steps []int64
}

// ObserveOwnShares has f called with every noise share the party draws
// for a joint release (NoiseShares' draws; not DLPA's, whose shares are
// committed to differently, nor a local release's noise, which is the
// party's alone), as it draws it, on the goroutine that runs Handle; nil
// stops it. It changes nothing the party sends. The party's owner knows
// these shares anyway — the party drew them on its behalf — so this hands
// the owner nothing new: it is for the owner's own records, and for
// audits of what a party that colludes with the coordinator can subtract
// from a release (in exact mode, a release minus one party's share is the
// statistic plus the other parties' shares only). Call it before the
// party handles its first request.
func (p *Party) ObserveOwnShares(f func(OwnShare)) { p.onShare = f }
