package roles

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/dppub/dppub/dp"

	"github.com/dppub/dppub/crypto/sspp"
)

// Suite chooses the secure scalar product and, with it, how the rest of
// Algorithm 1 is computed.
type Suite string

const (
	// SuitePaillier is the paper's construction: Goethals et al.'s secure
	// scalar product under each party's own Paillier key (with one-hot
	// vectors packed into plaintext slots), then encrypted aggregation at
	// S under the parties' shared key, the sign step by pairwise joint
	// decryption, and the noisy result decrypted jointly.
	SuitePaillier Suite = "paillier"
	// SuiteCommodity replaces the scalar product by Du & Atallah's
	// commodity-server protocol (S deals correlated randomness, arithmetic
	// mod 2^64) and computes the rest of Algorithm 1 on additive shares
	// with S's help instead of under encryption: no Paillier operation at
	// all. Same non-collusion assumption, a small fraction of the cost.
	SuiteCommodity Suite = "commodity"
)

// NoiseMode chooses how the noise of a release spanning parties is drawn
// (dp.NoiseMode, the vocabulary every multi-party method shares).
type NoiseMode = dp.NoiseMode

const (
	// NoiseInsiderSafe (the default) has every party and S contribute a
	// share, drawn so that any m−1 of the m shares already sum to the
	// calibrated noise. Shares are integers on the release's public grid
	// (dp.Noiser.Shares with m−1 parts): discrete Gaussian shares of
	// variance s²/(m−1); discrete Laplace shares as differences of two
	// Pólya NB(1/(m−1), e^{−1/t}) draws, whose sum over m−1 contributors
	// is exactly discrete Laplace of scale t. A participant who knows its own
	// share still faces the full calibrated noise, so the charged
	// guarantee holds against S and against every single party, not only
	// against outsiders. Cost: the total noise variance is m/(m−1) times
	// the calibrated one.
	NoiseInsiderSafe = dp.NoiseInsiderSafe
	// NoiseExact is the paper's: only the parties whose attributes are
	// measured draw noise, and their shares sum to the calibrated noise
	// (Laplace by DLPA, Rastogi & Nath 2010, in the Paillier suite, with
	// integer discrete Gaussian shares and approximately discrete Laplace
	// η̂, see package dlpa; by Pólya divisibility, exactly, in the
	// commodity suite; Gaussian split into equal-variance shares). The guarantee holds against S and outsiders;
	// a party knows its own share, so against a fellow party it is weaker
	// (Gaussian: ρ·m/(m−1); Laplace by DLPA: not quantified).
	NoiseExact = dp.NoiseExact
)

// Defaults.
const (
	// DefaultStatBits is the statistical hiding of integer masks (the
	// Goethals shares and the sign step's multiplicative mask).
	DefaultStatBits = 64
	// DefaultKeyBits is the default Paillier modulus size; 3072 bits is
	// recommended for data that must stay secret beyond 2030 (NIST SP
	// 800-57).
	DefaultKeyBits = 2048
	// paillierFrac is the fixed-point precision of the Paillier suite's
	// score terms t = Â − n·2^f·N (the public Â = N*_a·N*_b rounded to
	// 2^-f). Counts and noise are integers on the release's grid
	// (encoding).
	paillierFrac = 16
)

// Session is the public description of a run that every role holds: the
// parties, the record count, the discretised domain, who owns which
// attribute, and the cryptographic choices.
type Session struct {
	// Parties is K ≥ 2.
	Parties int
	// Records is the public record count n.
	Records int
	// Sizes is the domain size of every attribute (global order).
	Sizes []int
	// Owners is the party (0-based) holding every attribute.
	Owners []int
	// Suite is the secure-computation suite (default SuiteCommodity).
	Suite Suite
	// Noise is the noise mode (default NoiseInsiderSafe).
	Noise NoiseMode
	// KeyBits is the size of the parties' own Paillier keys for the
	// scalar products (Paillier suite; default DefaultKeyBits).
	KeyBits int
	// InsecureTestKeys allows keys below paillier.MinBits: tests only.
	InsecureTestKeys bool
	// StatBits is the statistical hiding parameter σ (default
	// DefaultStatBits, at least 40).
	StatBits int
}

func (s *Session) defaults() {
	s.Suite = cmp.Or(s.Suite, SuiteCommodity)
	s.Noise = cmp.Or(s.Noise, NoiseInsiderSafe)
	s.KeyBits = cmp.Or(s.KeyBits, DefaultKeyBits)
	s.StatBits = cmp.Or(s.StatBits, DefaultStatBits)
}

