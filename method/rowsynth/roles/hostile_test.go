package roles

import (
	"crypto/ecdh"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// These tests play a coordinator that departs from the protocol. Each
// attack is shown to work against a test double of the owner's code
// before the owners computed their own noise, bound masks to the whole
// request and authenticated keys (legacy*), and to be refused, with
// nothing charged, by the owner as it is (docs/coordinator-threats.md).

// legacyCheck is the owner's calibration check as it was: the declared
// sensitivity and scale bounded from below only, the grid then sized from
// the declared sensitivity.
func legacyCheck(declared measurement.Noise) error {
	want, err := measurement.Calibrate(declared.Mechanism, measurement.CountL1, measurement.CountL2, declared.Rho)
	if err != nil {
		return err
	}
	if declared.Sensitivity < want.Sensitivity || declared.Scale < want.Scale*(1-1e-12) {
		return fmt.Errorf("below")
	}
	return nil
}

// ask seals q from the coordinator to owner o and hands it over.
func ask(t *testing.T, o *Owner, q *Request) ([]protocol.Envelope, error) {
	t.Helper()
	e, err := protocol.Seal("", CoordinatorID, o.ID(), q)
	if err != nil {
		t.Fatal(err)
	}
	return o.Handle(e)
}

// keyed is a two-owner exact-noise setup whose first owner has taken the
// honest coordinator's keys and domain.
func keyed(t *testing.T) (*setup, *Owner) {
	t.Helper()
	s := newSetup(t, NoiseExact, 40, 40)
	o := s.owners[0]
	if err := o.takeKeys(s.keys(t)); err != nil {
		t.Fatal(err)
	}
	if err := o.takeDomain(Domain{}); err != nil {
		t.Fatal(err)
	}
	return s, o
}

// Forged sensitivity: Δ₂ declared as 10⁸ with the honest σ at ρ = 0.1
// passes the old lower-bound check, and the grid it implies makes the
// noise a small fraction of a grid step: 32 against 31 records in a cell
// are told apart in nearly every release. The owner now refuses it before
// charging. The distinguishing counts are on a seeded source; with noise
// of 0.05 grid steps a wrong call needs a draw beyond 10σ, so the test
// does not fail by chance.
func TestHostileForgedSensitivity(t *testing.T) {
	honest, err := measurement.Calibrate(measurement.Gaussian, measurement.CountL1, measurement.CountL2, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	forged := honest
	forged.Sensitivity = 1e8
	if legacyCheck(forged) != nil {
		t.Fatal("the legacy check refused the forged noise; the test double is wrong")
	}
	plan, err := forged.Plan(1)
	if err != nil {
		t.Fatal(err)
	}
	nz := dp.NewNoiser(randx.NewSeeded(11))
	told := 0
	const runs = 200
	for range runs {
		hi, lo := []float64{32}, []float64{31}
		nz.Release(plan, hi)
		nz.Release(plan, lo)
		if hi[0] > 31.5 && lo[0] < 31.5 {
			told++
		}
	}
	if told < runs*9/10 {
		t.Fatalf("under the forged noise 32 and 31 were told apart in %d of %d runs; the attack no longer shows", told, runs)
	}
	t.Logf("legacy owner: grid %v, noise %.3f grid steps, 32 vs 31 told apart in %d of %d runs", plan.Grid, plan.Units(), told, runs)

	s, o := keyed(t)
	for _, kind := range []string{KindHistogram, KindMarginal} {
		q := &Request{Session: s.params.Session, ID: 1, Kind: kind, Column: 1, Cells: 11, Attrs: []int{0},
			Release: measurement.Release{Purpose: "forged", Parties: []int{0}, Noise: forged}}
		if _, err := ask(t, o, q); err == nil || !strings.Contains(err.Error(), "not the owner's own calibration") {
			t.Fatalf("%s with a forged sensitivity: %v", kind, err)
		}
	}
	if n := len(s.accts[0].Charges()); n != 0 {
		t.Fatalf("the owner was charged %d times for refused requests", n)
	}
}

// legacyAddMask keyed the mask by the request ID alone.
func legacyAddMask(words []uint64, seed [32]byte, id uint64, negate bool) {
	var in [40]byte
	copy(in[:32], seed[:])
	binary.LittleEndian.PutUint64(in[32:], id)
	prg := rand.NewChaCha8(sha256.Sum256(in[:]))
	for i := range words {
		if m := prg.Uint64(); negate {
			words[i] -= m
		} else {
			words[i] += m
		}
	}
}

// Reused request IDs: with masks keyed by the ID, two different requests
// under one ID carry the same mask and the difference of an owner's two
// answers is its own counts' difference, unmasked. The owner now answers
// each ID once, and masks keyed by the whole request differ for any two
// different requests.
func TestHostileReusedRequestID(t *testing.T) {
	var seed [32]byte
	seed[0] = 9
	a, b := []uint64{5}, []uint64{12} // an owner's counts plus noise in grid steps
	legacyAddMask(a, seed, 7, false)
	legacyAddMask(b, seed, 7, false)
	if d := int64(b[0] - a[0]); d != 7 {
		t.Fatalf("legacy masks: difference %d, want the unmasked 7", d)
	}

	s, o := keyed(t)
	release := measurement.Release{Purpose: "count", Parties: []int{0}, Noise: mustCalibrate(t, measurement.CountL1, measurement.CountL2, 0.1)}
	first := &Request{Session: s.params.Session, ID: 7, Kind: KindMarginal, Attrs: []int{0}, Release: release}
	second := &Request{Session: s.params.Session, ID: 7, Kind: KindMarginal, Attrs: []int{1}, Release: release}
	if _, err := ask(t, o, first); err != nil {
		t.Fatal(err)
	}
	if _, err := ask(t, o, second); err == nil || !strings.Contains(err.Error(), "was used before") {
		t.Fatalf("a second request under ID 7: %v", err)
	}
	if n := len(s.accts[0].Charges()); n != 1 {
		t.Fatalf("the owner has %d charges, want the one request it answered", n)
	}
	d1, err := first.Digest()
	if err != nil {
		t.Fatal(err)
	}
	d2, err := second.Digest()
	if err != nil {
		t.Fatal(err)
	}
	a, b = []uint64{5}, []uint64{12}
	AddMask(a, seed, d1, false)
	AddMask(b, seed, d2, false)
	if d := int64(b[0] - a[0]); d > -(1<<40) && d < 1<<40 {
		t.Fatalf("masks of two different requests under one ID leave a difference of %d", d)
	}
}

// Substituted keys: the coordinator lists its own X25519 key in another
// owner's place. The old owner checked only its own place, so it derived
// its mask towards that "owner" with the coordinator, which could then
// remove it. The owner now checks each key's signature by the owner it
// stands for.
func TestHostileSubstitutedKey(t *testing.T) {
	s := newSetup(t, NoiseExact, 40, 40)
	keys := s.keys(t)
	o := s.owners[0]
	mine, err := OwnerKey(randx.NewSeeded(99))
	if err != nil {
		t.Fatal(err)
	}
	keys.Keys[1] = mine.PublicKey().Bytes()

	// What the old owner did with that list: accept it (its own key is in
	// place) and derive the pair's seed, which the coordinator derives too.
	if string(keys.Keys[0]) != string(o.key.PublicKey().Bytes()) {
		t.Fatal("the owner's own key is not in place")
	}
	peer, err := ecdh.X25519().NewPublicKey(keys.Keys[1])
	if err != nil {
		t.Fatal(err)
	}
	ownerSide, err := o.key.ECDH(peer)
	if err != nil {
		t.Fatal(err)
	}
	coordSide, err := mine.ECDH(o.key.PublicKey())
	if err != nil {
		t.Fatal(err)
	}
	if PairSeed(s.params.Session, 0, 1, ownerSide) != PairSeed(s.params.Session, 0, 1, coordSide) {
		t.Fatal("the coordinator's substituted key does not give it the owner's mask seed; the attack no longer shows")
	}

	for _, sig := range [][]byte{keys.Sigs[1], mustSign(t, s.auth.owner(0), KeyStatement(s.params.Session, 1, keys.Keys[1]))} {
		keys.Sigs[1] = sig
		if err := o.takeKeys(keys); err == nil || !strings.Contains(err.Error(), "not signed by that owner") {
			t.Fatalf("a substituted key: %v", err)
		}
	}
}

// Malformed and out-of-session requests fail closed, charging nothing:
// references whose product overflows (the old owner panicked after its
// charge), references beyond exact arithmetic (one record's change could
// round to a large step), another session's request, an unknown kind.
func TestHostileMalformedRequests(t *testing.T) {
	score := mustCalibrate(t, measurement.IInDifSensitivity, measurement.IInDifSensitivity, 0.1)
	count := mustCalibrate(t, measurement.CountL1, measurement.CountL2, 0.1)
	refs := func(v float64) [][]float64 {
		a, b := []float64{v, v, v}, make([]float64, 11)
		for i := range b {
			b[i] = v
		}
		return [][]float64{a, b}
	}
	for _, c := range []struct {
		name, want string
		q          Request
	}{
		{"overflowing reference", "not finite", Request{Kind: KindScore, Attrs: []int{0, 1}, Refs: refs(1e200), Release: rel(score)}},
		{"reference beyond exact arithmetic", "beyond exact arithmetic", Request{Kind: KindScore, Attrs: []int{0, 1}, Refs: refs(1e9), Release: rel(score)}},
		{"another session", "is for session", Request{Session: "other", Kind: KindMarginal, Attrs: []int{0}, Release: rel(count)}},
		{"score noise on counts", "not the owner's own calibration", Request{Kind: KindMarginal, Attrs: []int{0}, Release: rel(score)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, o := keyed(t)
			q := c.q
			if q.Session == "" {
				q.Session = s.params.Session
			}
			q.ID = 3
			_, err := ask(t, o, &q)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error saying %q", err, c.want)
			}
			if n := len(s.accts[0].Charges()); n != 0 {
				t.Fatalf("charged %d times for a refused request", n)
			}
		})
	}
	// What the old owner did with the overflowing references: its
	// reference (no finiteness check) made the score +Inf, the charge was
	// recorded, and snapping the score to the grid panicked.
	plan, err := score.Plan(1)
	if err != nil {
		t.Fatal(err)
	}
	big := 1e200
	legacyScore := math.Abs(3 - math.Round(40*big*big/plan.Grid)*plan.Grid)
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("snapping the legacy owner's infinite score did not panic; the attack no longer shows")
			}
		}()
		plan.Snap(legacyScore)
	}()
}

func rel(n measurement.Noise) measurement.Release {
	return measurement.Release{Purpose: "hostile", Parties: []int{0}, Noise: n}
}

func mustCalibrate(t *testing.T, l1, l2, rho float64) measurement.Noise {
	t.Helper()
	n, err := measurement.Calibrate(measurement.Gaussian, l1, l2, rho)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func mustSign(t *testing.T, a KeyAuth, msg []byte) []byte {
	t.Helper()
	sig, err := a.Sign(msg)
	if err != nil {
		t.Fatal(err)
	}
	return sig
}
