package roles

import (
	"crypto/sha256"
	"fmt"
	"math"
	"sort"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/internal/wire"
)

const typePrefix = "rowsynth/"

// Message types.
const (
	TypeHello   = typePrefix + "hello"
	TypeKeys    = typePrefix + "keys"
	TypeRequest = typePrefix + "request"
	TypeDomain  = typePrefix + "domain"
	TypeShare   = typePrefix + "share"
	TypeClose   = typePrefix + "close"
)

// Hello is an owner's first message: its X25519 public key, its public
// record count (0 under add/remove neighbours, where the count is private
// and the coordinator refuses any other), and its signature of the key (KeyStatement) by its own
// identity, which every other owner checks: the coordinator relays the
// keys but cannot substitute them.
type Hello struct {
	Key     []byte
	Records int
	Sig     []byte
}

func (*Hello) MessageType() string { return TypeHello }

func (h *Hello) fields() []any { return []any{&h.Key, &h.Records, &h.Sig} }

func (h *Hello) MarshalBinary() ([]byte, error) { return wire.Marshal(h.fields()...), nil }

func (h *Hello) UnmarshalBinary(b []byte) error {
	if err := wire.Unmarshal(b, "rowsynth: hello", h.fields()...); err != nil {
		return err
	}
	if len(h.Key) != 32 || h.Records < 0 {
		return fmt.Errorf("rowsynth: hello with a %d-byte key and %d records", len(h.Key), h.Records)
	}
	return nil
}

// Keys sends every owner all owners' public keys and their signatures, in
// owner order.
type Keys struct{ Keys, Sigs [][]byte }

func (*Keys) MessageType() string { return TypeKeys }

func (k *Keys) MarshalBinary() ([]byte, error) {
	var w wire.Writer
	if len(k.Sigs) != len(k.Keys) {
		return nil, fmt.Errorf("rowsynth: keys message with %d keys and %d signatures", len(k.Keys), len(k.Sigs))
	}
	w.Int(len(k.Keys))
	for i, key := range k.Keys {
		w.Bytes(key)
		w.Bytes(k.Sigs[i])
	}
	return w.Data(), nil
}

func (k *Keys) UnmarshalBinary(b []byte) error {
	r := wire.NewReader(b)
	n := r.Int()
	if n < 0 || n > 1<<16 {
		return fmt.Errorf("rowsynth: keys message lists %d keys", n)
	}
	k.Keys, k.Sigs = make([][]byte, n), make([][]byte, n)
	for i := range k.Keys {
		k.Keys[i] = r.Bytes()
		k.Sigs[i] = r.Bytes()
	}
	if err := r.Finish(); err != nil {
		return fmt.Errorf("rowsynth: keys: %w", err)
	}
	return nil
}

// Request kinds.
const (
	// KindHistogram asks for a numeric column's counts on the public grid
	// of Cells cells over its declared bounds (domain.PublicGrid).
	KindHistogram = "histogram"
	// KindMarginal asks for the counts over Attrs on the session's domain.
	KindMarginal = "marginal"
	// KindScore asks for the owner's own IInDif score of the pair Attrs
	// against the public reference Refs (OwnerScore): one value of
	// sensitivity measurement.IInDifSensitivity.
	KindScore = "score"
	// KindSelect asks for the owner's own quality score of each candidate
	// attribute set of an adaptive round (Sets) against the model's
	// public estimate (Refs, one joint frequency vector per set):
	// OwnerScore against SelectReference (Request.SelectValues), one
	// value per candidate, each of sensitivity 2,
	// so the vector has Δ₁ = 2C, Δ₂ = 2√C for C candidates
	// (SelectSensitivity).
	KindSelect = "select"
	// KindCount asks for the owner's record count n_k, under add/remove
	// neighbours only (where it is private): the coordinator learns the
	// noisy total Σ_k n_k, of sensitivity 1, which stands for n after.
	KindCount = "count"
)

// MaxSelectSets bounds a select request's candidates: the coordinator
// offers a handful (rowsynth's filter keeps at most 16), and an owner
// refuses more than this before counting anything.
const MaxSelectSets = 1 << 10

// MaxSelectArity bounds a candidate set's attributes: the adaptive
// workload's sets are pairs and triples.
const MaxSelectArity = 3

// SelectTolerance is how far from 1 the sum of a select request's
// reference frequencies may be (they are a model's estimate over n,
// normalised, so off by rounding only).
const SelectTolerance = 1e-6

