package psi

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"filippo.io/edwards25519"
	"github.com/dppub/dppub/randx"
)

// runRing runs the steps as the ring protocol does, in one place: every
// party blinds its own set, every other party re-blinds it, then Common.
// It returns, per party, its rows in the intersection in the common order.
func runRing(t testing.TB, sets [][]string, src *randx.Source) [][]int {
	t.Helper()
	k := len(sets)
	keys := make([]*Key, k)
	for i := range keys {
		var err error
		if keys[i], err = NewKey(src.Child()); err != nil {
			t.Fatal(err)
		}
	}
	full := make([][]Element, k)
	rows := make([][]int, k)
	for i, ids := range sets {
		elems, r, err := keys[i].Blind(ids)
		if err != nil {
			t.Fatal(err)
		}
		rows[i] = r
		for hop := 1; hop < k; hop++ {
			if elems, err = keys[(i+hop)%k].Reblind(elems); err != nil {
				t.Fatal(err)
			}
		}
		full[i] = elems
	}
	pos, err := Common(full)
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]int, k)
	for i := range pos {
		for _, p := range pos[i] {
			out[i] = append(out[i], rows[i][p])
		}
	}
	return out
}

// overlapSets gives k parties n IDs each, of which common are held by all
// (the others are each party's own), every party's rows in its own
// shuffled order.
func overlapSets(k, n, common int, src *randx.Source) ([][]string, []string) {
	shared := make([]string, common)
	for c := range shared {
		shared[c] = fmt.Sprintf("person-%d", c)
	}
	sets := make([][]string, k)
	for i := range sets {
		ids := slices.Clone(shared)
		for j := common; j < n; j++ {
			ids = append(ids, fmt.Sprintf("party%d-only-%d", i, j))
		}
		src.Shuffle(len(ids), func(a, b int) { ids[a], ids[b] = ids[b], ids[a] })
		sets[i] = ids
	}
	return sets, shared
}

func TestIntersection(t *testing.T) {
	for _, c := range []struct {
		name         string
		k, n, common int
	}{
		{"overlap 0%", 3, 200, 0},
		{"overlap 50%", 3, 200, 100},
		{"overlap 100%", 3, 200, 200},
		{"4 parties 50%", 4, 100, 50},
		{"2 parties 50%", 2, 100, 50},
		{"empty sets", 3, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := randx.NewSeeded(uint64(7 + c.common))
			sets, shared := overlapSets(c.k, c.n, c.common, src)
			got := runRing(t, sets, src)
			for i := range got {
				if len(got[i]) != c.common {
					t.Fatalf("party %d found %d common rows, want %d", i, len(got[i]), c.common)
				}
			}
			// Every party's j-th common row holds the same ID, and the IDs
			// found are exactly the shared ones.
			var order []string
			for _, r := range got[0] {
				order = append(order, sets[0][r])
			}
			for i := 1; i < c.k; i++ {
				for j, r := range got[i] {
					if sets[i][r] != order[j] {
						t.Fatalf("position %d: party %d holds %q, party 0 %q", j, i, sets[i][r], order[j])
					}
				}
			}
			slices.Sort(order)
			want := slices.Clone(shared)
			slices.Sort(want)
			if !slices.Equal(order, want) {
				t.Errorf("intersection %v…, want %v…", head(order), head(want))
			}
		})
	}
}

func head(s []string) []string { return s[:min(3, len(s))] }

// The common order is neither party 0's row order nor the IDs' order:
// it is that of the fully blinded elements.
func TestCommonOrderHidesRowsAndIDs(t *testing.T) {
	ids := make([]string, 100)
	for i := range ids {
		ids[i] = fmt.Sprintf("id-%03d", i)
	}
	got := runRing(t, [][]string{ids, slices.Clone(ids), slices.Clone(ids)}, randx.NewSeeded(3))
	if slices.IsSorted(got[0]) {
		t.Error("the common order is the row order (and the sorted ID order)")
	}
}

func TestRefusals(t *testing.T) {
	key, err := NewKey(randx.NewSeeded(1))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, want string
		ids        []string
	}{
		{"duplicate ID", `ID "b" is on rows 1 and 2`, []string{"a", "b", "b"}},
		{"empty ID", "ID of row 1 is empty", []string{"a", ""}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, _, err := key.Blind(c.ids); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Blind(%q): %v, want an error saying %q", c.ids, err, c.want)
			}
		})
	}
	// A small-order point (order 2: (0, -1)) and bytes off the curve.
	var order2 Element
	order2[0] = 0xec
	for i := 1; i < 31; i++ {
		order2[i] = 0xff
	}
	order2[31] = 0x7f
	var offCurve Element
	offCurve[0] = 2 // y = 2 has no x on edwards25519
	for _, c := range []struct {
		name string
		e    Element
		want string
	}{
		{"small order", order2, "small-order point"},
		{"off the curve", offCurve, "not a point"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := key.Reblind([]Element{HashToGroup("x"), c.e}); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Reblind: %v, want an error saying %q", err, c.want)
			}
		})
	}
	dup := []Element{HashToGroup("x"), HashToGroup("x")}
	if _, err := Common([][]Element{dup, dup}); err == nil {
		t.Error("Common accepted a set holding an element twice")
	}
	if _, err := Common([][]Element{dup[:1]}); err == nil {
		t.Error("Common accepted one set")
	}
	if _, err := NewKey(nil); err == nil {
		t.Error("NewKey accepted a nil source")
	}
}

