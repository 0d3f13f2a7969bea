// Package psi holds the steps of a multi-party Diffie–Hellman private set
// intersection (PSI) as pure functions: no roles, no messages, no I/O; the
// only randomness is a party's secret key, drawn from a *randx.Source.
// Package protocol/psi arranges these steps into the parties' roles.
//
// # Construction
//
// The group is the prime-order subgroup G of edwards25519 (order
// ℓ = 2^252 + 27742317777372353535851937790883648493, cofactor 8). Each
// party i draws a secret scalar a_i. An ID x is mapped to H(x) ∈ G
// (HashToGroup); party i blinds its own IDs as a_i·H(x), and every other
// party j re-blinds what it receives by a_j. Every blinding step also
// multiplies by the cofactor 8, so that a point with a small-order
// component, which only a cheating sender could produce, loses it instead
// of leaking a_j mod 8. After all k parties have blinded a set, an ID x
// is represented by F(x) = 8^k·(a_1⋯a_k)·H(x), the same whichever party
// holds x: equal IDs give equal elements, and the common elements of the
// k fully blinded sets are the intersection (Common).
//
// # Assumption and what is learnt
//
// Security is against semi-honest parties (each follows the steps but
// reads everything it receives) under the decisional Diffie–Hellman (DDH)
// assumption in G, with SHA-512 modelled as a random oracle. Under it, a
// once-blinded a_i·H(x), a partially blinded or a fully blinded element of
// an ID a party does not hold is indistinguishable from a random element
// of G, even to the other k−1 parties colluding, since they lack a_i:
// nobody can test a guessed ID against another party's set. What each
// function reveals is stated in its doc comment; what a whole run reveals
// is stated in package protocol/psi.
//
// Never map an ID to H(x)·B for the base point B: its discrete logarithm
// H(x) would be known, anyone could compute a_i·H(x)·B = H(x)·(a_i·B) from
// one blinded element of a known ID, and test any guess. HashToGroup maps
// to a point whose discrete logarithm nobody knows.
package psi

import (
	"bytes"
	"crypto/sha512"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"filippo.io/edwards25519"
	"filippo.io/edwards25519/field"
	"github.com/dppub/dppub/randx"
)

// ElementSize is the size in bytes of an encoded group element.
const ElementSize = 32

// Element is the canonical 32-byte encoding of an element of G.
type Element [ElementSize]byte

// domain separates this hash from every other use of SHA-512.
const domain = "dppub psi hash-to-group edwards25519 v1"

// maxTries bounds try-and-increment: each try succeeds with probability
// about 1/2, so 256 failures in a row happen with probability 2^-256.
const maxTries = 256

// HashToGroup maps an ID to an element of G whose discrete logarithm
// nobody knows, by try-and-increment: SHA-512 of (domain, length of the
// ID, the ID, a counter) is decoded as a point (its first 32 bytes), the
// counter growing until the bytes decode; the point is multiplied by the
// cofactor 8, which lands in G, and a result at the identity (from one of
// the 8 small-order points) is skipped too.
//
// Not constant time in the ID: the number of tries (1 + a geometric
// number with mean 1) depends on the ID. This is acceptable here because
// hashing runs on the owner's own machine, on its own IDs, before any
// message leaves: a remote party sees at most the time to hash the whole
// set, a sum of thousands of such counts, which says next to nothing about
// any one ID. A co-resident attacker timing each hash separately could
// learn about one bit per ID of its hash (which counter succeeded); that
// narrows a dictionary only by that bit and is outside this package's
// threat model (it defends no local side channels).
//
// What it reveals: nothing (a local computation).
func HashToGroup(id string) Element {
	return encode(hashPoint(id))
}

func hashPoint(id string) *edwards25519.Point {
	var prefix [8]byte
	binary.BigEndian.PutUint64(prefix[:], uint64(len(id)))
	p := new(edwards25519.Point)
	for ctr := range uint32(maxTries) {
		h := sha512.New()
		h.Write([]byte(domain))
		h.Write(prefix[:])
		h.Write([]byte(id))
		var c [4]byte
		binary.BigEndian.PutUint32(c[:], ctr)
		h.Write(c[:])
		sum := h.Sum(nil)
		if _, err := p.SetBytes(sum[:32]); err != nil {
			continue
		}
		p.MultByCofactor(p)
		if p.Equal(edwards25519.NewIdentityPoint()) == 1 {
			continue
		}
		return p
	}
	// Reaching here means SHA-512 failed 256 independent coin flips.
	panic("psi: hash-to-group found no point in 256 tries")
}