// Validate fills defaults and checks the session.
func (s *Session) Validate() error {
	s.defaults()
	switch {
	case s.Parties < 2:
		return fmt.Errorf("pdpmvds: need at least 2 parties, got %d", s.Parties)
	case s.Records < 1:
		return fmt.Errorf("pdpmvds: record count %d must be positive", s.Records)
	case len(s.Sizes) == 0 || len(s.Sizes) != len(s.Owners):
		return fmt.Errorf("pdpmvds: %d domain sizes for %d owners", len(s.Sizes), len(s.Owners))
	case s.Suite != SuitePaillier && s.Suite != SuiteCommodity:
		return fmt.Errorf("pdpmvds: unknown suite %q (want paillier or commodity)", s.Suite)
	case s.Noise.Check() != nil:
		return fmt.Errorf("pdpmvds: noise: %w", s.Noise.Check())
	case s.StatBits < 40 || s.StatBits > 256:
		return fmt.Errorf("pdpmvds: statistical parameter %d bits, need 40..256", s.StatBits)
	case s.KeyBits < 256 || (s.KeyBits < 2048 && !s.InsecureTestKeys):
		return fmt.Errorf("pdpmvds: key size %d bits; at least 2048 (insecure test keys: 256)", s.KeyBits)
	}
	held := make([]int, s.Parties)
	for j, o := range s.Owners {
		if o < 0 || o >= s.Parties {
			return fmt.Errorf("pdpmvds: attribute %d owned by party %d of %d", j, o, s.Parties)
		}
		if s.Sizes[j] < 1 || s.Sizes[j] > math.MaxUint16+1 {
			return fmt.Errorf("pdpmvds: attribute %d has domain size %d", j, s.Sizes[j])
		}
		held[o]++
	}
	for k, h := range held {
		if h == 0 {
			return fmt.Errorf("pdpmvds: party %d holds no attribute", k+1)
		}
	}
	if s.Suite == SuiteCommodity && s.signFrac() < 0 {
		return fmt.Errorf("pdpmvds: %d records are too many for the commodity suite's 64-bit ring", s.Records)
	}
	return nil
}

// recordBits is L = bit length of n: every count lies in [0, 2^L).
func (s *Session) recordBits() int { return bits.Len(uint(s.Records)) }

// signFrac is the commodity suite's fixed-point precision for scores:
// |t|·r must stay below 2^62 with |t| ≤ n²·2^f and r < 2^sspp.SignMaskBits.
func (s *Session) signFrac() int {
	return 62 - sspp.SignMaskBits - 2*s.recordBits()
}

// attrsOf returns party k's attributes in increasing order.
func (s *Session) attrsOf(k int) []int {
	var out []int
	for j, o := range s.Owners {
		if o == k {
			out = append(out, j)
		}
	}
	return out
}

// involved returns the sorted distinct owners of attrs.
func (s *Session) involved(attrs []int) []int {
	var ps []int
	for _, a := range attrs {
		if !slices.Contains(ps, s.Owners[a]) {
			ps = append(ps, s.Owners[a])
		}
	}
	slices.Sort(ps)
	return ps
}

// validAttrs checks a sorted set of distinct attributes.
func (s *Session) validAttrs(attrs []int) error {
	if len(attrs) == 0 {
		return fmt.Errorf("pdpmvds: empty attribute set")
	}
	cells := 1
	for i, a := range attrs {
		if a < 0 || a >= len(s.Sizes) || (i > 0 && attrs[i-1] >= a) {
			return fmt.Errorf("pdpmvds: attribute set %v is not sorted, distinct and in range", attrs)
		}
		cells *= s.Sizes[a]
		if cells > maxCells {
			return fmt.Errorf("pdpmvds: attribute set %v has more than %d cells", attrs, maxCells)
		}
	}
	return nil
}

// maxCells bounds one measured table.
const maxCells = 1 << 24

// Role names.
const (
	ThirdPartyID  = "third-party"
	CoordinatorID = "coordinator"
)

// PartyID names party k (0-based) as "party-(k+1)".
func PartyID(k int) string { return fmt.Sprintf("party-%d", k+1) }

// composite is one party's part of a measured attribute set: its
// attributes (sorted) and the size of their joint domain.
type composite struct {
	party int
	attrs []int
	size  int
}

// composites splits attrs by owner, in increasing party order.
func (s *Session) composites(attrs []int) []composite {
	var out []composite
	for _, p := range s.involved(attrs) {
		c := composite{party: p, size: 1}
		for _, a := range attrs {
			if s.Owners[a] == p {
				c.attrs = append(c.attrs, a)
				c.size *= s.Sizes[a]
			}
		}
		out = append(out, c)
	}
	return out
}

// cellLayout maps the cells of the marginal over attrs (mixed radix over
// the sorted attributes, last fastest: the engine's order) to the tuple
// of composite values of the given composites, in the order given.
// It returns, for every cell, the index in the product layout
// (chain[0] slowest, chain[last] fastest).
func (s *Session) cellLayout(attrs []int, chain []composite) []int {
	cells := 1
	for _, a := range attrs {
		cells *= s.Sizes[a]
	}
	pos := make(map[int]int, len(attrs))
	for i, a := range attrs {
		pos[a] = i
	}
	out := make([]int, cells)
	vals := make([]int, len(attrs))
	for c := range out {
		idx := 0
		for _, comp := range chain {
			v := 0
			for _, a := range comp.attrs {
				v = v*s.Sizes[a] + vals[pos[a]]
			}
			idx = idx*comp.size + v
		}
		out[c] = idx
		for p := len(vals) - 1; p >= 0; p-- {
			vals[p]++
			if vals[p] < s.Sizes[attrs[p]] {
				break
			}
			vals[p] = 0
		}
	}
	return out
}

// compositeColumn returns every record's value of a composite: mixed radix
// over its attributes (last fastest) from the party's own columns.
func compositeColumn(cols map[int][]uint16, sizes []int, attrs []int, n int) []int32 {
	out := make([]int32, n)
	for _, a := range attrs {
		s := int32(sizes[a])
		col := cols[a]
		for i := range out {
			out[i] = out[i]*s + int32(col[i])
		}
	}
	return out
}
