package audits

import (
	"context"
	"crypto/ecdh"
	"fmt"
	"slices"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/infer"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/method/rowsynth"
	proto "github.com/dppub/dppub/method/rowsynth/roles"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// This file runs synthesize-rows at the level of its protocol for the
// audits that look inside a run (the party views of view.go and the
// same-seed replay of replay.go). The session, every owner's role and the
// coordinator's role are the method's own (method.BuildLocal,
// Session.Join, Session.Coordinate), wrapped in protocol.Recorder; the
// audit chooses each owner's randomness, so it can recompute what each
// owner knows without any hook in the protocol: its X25519 key (the first
// four words of its stream), hence its pairwise seeds and masks, hence its
// own word (counts plus noise share) from the masked word it sent. Every
// recomputation is checked against the transcript (the public keys the
// coordinator relayed, unmasked words that must be small integers), so a
// drift between this file and method/rowsynth/roles fails loudly instead of
// auditing a wrong view.

// rowsHarness holds what every run of one audit shares: the owners'
// tables on both sides of the pair, already encoded for counting.
type rowsHarness struct {
	mode proto.NoiseMode
	// method is the engine's method ("" for auto, which keeps the
	// audits' small tables on the paper method; marginal.MethodAdaptive
	// forces the adaptive rounds and their select requests).
	method marginal.Method
	rho    float64
	names  []string
	tables [2][]*data.Table
	data   [2][]*domain.Dataset
}

// checkNoiseMode refuses a noise mode the method does not have, for the
// audit named name ("" is the default mode).
func checkNoiseMode(name, mode string) error {
	if mode != "" && mode != string(rowsynth.NoiseExact) && mode != string(rowsynth.NoiseInsiderSafe) {
		return fmt.Errorf("audit: %s-%s has no noise mode %q (want %s or %s)", name, rowsynth.Name, mode, rowsynth.NoiseInsiderSafe, rowsynth.NoiseExact)
	}
	return nil
}

// newRowsHarness splits each side's table among owners (SplitRows: owner 1
// holds record 0, the canary's place) for a session at rho per owner
// running the engine's method meth.
func newRowsHarness(mode proto.NoiseMode, meth marginal.Method, rho float64, tables [2]*data.Table, owners int) (*rowsHarness, error) {
	if mode == "" {
		mode = proto.NoiseInsiderSafe
	}
	h := &rowsHarness{mode: mode, method: meth, rho: rho}
	for k := range owners {
		h.names = append(h.names, proto.OwnerID(k))
	}
	// The canary tables are categorical: the domain is the schema's, with
	// no bins chosen from the data (runs check that no Domain message
	// brings any).
	dom, err := domain.New(tables[audit.D].Schema, domain.Options{})
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	for _, side := range []audit.Side{audit.D, audit.DPrime} {
		h.tables[side] = audit.SplitRows(tables[side], owners)
		for _, t := range h.tables[side] {
			ds, _, err := dom.Encode(t)
			if err != nil {
				return nil, fmt.Errorf("audit: %w", err)
			}
			h.data[side] = append(h.data[side], ds)
		}
	}
	return h, nil
}

// rowsTrace is one finished run and what the audit recomputed of it.
type rowsTrace struct {
	h       *rowsHarness
	side    audit.Side
	session string
	// seeds are the owners' streams; relayed the public keys the
	// coordinator relayed; masks[k][j] the seed owners k and j share,
	// derived on first use (key agreement dominates a run's cost).
	seeds   []uint64
	relayed [][]byte
	masks   [][][32]byte
	// requests are the releases in order; words[i][k] is the masked word
	// owner k sent for requests[i], as the coordinator received it.
	requests []*proto.Request
	words    [][][]uint64
	accts    []*privacy.Accountant
	result   *rowsynth.Result
	report   *privacy.Report
}

// shareRewrite changes the masked words of one request's shares before
// the coordinator reads them: a broken variant's owners (words[k] is owner
// k's, rewritten in place).
type shareRewrite func(tr *rowsTrace, q *proto.Request, words [][]uint64) error

// soundRun builds the harness of the audit named name at ρ =
// audit.PipelineRho per owner and runs it once on D from seed 0: the run
// whose report holds the claim and whose releases fix the replay's scales.
func soundRun(name string, mode proto.NoiseMode, meth marginal.Method, tables [2]*data.Table) (*rowsHarness, *rowsTrace, error) {
	h, err := newRowsHarness(mode, meth, audit.PipelineRho, tables, audit.PipelineOwners)
	if err != nil {
		return nil, nil, err
	}
	sound, err := h.run(audit.D, randx.NewSeeded(0), nil)
	if err != nil {
		return nil, nil, fmt.Errorf("audit: %s-%s: %w", name, rowsynth.Name, err)
	}
	return h, sound, nil
}

// run runs the whole session on side, drawing every seed from src: the
// session's, each owner's and the coordinator's, in that order, so equal
// sources give equal tapes whatever the side.
func (h *rowsHarness) run(side audit.Side, src *randx.Source, rewrite shareRewrite) (*rowsTrace, error) {
	tr := &rowsTrace{h: h, side: side}
	lo := method.LocalOptions{Members: map[string][]string{method.RoleOwner: h.names}, Data: map[string]*data.Table{}, Source: randx.NewSeeded(src.Uint64())}
	for k, name := range h.names {
		lo.Data[name] = h.tables[side][k]
	}
	st := &rowsynth.Settings{Rho: h.rho, Noise: h.mode}
	st.Method = h.method
	// BuildLocal opens the session as a coordinator does; the owners' roles
	// it builds are left unused and built again by Join, from streams the
	// audit chooses.
	b, err := method.BuildLocal(rowsynth.Spec, st, lo)
	if err != nil {
		return nil, err
	}
	tr.session = b.Session.Head().ID
	members := b.Session.Members()
	if len(members) != len(h.names) {
		return nil, fmt.Errorf("audit: the session lists %d members for %d owners", len(members), len(h.names))
	}
	var roles []protocol.Role
	var owners []*protocol.Recorder
	peers, err := method.LocalPeers(h.names)
	if err != nil {
		return nil, err
	}
	for k, m := range members {
		if m.Name != h.names[k] || m.Budget == nil {
			return nil, fmt.Errorf("audit: member %d is %q (budget %v), want owner %q with a budget", k, m.Name, m.Budget, h.names[k])
		}
		acct, err := privacy.NewAccountant(privacy.AccountantOptions{Party: m.Name, Budget: *m.Budget})
		if err != nil {
			return nil, err
		}
		seed := src.Uint64()
		role, err := b.Session.Join(method.Local{Name: m.Name, Table: h.tables[side][k], Accountant: acct, Source: randx.NewSeeded(seed), Peers: peers[m.Name]})
		if err != nil {
			return nil, err
		}
		rec := &protocol.Recorder{Role: role}
		tr.seeds, tr.accts = append(tr.seeds, seed), append(tr.accts, acct)
		owners, roles = append(owners, rec), append(roles, rec)
	}
	tr.masks = make([][][32]byte, len(h.names))
	c, err := b.Session.Coordinate(randx.NewSeeded(src.Uint64()), nil)
	if err != nil {
		return nil, err
	}
	if c.Cleanup != nil {
		defer c.Cleanup()
	}
	coord := &protocol.Recorder{Role: c.Role}
	var coordRole protocol.Role = coord
	if rewrite != nil {
		coordRole = &shareRewriter{inner: coord, tr: tr, rewrite: rewrite, requests: map[uint64]*proto.Request{}, pending: map[uint64][]protocol.Envelope{}}
	}
	if _, err := protocol.RunLocal(context.Background(), append(roles, coordRole)...); err != nil {
		return nil, err
	}
	out, err := c.Publish(tr.accts)
	if err != nil {
		return nil, err
	}
	res, ok := out.Detail.(*rowsynth.Result)
	if !ok || res.Engine == nil {
		return nil, fmt.Errorf("audit: the outcome's detail is %T, want a finished *rowsynth.Result", out.Detail)
	}
	tr.result, tr.report = res, out.Report
	if err := tr.readOwners(owners); err != nil {
		return nil, err
	}
	return tr, tr.readShares(coord)
}

// rowsOwnerKey is the X25519 key an owner whose stream is
// randx.NewSeeded(seed) draws first.
func rowsOwnerKey(seed uint64) (*ecdh.PrivateKey, error) {
	return proto.OwnerKey(randx.NewSeeded(seed))
}

// deriveMasks computes owner k's seed with every peer as
// method/rowsynth/roles's pairSeed does: SHA-256 over its domain label, the
// session, the pair (lower index first) and their Diffie–Hellman secret,
// from owner k's key (recomputed from its stream and checked against the
// public key the coordinator relayed) and the peers' relayed keys.
func (tr *rowsTrace) deriveMasks(k int) error {
	if tr.masks[k] != nil {
		return nil
	}
	n := len(tr.seeds)
	if len(tr.relayed) != n {
		return fmt.Errorf("audit: %d public keys relayed for %d owners", len(tr.relayed), n)
	}
	key, err := rowsOwnerKey(tr.seeds[k])
	if err != nil {
		return err
	}
	if string(key.PublicKey().Bytes()) != string(tr.relayed[k]) {
		return fmt.Errorf("audit: the key relayed for %s is not the one the audit derived from its stream: the owner's key draw changed", tr.h.names[k])
	}
	masks := make([][32]byte, n)
	for j := range n {
		if j == k {
			continue
		}
		pub, err := ecdh.X25519().NewPublicKey(tr.relayed[j])
		if err != nil {
			return fmt.Errorf("audit: %w", err)
		}
		secret, err := key.ECDH(pub)
		if err != nil {
			return fmt.Errorf("audit: %w", err)
		}
		masks[j] = proto.PairSeed(tr.session, min(k, j), max(k, j), secret)
	}
	tr.masks[k] = masks
	return nil
}

// unmask is owner k's own word for request id: the masked word minus
// the masks it added (+ towards later owners, − towards earlier; each a
// ChaCha8 stream keyed by SHA-256(seed ‖ request digest)), that is its counts
// in grid steps plus its noise share. A word outside ±2^40 means that the
// expansion drifted from the protocol's, and is an error.
func (tr *rowsTrace) unmask(k int, q *proto.Request, masked []uint64) ([]int64, error) {
	if err := tr.deriveMasks(k); err != nil {
		return nil, err
	}
	digest, err := q.Digest()
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	w := slices.Clone(masked)
	for j, seed := range tr.masks[k] {
		if j == k {
			continue
		}
		// Owner k added the mask towards j (negated when j < k); undo it.
		proto.AddMask(w, seed, digest, j > k)
	}
	out, ok := smallWords(w)
	if !ok {
		return nil, fmt.Errorf("audit: %s's unmasked word for request %d is %v: the audit's mask expansion differs from the protocol's", tr.h.names[k], q.ID, out)
	}
	return out, nil
}

// smallWords reads words as signed integers and reports whether every one is
// within ±2^40: true of counts plus noise in grid steps, false (except
// with probability 2^-23 per word) of a masked word, uniform on 2^64.
func smallWords(w []uint64) ([]int64, bool) {
	out := make([]int64, len(w))
	ok := true
	for i, v := range w {
		out[i] = int64(v)
		ok = ok && out[i] > -(1<<40) && out[i] < 1<<40
	}
	return out, ok
}

// counts are owner k's exact counts for q on the trace's side.
func (tr *rowsTrace) counts(k int, q *proto.Request) ([]float64, error) {
	return tr.h.counts(tr.side, k, q)
}

// For a pair score they are the owner's one value, its own IInDif score
// against the request's public reference (proto.Request.Values); for a
// select request its score of each candidate against its share of the
// model's estimate (proto.Request.SelectValues), as the owner computes
// them.
func (h *rowsHarness) counts(side audit.Side, k int, q *proto.Request) ([]float64, error) {
	if q.Kind == proto.KindSelect {
		return h.selectScores(side, k, q)
	}
	if q.Kind != proto.KindMarginal && q.Kind != proto.KindScore {
		return nil, fmt.Errorf("audit: request %d is a %s over %v; the audit counts marginals, pair scores and select scores only", q.ID, q.Kind, q.Attrs)
	}
	m, err := domain.Count(h.data[side][k], q.Attrs)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	v, _, err := q.Values(m.Counts, h.data[side][k].Len())
	if err != nil {
		return nil, fmt.Errorf("audit: request %d: %w", q.ID, err)
	}
	return v, nil
}

// selectScores are owner k's exact scores of a select request's
// candidates on side.
func (h *rowsHarness) selectScores(side audit.Side, k int, q *proto.Request) ([]float64, error) {
	counts := make([][]float64, len(q.Sets))
	for i, set := range q.Sets {
		m, err := domain.Count(h.data[side][k], set)
		if err != nil {
			return nil, fmt.Errorf("audit: %w", err)
		}
		counts[i] = m.Counts
	}
	v, _, err := q.SelectValues(counts, h.data[side][k].Len())
	if err != nil {
		return nil, fmt.Errorf("audit: request %d: %w", q.ID, err)
	}
	return v, nil
}

// readOwners reads the owners' transcripts: the public keys the
// coordinator relayed (the same to all), the requests in order (from
// owner 1's) and the domain (no bins from the data).
func (tr *rowsTrace) readOwners(owners []*protocol.Recorder) error {
	for k, rec := range owners {
		for _, e := range rec.Received {
			switch e.Type {
			case proto.TypeKeys:
				var m proto.Keys
				if err := m.UnmarshalBinary(e.Payload); err != nil {
					return err
				}
				if tr.relayed == nil {
					tr.relayed = m.Keys
				} else if !slices.EqualFunc(m.Keys, tr.relayed, func(a, b []byte) bool { return string(a) == string(b) }) {
					return fmt.Errorf("audit: the coordinator relayed other keys to %s than to the other owners", tr.h.names[k])
				}
			case proto.TypeDomain:
				var m proto.Domain
				if err := m.UnmarshalBinary(e.Payload); err != nil {
					return err
				}
				if len(m.Cuts) > 0 {
					return fmt.Errorf("audit: the domain brings bins %v; the audit's tables are categorical", m.Cuts)
				}
			case proto.TypeRequest:
				if k > 0 {
					continue
				}
				q := new(proto.Request)
				if err := q.UnmarshalBinary(e.Payload); err != nil {
					return err
				}
				if q.ID != uint64(len(tr.requests)+1) {
					return fmt.Errorf("audit: request %d arrived as the %d-th", q.ID, len(tr.requests)+1)
				}
				tr.requests = append(tr.requests, q)
			}
		}
	}
	return nil
}

// readShares takes every share the coordinator received, by request and
// owner.
func (tr *rowsTrace) readShares(coord *protocol.Recorder) error {
	tr.words = make([][][]uint64, len(tr.requests))
	for i := range tr.words {
		tr.words[i] = make([][]uint64, len(tr.seeds))
	}
	for _, e := range coord.Received {
		if e.Type != proto.TypeShare {
			continue
		}
		var s proto.Share
		if err := s.UnmarshalBinary(e.Payload); err != nil {
			return err
		}
		k := slices.Index(tr.h.names, e.From)
		if k < 0 || s.ID < 1 || s.ID > uint64(len(tr.requests)) {
			return fmt.Errorf("audit: share for request %d from %q", s.ID, e.From)
		}
		tr.words[s.ID-1][k] = s.Words
	}
	for i, ws := range tr.words {
		for k, w := range ws {
			if w == nil {
				return fmt.Errorf("audit: no share of request %d from %s", i+1, tr.h.names[k])
			}
		}
	}
	return nil
}

// sumWords is Σ_k words[k] mod 2^64 read as signed integers: the pooled counts
// plus the owners' shares of the noise, in grid steps (the masks cancel).
func sumWords(words [][]uint64) []int64 {
	out := make([]int64, len(words[0]))
	for _, w := range words {
		for i, v := range w {
			out[i] += int64(v)
		}
	}
	return out
}

// published pairs each noisy marginal the engine published (the raw
// one-way marginals, then the measured sets) with its request index, and
// checks that the attribute sets agree. The adaptive method interleaves
// select requests with its measurements, so the pairing is over the
// marginal requests alone.
func (tr *rowsTrace) published() ([]int, [][]float64, error) {
	eng := tr.result.Engine
	var marginals []int
	for i, q := range tr.requests {
		if q.Kind == proto.KindMarginal {
			marginals = append(marginals, i)
		}
	}
	var idx []int
	var vals [][]float64
	add := func(j int, n *infer.Noisy) error {
		if j < 0 || j >= len(marginals) || !slices.Equal(tr.requests[marginals[j]].Attrs, n.Attrs) {
			return fmt.Errorf("audit: published marginal over %v is not the %d-th marginal request", n.Attrs, j+1)
		}
		idx, vals = append(idx, marginals[j]), append(vals, n.Counts)
		return nil
	}
	for j, n := range eng.OneWays {
		if err := add(j, n); err != nil {
			return nil, nil, err
		}
	}
	first := len(marginals) - len(eng.Measured)
	for m, n := range eng.Measured {
		if err := add(first+m, n); err != nil {
			return nil, nil, err
		}
	}
	return idx, vals, nil
}

// shareRewriter sits at the coordinator's door: it holds the shares of a
// request until every owner's has arrived, lets rewrite change their
// words, and hands them on in the order they came. The requests it needs
// are read off the coordinator's own broadcasts.
type shareRewriter struct {
	inner    protocol.Role
	tr       *rowsTrace
	rewrite  shareRewrite
	requests map[uint64]*proto.Request
	pending  map[uint64][]protocol.Envelope
}

func (s *shareRewriter) ID() string { return s.inner.ID() }
func (s *shareRewriter) Done() bool { return s.inner.Done() }

func (s *shareRewriter) Start() ([]protocol.Envelope, error) { return s.watch(s.inner.Start()) }

func (s *shareRewriter) Handle(e protocol.Envelope) ([]protocol.Envelope, error) {
	if e.Type != proto.TypeShare {
		return s.watch(s.inner.Handle(e))
	}
	var sh proto.Share
	if err := sh.UnmarshalBinary(e.Payload); err != nil {
		return nil, err
	}
	s.pending[sh.ID] = append(s.pending[sh.ID], e)
	held := s.pending[sh.ID]
	if len(held) < len(s.tr.h.names) {
		return nil, nil
	}
	delete(s.pending, sh.ID)
	q := s.requests[sh.ID]
	if q == nil {
		return nil, fmt.Errorf("audit: shares for request %d, which the coordinator never sent", sh.ID)
	}
	words := make([][]uint64, len(held))
	for _, h := range held {
		k := slices.Index(s.tr.h.names, h.From)
		var m proto.Share
		if err := m.UnmarshalBinary(h.Payload); err != nil {
			return nil, err
		}
		if k < 0 || words[k] != nil {
			return nil, fmt.Errorf("audit: share of request %d from %q", sh.ID, h.From)
		}
		words[k] = m.Words
	}
	if err := s.rewrite(s.tr, q, words); err != nil {
		return nil, err
	}
	var out []protocol.Envelope
	for _, h := range held {
		k := slices.Index(s.tr.h.names, h.From)
		sealed, err := protocol.Seal(h.Session, h.From, h.To, &proto.Share{ID: sh.ID, Words: words[k]})
		if err != nil {
			return nil, err
		}
		sealed.Seq = h.Seq
		more, err := s.watch(s.inner.Handle(sealed))
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	return out, nil
}

// watch notes the relayed keys and the requests among the coordinator's
// outgoing messages.
func (s *shareRewriter) watch(out []protocol.Envelope, err error) ([]protocol.Envelope, error) {
	if err != nil {
		return nil, err
	}
	for _, e := range out {
		if e.Type == proto.TypeKeys && s.tr.relayed == nil {
			var m proto.Keys
			if err := m.UnmarshalBinary(e.Payload); err != nil {
				return nil, err
			}
			s.tr.relayed = m.Keys
		}
		if e.Type != proto.TypeRequest {
			continue
		}
		q := new(proto.Request)
		if err := q.UnmarshalBinary(e.Payload); err != nil {
			return nil, err
		}
		s.requests[q.ID] = q
	}
	return out, nil
}

// noiseShares are every owner's noise share for q in grid steps, from
// their words: the unmasked word minus the exact counts on the grid.
func (tr *rowsTrace) noiseShares(q *proto.Request, words [][]uint64) ([][]int64, error) {
	plan, err := q.Release.Noise.Plan(len(words[0]))
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	out := make([][]int64, len(words))
	for k, w := range words {
		u, err := tr.unmask(k, q, w)
		if err != nil {
			return nil, err
		}
		c, err := tr.counts(k, q)
		if err != nil {
			return nil, err
		}
		if len(c) != len(u) {
			return nil, fmt.Errorf("audit: %s sent %d values for %d cells", tr.h.names[k], len(u), len(c))
		}
		for i := range u {
			u[i] -= int64(plan.Snap(c[i]))
		}
		out[k] = u
	}
	return out, nil
}