// Request asks every owner for its masked share of one release.
type Request struct {
	// Session is the session the request belongs to; an owner refuses
	// another session's.
	Session string
	// ID numbers the request; an owner answers each ID once.
	ID     uint64
	Kind   string
	Column int   // KindHistogram
	Cells  int   // KindHistogram
	Attrs  []int // KindMarginal, KindScore
	// Sets (KindSelect) are the round's candidate attribute sets, each
	// sorted.
	Sets [][]int
	// Refs (KindScore) are the public reference frequencies of the pair's
	// two attributes: the pooled noisy one-way counts over the public
	// record count, so that Σ_k n_k·Refs[0][i]·Refs[1][j] is the
	// single-curator reference N*_i·N*_j/n. For KindSelect, Refs[i] is
	// the model's estimate of Sets[i]'s marginal as frequencies (summing
	// to 1), so that Σ_k n_k·Refs[i] is the model's estimate of the
	// pooled counts.
	Refs    [][]float64
	Release measurement.Release
	// Neighbours is the relation the coordinator calibrated to; the owner
	// refuses a request whose relation is not its session's (and
	// calibrates to its own, never to this field).
	Neighbours dp.Neighbours
}

func (*Request) MessageType() string { return TypeRequest }

func (q *Request) MarshalBinary() ([]byte, error) {
	var w wire.Writer
	w.String(q.Session)
	w.Uint64(q.ID)
	w.String(q.Kind)
	w.Int(q.Column)
	w.Int(q.Cells)
	w.Ints(q.Attrs)
	if q.Kind == KindSelect {
		// Only a select request carries sets: the other kinds keep the
		// wire format (and digests) of builds before it.
		w.Int(len(q.Sets))
		for _, set := range q.Sets {
			w.Ints(set)
		}
	}
	w.Int(len(q.Refs))
	for _, f := range q.Refs {
		w.Float64s(f)
	}
	w.String(q.Release.Purpose)
	w.Ints(q.Release.Parties)
	n := q.Release.Noise
	w.String(string(n.Mechanism))
	w.Float64s([]float64{n.Sensitivity, n.Scale, n.Rho})
	w.String(string(q.Neighbours.Or()))
	return w.Data(), nil
}

func (q *Request) UnmarshalBinary(b []byte) error {
	r := wire.NewReader(b)
	q.Session = r.String()
	q.ID = r.Uint64()
	q.Kind = r.String()
	q.Column = r.Int()
	q.Cells = r.Int()
	q.Attrs = r.Ints()
	if q.Kind == KindSelect {
		sets := r.Int()
		if sets < 0 || sets > MaxSelectSets {
			return fmt.Errorf("rowsynth: request with %d candidate sets, at most %d", sets, MaxSelectSets)
		}
		q.Sets = make([][]int, sets)
		for i := range q.Sets {
			q.Sets[i] = r.Ints()
		}
	}
	if n := r.Int(); n > 0 && n <= max(len(q.Attrs), len(q.Sets)) {
		q.Refs = make([][]float64, n)
		for i := range q.Refs {
			q.Refs[i] = r.Float64s()
		}
	} else if n != 0 {
		return fmt.Errorf("rowsynth: request: %d reference vectors for %d attributes and %d sets", n, len(q.Attrs), len(q.Sets))
	}
	q.Release.Purpose = r.String()
	q.Release.Parties = r.Ints()
	q.Release.Noise.Mechanism = measurement.Mechanism(r.String())
	p := r.Float64s()
	q.Neighbours = dp.Neighbours(r.String())
	if err := r.Finish(); err != nil {
		return fmt.Errorf("rowsynth: request: %w", err)
	}
	if len(p) != 3 {
		return fmt.Errorf("rowsynth: request: noise has %d parameters, want 3", len(p))
	}
	q.Release.Noise.Sensitivity, q.Release.Noise.Scale, q.Release.Noise.Rho = p[0], p[1], p[2]
	if err := q.Neighbours.Check(); err != nil {
		return fmt.Errorf("rowsynth: request: %w", err)
	}
	switch q.Kind {
	case KindHistogram, KindMarginal:
	case KindCount:
		if len(q.Attrs) != 0 || len(q.Refs) != 0 || len(q.Sets) != 0 {
			return fmt.Errorf("rowsynth: count request with %d attributes and %d references, want none", len(q.Attrs), len(q.Refs))
		}
	case KindScore:
		if err := q.validScore(); err != nil {
			return err
		}
	case KindSelect:
		if err := q.validSelect(); err != nil {
			return err
		}
	default:
		return fmt.Errorf("rowsynth: request of unknown kind %q", q.Kind)
	}
	return q.Release.Validate(1)
}

// Digest binds the whole request (session, ID, kind, shape, references
// and noise): the pairwise masks of a request are drawn from it
// (AddMask), so two requests that differ in anything never share a mask
// and the difference of their answers stays masked.
func (q *Request) Digest() ([32]byte, error) {
	b, err := q.MarshalBinary()
	if err != nil {
		return [32]byte{}, err
	}
	h := sha256.New()
	h.Write([]byte("dppub rowsynth request v2\x00"))
	h.Write(b)
	var out [32]byte
	h.Sum(out[:0])
	return out, nil
}