// HashToGroup lands in the prime-order subgroup, off the identity,
// deterministically, and separates IDs (including ones that only differ
// by where a prefix ends).
func TestHashToGroup(t *testing.T) {
	minusOne := edwards25519.NewScalar().Subtract(edwards25519.NewScalar(), scalarOne())
	seen := map[Element]string{}
	for i := range 200 {
		id := fmt.Sprintf("%d", i)
		e := HashToGroup(id)
		if HashToGroup(id) != e {
			t.Fatalf("HashToGroup(%q) is not deterministic", id)
		}
		if prev, dup := seen[e]; dup {
			t.Fatalf("%q and %q hash to the same element", prev, id)
		}
		seen[e] = id
		p, err := new(edwards25519.Point).SetBytes(e[:])
		if err != nil {
			t.Fatal(err)
		}
		// (ℓ−1)·P = −P exactly when ℓ·P is the identity.
		q := new(edwards25519.Point).ScalarMult(minusOne, p)
		if q.Equal(new(edwards25519.Point).Negate(p)) != 1 || e == identity {
			t.Fatalf("HashToGroup(%q) is not a non-identity element of the prime-order subgroup", id)
		}
	}
}

func scalarOne() *edwards25519.Scalar {
	b := make([]byte, 32)
	b[0] = 1
	s, _ := edwards25519.NewScalar().SetCanonicalBytes(b)
	return s
}

// Blinding commutes: a·(b·H) = b·(a·H), the property the ring relies on.
func TestBlindingCommutes(t *testing.T) {
	src := randx.NewSeeded(9)
	a, _ := NewKey(src)
	b, _ := NewKey(src)
	ea, _, _ := a.Blind([]string{"alice"})
	eb, _, _ := b.Blind([]string{"alice"})
	ab, err := b.Reblind(ea)
	if err != nil {
		t.Fatal(err)
	}
	ba, err := a.Reblind(eb)
	if err != nil {
		t.Fatal(err)
	}
	if ab[0] != ba[0] || ea[0] == eb[0] {
		t.Errorf("a·b·H = %x, b·a·H = %x, a·H = %x, b·H = %x", ab[0][:4], ba[0][:4], ea[0][:4], eb[0][:4])
	}
}

// BenchmarkThreeParties50000 is the target: 3 parties holding
// 50 000 IDs each (half of them common), every step of the ring in one
// process: 3 hashings and blindings, 6 re-blindings, Common.
func BenchmarkThreeParties50000(b *testing.B) {
	src := randx.NewSeeded(1)
	sets, _ := overlapSets(3, 50000, 25000, src)
	for b.Loop() {
		got := runRing(b, sets, src)
		if len(got[0]) != 25000 {
			b.Fatalf("%d common rows", len(got[0]))
		}
	}
}

// BenchmarkStep times one party's blinding of 50 000 IDs and one
// re-blinding of 50 000 elements.
func BenchmarkStep(b *testing.B) {
	sets, _ := overlapSets(1, 50000, 0, randx.NewSeeded(1))
	key, _ := NewKey(randx.NewSeeded(2))
	b.Run("blind", func(b *testing.B) {
		for b.Loop() {
			_, _, _ = key.Blind(sets[0])
		}
	})
	elems, _, _ := key.Blind(sets[0])
	b.Run("reblind", func(b *testing.B) {
		for b.Loop() {
			_, _ = key.Reblind(elems)
		}
	})
}

// The batched encoding is byte for byte Point.Bytes, for batches full and
// partial.
func TestBatchEncoding(t *testing.T) {
	key, err := NewKey(randx.NewSeeded(9))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 7, batchSize, batchSize + 3} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			out := make([]Element, n)
			want := make([]Element, n)
			var b batch
			for i := range n {
				p := key.mulPoint(hashPoint(fmt.Sprintf("id-%d", i)))
				copy(want[i][:], p.Bytes())
				b.add(p, &out[i])
			}
			b.flush()
			for i := range n {
				if out[i] != want[i] {
					t.Fatalf("point %d of %d: batch %x, Bytes %x", i, n, out[i][:4], want[i][:4])
				}
			}
		})
	}
}