func encode(p *edwards25519.Point) Element {
	var e Element
	copy(e[:], p.Bytes())
	return e
}

// Key is one party's secret scalar a_i, uniform in [1, ℓ). It must never
// leave the party, and should be used for one linkage only: reusing it
// across linkages lets the other parties link the same ID across them.
type Key struct {
	s *edwards25519.Scalar
}

// NewKey draws a secret key from src (64 uniform bytes reduced mod ℓ).
//
// What it reveals: nothing.
func NewKey(src *randx.Source) (*Key, error) {
	if src == nil {
		return nil, errors.New("psi: a key needs a randomness source")
	}
	var b [64]byte
	for range 4 {
		for i := 0; i < len(b); i += 8 {
			binary.LittleEndian.PutUint64(b[i:], src.Uint64())
		}
		s, err := edwards25519.NewScalar().SetUniformBytes(b[:])
		if err != nil {
			return nil, fmt.Errorf("psi: key: %w", err)
		}
		if s.Equal(edwards25519.NewScalar()) == 0 {
			return &Key{s: s}, nil
		}
	}
	// A zero scalar four times in a row has probability 2^-1008.
	return nil, errors.New("psi: the randomness source gave a zero key four times")
}

// Blind hashes the party's own IDs to G and blinds them with its key,
// returning the elements sorted by their encoding and, for each, the row
// (index into ids) it came from. Sorting makes the order the party sends
// depend only on the blinded values, never on the order of its rows. It
// refuses an empty or repeated ID (a repeated ID would make rows
// ambiguous).
//
// What it reveals: the elements are meant to be sent; to anyone without
// the key they reveal, under DDH, only how many IDs the party holds.
func (k *Key) Blind(ids []string) (elems []Element, rows []int, err error) {
	if err := distinct(ids); err != nil {
		return nil, nil, err
	}
	out := make([]Element, len(ids))
	_ = parallel(len(ids), func(lo, hi int) error { // hashing and blinding cannot fail
		var b batch
		for i := lo; i < hi; i++ {
			b.add(k.mulPoint(hashPoint(ids[i])), &out[i])
		}
		b.flush()
		return nil
	})
	rows = make([]int, len(ids))
	for i := range rows {
		rows[i] = i
	}
	slices.SortFunc(rows, func(a, b int) int { return bytes.Compare(out[a][:], out[b][:]) })
	elems = make([]Element, len(ids))
	for j, r := range rows {
		elems[j] = out[r]
	}
	return elems, rows, nil
}