// validScore checks a score request's shape: a pair with one finite
// reference frequency per bin of each attribute (a noisy one-way count
// may be negative, and the curator's score uses it as it is).
func (q *Request) validScore() error {
	if len(q.Attrs) != 2 || len(q.Refs) != 2 {
		return fmt.Errorf("rowsynth: score request over %d attributes with %d references, want 2 and 2", len(q.Attrs), len(q.Refs))
	}
	for i, f := range q.Refs {
		for _, v := range f {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("rowsynth: score request: reference frequency %v of attribute %d", v, q.Attrs[i])
			}
		}
	}
	return nil
}

// validSelect checks a select request's shape on its own: 1 to
// MaxSelectSets sets of 1 to MaxSelectArity distinct sorted attributes,
// distinct from each other, each with a reference of finite,
// non-negative frequencies summing to 1 (within SelectTolerance). The
// owner checks each reference's length against its own domain
// (Request.SelectValues).
func (q *Request) validSelect() error {
	if len(q.Sets) == 0 || len(q.Refs) != len(q.Sets) || len(q.Attrs) != 0 {
		return fmt.Errorf("rowsynth: select request with %d sets, %d references and %d attributes, want as many references as sets (at least one) and no attributes", len(q.Sets), len(q.Refs), len(q.Attrs))
	}
	seen := map[string]bool{}
	for i, set := range q.Sets {
		if len(set) == 0 || len(set) > MaxSelectArity {
			return fmt.Errorf("rowsynth: select request: candidate %d has %d attributes, want 1 to %d", i, len(set), MaxSelectArity)
		}
		for j, a := range set {
			if a < 0 || (j > 0 && a <= set[j-1]) {
				return fmt.Errorf("rowsynth: select request: candidate %v is not a sorted set of attributes", set)
			}
		}
		key := fmt.Sprint(set)
		if seen[key] {
			return fmt.Errorf("rowsynth: select request: candidate %v is offered twice", set)
		}
		seen[key] = true
		total := 0.0
		for _, v := range q.Refs[i] {
			if !(v >= 0) || math.IsInf(v, 0) {
				return fmt.Errorf("rowsynth: select request: reference frequency %v of candidate %v is not finite and non-negative", v, set)
			}
			total += v
		}
		if !(math.Abs(total-1) <= SelectTolerance) {
			return fmt.Errorf("rowsynth: select request: the reference frequencies of candidate %v sum to %v, not 1", set, total)
		}
	}
	return nil
}

// Domain tells the owners the numeric attributes' bin edges (chosen from
// noisy histograms): with the session's public bins they make the domain
// every later marginal is counted on.
type Domain struct{ Cuts map[string][]float64 }

func (*Domain) MessageType() string { return TypeDomain }

func (d *Domain) MarshalBinary() ([]byte, error) {
	names := make([]string, 0, len(d.Cuts))
	for n := range d.Cuts {
		names = append(names, n)
	}
	sort.Strings(names)
	var w wire.Writer
	w.Int(len(names))
	for _, n := range names {
		w.String(n)
		w.Float64s(d.Cuts[n])
	}
	return w.Data(), nil
}

func (d *Domain) UnmarshalBinary(b []byte) error {
	r := wire.NewReader(b)
	n := r.Int()
	if n < 0 || n > 1<<16 {
		return fmt.Errorf("rowsynth: domain message lists %d attributes", n)
	}
	d.Cuts = make(map[string][]float64, n)
	for range n {
		name := r.String()
		d.Cuts[name] = r.Float64s()
	}
	if err := r.Finish(); err != nil {
		return fmt.Errorf("rowsynth: domain: %w", err)
	}
	for name, c := range d.Cuts {
		for _, v := range c {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("rowsynth: domain: a non-finite bin edge of %q", name)
			}
		}
	}
	return nil
}

// Share is an owner's masked share of one release: per value, its count
// in grid steps plus its noise share plus its pairwise masks, mod 2^64.
type Share struct {
	ID    uint64
	Words []uint64
}

func (*Share) MessageType() string { return TypeShare }

func (s *Share) fields() []any { return []any{&s.ID, &s.Words} }

func (s *Share) MarshalBinary() ([]byte, error) { return wire.Marshal(s.fields()...), nil }

func (s *Share) UnmarshalBinary(b []byte) error {
	return wire.Unmarshal(b, "rowsynth: share", s.fields()...)
}

// Close ends the run.
type Close struct{}

func (Close) MessageType() string            { return TypeClose }
func (Close) MarshalBinary() ([]byte, error) { return []byte{}, nil }