// Reblind multiplies every element of another party's set by the key (and
// the cofactor), keeping their order. It refuses an encoding that is not
// a point of the curve and a point that the cofactor sends to the
// identity (a small-order point, which no honest party sends).
//
// What it reveals: nothing to the caller (the inputs are, under DDH,
// indistinguishable from random elements); the outputs are meant to be
// sent on and reveal to a receiver without the key nothing beyond their
// number.
func (k *Key) Reblind(in []Element) ([]Element, error) {
	out := make([]Element, len(in))
	err := parallel(len(in), func(lo, hi int) error {
		var b batch
		id := edwards25519.NewIdentityPoint()
		for i := lo; i < hi; i++ {
			p := new(edwards25519.Point)
			if _, err := p.SetBytes(in[i][:]); err != nil {
				return fmt.Errorf("psi: element %d (%x) is not a point of edwards25519", i, in[i][:])
			}
			q := k.mulPoint(p)
			// The cofactor sends a small-order point to the identity.
			if q.Equal(id) == 1 {
				return fmt.Errorf("psi: element %d (%x) is a small-order point", i, in[i][:])
			}
			b.add(q, &out[i])
		}
		b.flush()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

var identity = encode(edwards25519.NewIdentityPoint())

// mulPoint returns 8·a·p (constant time in a and p).
func (k *Key) mulPoint(p *edwards25519.Point) *edwards25519.Point {
	q := new(edwards25519.Point).ScalarMult(k.s, p)
	return q.MultByCofactor(q)
}

// batchSize is how many points batch encodes with one field inversion.
const batchSize = 256

// batch encodes points with one field inversion per batchSize points
// (Montgomery's trick) instead of one per point, which was about 5 % of
// a blinding's time: the encoding of (X:Y:Z) is y = Y/Z with the sign of
// x = X/Z, exactly the bytes of Point.Bytes. Field operations are
// constant time; the inverted product is of the points' Z coordinates.
type batch struct {
	pts []*edwards25519.Point
	dst []*Element
}

func (b *batch) add(p *edwards25519.Point, dst *Element) {
	b.pts, b.dst = append(b.pts, p), append(b.dst, dst)
	if len(b.pts) == batchSize {
		b.flush()
	}
}

func (b *batch) flush() {
	n := len(b.pts)
	if n == 0 {
		return
	}
	xs, ys, zs := make([]field.Element, n), make([]field.Element, n), make([]field.Element, n)
	prefix := make([]field.Element, n) // prefix[i] = Z_0 ⋯ Z_{i−1}
	acc := new(field.Element).One()
	for i, p := range b.pts {
		x, y, z, _ := p.ExtendedCoordinates()
		xs[i].Set(x)
		ys[i].Set(y)
		zs[i].Set(z)
		prefix[i].Set(acc)
		acc.Multiply(acc, z)
	}
	inv := new(field.Element).Invert(acc) // 1/(Z_0 ⋯ Z_{n−1}); no Z of a point is 0
	var zInv, x, y field.Element
	for i := n - 1; i >= 0; i-- {
		zInv.Multiply(inv, &prefix[i]) // 1/Z_i
		inv.Multiply(inv, &zs[i])      // 1/(Z_0 ⋯ Z_{i−1})
		x.Multiply(&xs[i], &zInv)
		y.Multiply(&ys[i], &zInv)
		copy(b.dst[i][:], y.Bytes())
		b.dst[i][31] |= byte(x.IsNegative() << 7)
	}
	b.pts, b.dst = b.pts[:0], b.dst[:0]
}

// Common takes the k fully blinded sets, sets[i] in the order party i
// sent its own, and returns for every set the positions of its elements
// that are in all k sets, in the common order: ascending by the fully
// blinded element. Every party computing Common on the same sets gets the
// same order, so their common rows line up by position without any ID
// being revealed. It refuses fewer than two sets and a set holding an
// element twice.
//
// What it reveals to the caller: for every pair (indeed every subset) of
// sets, which positions hold the same ID, hence the sizes of every region
// of the parties' Venn diagram; combined with its own rows, which of its
// own IDs each other party holds. Package protocol/psi states how much of
// this a run gives each party.
func Common(sets [][]Element) ([][]int, error) {
	if len(sets) < 2 {
		return nil, fmt.Errorf("psi: intersection of %d sets: need at least 2", len(sets))
	}
	count := map[Element]int{}
	for i, s := range sets {
		seen := make(map[Element]bool, len(s))
		for _, e := range s {
			if seen[e] {
				return nil, fmt.Errorf("psi: set %d holds element %x twice", i, e[:])
			}
			seen[e] = true
			count[e]++
		}
	}
	var common []Element
	for e, c := range count {
		if c == len(sets) {
			common = append(common, e)
		}
	}
	slices.SortFunc(common, func(a, b Element) int { return bytes.Compare(a[:], b[:]) })
	out := make([][]int, len(sets))
	for i, s := range sets {
		pos := make(map[Element]int, len(s))
		for j, e := range s {
			pos[e] = j
		}
		out[i] = make([]int, len(common))
		for c, e := range common {
			out[i][c] = pos[e]
		}
	}
	return out, nil
}

// CheckIDs refuses an empty or repeated ID, as Blind does: a party can
// check its IDs before it agrees to a linkage.
//
// What it reveals: nothing (a local computation).
func CheckIDs(ids []string) error { return distinct(ids) }

// distinct refuses an empty or repeated ID.
func distinct(ids []string) error {
	seen := make(map[string]int, len(ids))
	for i, id := range ids {
		if id == "" {
			return fmt.Errorf("psi: ID of row %d is empty", i)
		}
		if j, dup := seen[id]; dup {
			return fmt.Errorf("psi: ID %q is on rows %d and %d: IDs must be distinct", id, j, i)
		}
		seen[id] = i
	}
	return nil
}

// parallel runs f over [0, n) in one chunk per CPU and returns the first
// error (in chunk order). The output does not depend on the number of
// CPUs: each index is computed alone.
func parallel(n int, f func(lo, hi int) error) error {
	w := min(runtime.GOMAXPROCS(0), max(1, n/256))
	if w <= 1 {
		return f(0, n)
	}
	errs := make([]error, w)
	var wg sync.WaitGroup
	for c := range w {
		lo, hi := c*n/w, (c+1)*n/w
		wg.Go(func() { errs[c] = f(lo, hi) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
