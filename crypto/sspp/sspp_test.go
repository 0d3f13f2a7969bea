package sspp

import (
	"math"
	"math/big"
	"testing"

	"github.com/dppub/dppub/crypto/paillier"
	"github.com/dppub/dppub/randx"
)

// testKey is an INSECURE 512-bit key, fast enough for unit tests.
func testKey(t testing.TB, seed uint64) *paillier.PrivateKey {
	t.Helper()
	sk, err := paillier.GenerateInsecureTestKey(paillier.NewReader(randx.NewSeeded(seed)), 512)
	if err != nil {
		t.Fatal(err)
	}
	return sk
}

// column draws n values in [0, size); constant when size is 1.
func column(src *randx.Source, n, size int) []int32 {
	col := make([]int32, n)
	for r := range col {
		col[r] = int32(src.IntN(size))
	}
	return col
}

// counts is the true contingency table N[i][j] of two columns.
func counts(a []int32, na int, b []int32, nb int) [][]int64 {
	out := make([][]int64, na)
	for i := range out {
		out[i] = make([]int64, nb)
	}
	for r := range a {
		out[a[r]][b[r]]++
	}
	return out
}

func TestPackingRoundTrip(t *testing.T) {
	sk := testKey(t, 4)
	p, err := NewPacking(512, 60)
	if err != nil {
		t.Fatal(err)
	}
	top := new(big.Int).Lsh(big.NewInt(1), 58) // max magnitude below B/2 = 2^59
	vals := []*big.Int{big.NewInt(-5), big.NewInt(1 << 40), new(big.Int).Neg(top), big.NewInt(0), big.NewInt(77), new(big.Int).Sub(top, big.NewInt(1))}
	got, err := p.Unpack(&sk.PublicKey, new(big.Int).Mod(p.Pack(vals), sk.N), len(vals))
	if err != nil {
		t.Fatal(err)
	}
	for i := range vals {
		if got[i].Cmp(vals[i]) != 0 {
			t.Fatalf("slot %d = %v, want %v", i, got[i], vals[i])
		}
	}
	if _, err := p.Unpack(&sk.PublicKey, p.Pack(vals), 3); err == nil {
		t.Fatal("decoding too few slots does not report the overflow")
	}
	// Packing ciphertexts homomorphically agrees with packing plaintexts.
	src := randx.NewSeeded(5)
	cts, err := EncryptBatch(&sk.PublicKey, vals, src, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range p.PackAll(&sk.PublicKey, cts, 2) {
		m, err := sk.Decrypt(c)
		if err != nil {
			t.Fatal(err)
		}
		if d, err := p.Unpack(&sk.PublicKey, m, len(vals)); err != nil || d[2].Cmp(vals[2]) != 0 {
			t.Fatalf("homomorphic packing decoded to %v, %v", d, err)
		}
	}
}

func TestNewPackingRejects(t *testing.T) {
	for _, c := range []struct{ key, slot int }{{64, 100}, {512, 1}, {2, 2}} {
		if _, err := NewPacking(c.key, c.slot); err == nil {
			t.Errorf("NewPacking(%d, %d) accepted", c.key, c.slot)
		}
	}
}

// goethals runs the packed Goethals scalar product of Alice's columns
// (one unit per column) against Bob's column and returns Alice's and
// Bob's shares per unit, value i and Bob's value j.
func goethals(t *testing.T, sk *paillier.PrivateKey, alice [][]int32, sizes []int, bob []int32, groups int, src *randx.Source) (u, v [][][]*big.Int) {
	t.Helper()
	n := len(bob)
	maskBits := 40 + 16
	p, err := NewPacking(sk.Bits(), maskBits+2)
	if err != nil {
		t.Fatal(err)
	}
	l := NewLayout(p, sizes)
	vec, err := EncryptOneHots(&sk.PublicKey, l, alice, src, 2)
	if err != nil {
		t.Fatal(err)
	}
	u, v = make([][][]*big.Int, len(sizes)), make([][][]*big.Int, len(sizes))
	digits := make([][][]*big.Int, l.Blocks) // block → group → slot
	masks := make([][][]*big.Int, l.Blocks)
	for b := range l.Blocks {
		if len(vec[b]) != n {
			t.Fatalf("block %d has %d ciphertexts for %d records", b, len(vec[b]), n)
		}
		replies, m, err := Reply(&sk.PublicKey, p, vec[b], bob, groups, maskBits, src, 2)
		if err != nil {
			t.Fatal(err)
		}
		if digits[b], err = DecryptReplies(sk, p, replies, 2); err != nil {
			t.Fatal(err)
		}
		masks[b] = m
	}
	for unit, size := range sizes {
		u[unit], v[unit] = make([][]*big.Int, size), make([][]*big.Int, size)
		for i := range size {
			blk, s := l.Digit(unit, i)
			for j := range groups {
				u[unit][i] = append(u[unit][i], digits[blk][j][s])
				v[unit][i] = append(v[unit][i], masks[blk][j][s])
			}
		}
	}
	return u, v
}

// TestGoethalsMatchesCounts checks that Alice's and Bob's shares add up to
// the true counts, exactly, in the integers.
func TestGoethalsMatchesCounts(t *testing.T) {
	sk := testKey(t, 1)
	cases := []struct {
		name   string
		n      int
		sizes  []int // Alice's units
		groups int   // Bob's values
		// fill chooses the columns; nil draws them at random.
		fill func(r, unit int) int32
	}{
		{"random, two units", 120, []int{3, 5}, 4, nil},
		{"units straddling blocks", 60, []int{7, 7, 7}, 2, nil},
		{"all records on value 0", 50, []int{4}, 3, func(int, int) int32 { return 0 }},
		{"all records on the last value", 50, []int{4}, 3, func(_, _ int) int32 { return 3 }},
		{"no records", 0, []int{2}, 2, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := randx.NewSeeded(uint64(len(c.name)))
			alice := make([][]int32, len(c.sizes))
			for unit, size := range c.sizes {
				alice[unit] = column(src, c.n, size)
				if c.fill != nil {
					for r := range alice[unit] {
						alice[unit][r] = c.fill(r, unit)
					}
				}
			}
			bob := column(src, c.n, c.groups)
			u, v := goethals(t, sk, alice, c.sizes, bob, c.groups, src)
			for unit, size := range c.sizes {
				want := counts(alice[unit], size, bob, c.groups)
				for i := range size {
					for j := range c.groups {
						got := new(big.Int).Add(u[unit][i][j], v[unit][i][j])
						if got.Cmp(big.NewInt(want[i][j])) != 0 {
							t.Fatalf("unit %d cell (%d, %d): u + v = %v, want %d", unit, i, j, got, want[i][j])
						}
					}
				}
			}
		})
	}
}

// TestGoethalsChainThroughSelect checks a three-party product: a middle
// party's selection keeps exactly the records with its value.
func TestGoethalsChainThroughSelect(t *testing.T) {
	sk := testKey(t, 2)
	src := randx.NewSeeded(3)
	const n, na, nm, nb = 80, 3, 2, 4
	a, mid, b := column(src, n, na), column(src, n, nm), column(src, n, nb)
	p, _ := NewPacking(sk.Bits(), 58)
	l := NewLayout(p, []int{na})
	vec, err := EncryptOneHots(&sk.PublicKey, l, [][]int32{a}, src, 2)
	if err != nil {
		t.Fatal(err)
	}
	for k := range int32(nm) {
		sel, err := Select(&sk.PublicKey, vec[0], mid, k, src, 2)
		if err != nil {
			t.Fatal(err)
		}
		replies, masks, err := Reply(&sk.PublicKey, p, sel, b, nb, 56, src, 2)
		if err != nil {
			t.Fatal(err)
		}
		d, err := DecryptReplies(sk, p, replies, 2)
		if err != nil {
			t.Fatal(err)
		}
		for i := range na {
			for j := range nb {
				var want int64
				for r := range n {
					if a[r] == int32(i) && mid[r] == k && b[r] == int32(j) {
						want++
					}
				}
				if got := new(big.Int).Add(d[j][i], masks[j][i]); got.Int64() != want {
					t.Fatalf("middle value %d, cell (%d, %d): %v, want %d", k, i, j, got, want)
				}
			}
		}
	}
}

func TestGoethalsRejects(t *testing.T) {
	sk := testKey(t, 1)
	pk := &sk.PublicKey
	src := randx.NewSeeded(1)
	p, _ := NewPacking(512, 58)
	l := NewLayout(p, []int{3})
	vec, err := EncryptOneHots(pk, l, [][]int32{{0, 1, 2}}, src, 1)
	if err != nil {
		t.Fatal(err)
	}
	refusals(t, []refusal{
		{"column count", func() error { _, err := EncryptOneHots(pk, l, [][]int32{{0}, {1}}, src, 1); return err }},
		{"column lengths", func() error {
			_, err := EncryptOneHots(pk, NewLayout(p, []int{3, 3}), [][]int32{{0, 1}, {1}}, src, 1)
			return err
		}},
		{"value out of range", func() error { _, err := EncryptOneHots(pk, l, [][]int32{{3}}, src, 1); return err }},
		{"negative value", func() error { _, err := EncryptOneHots(pk, l, [][]int32{{-1}}, src, 1); return err }},
		{"reply length mismatch", func() error { _, _, err := Reply(pk, p, vec[0], []int32{0, 1}, 2, 56, src, 1); return err }},
		{"reply group out of range", func() error { _, _, err := Reply(pk, p, vec[0], []int32{0, 1, 2}, 2, 56, src, 1); return err }},
		{"masks wider than slots", func() error { _, _, err := Reply(pk, p, vec[0], []int32{0, 1, 1}, 2, 57, src, 1); return err }},
		{"select length mismatch", func() error { _, err := Select(pk, vec[0], []int32{0}, 0, src, 1); return err }},
		{"no key share", func() error { _, err := PartialDecryptBatch(nil, vec[0], 1); return err }},
	})
}

// TestSignStep checks the Paillier sign step end to end with a 2-of-2
// shared key: the decoded signs are those of t = Â − n·2^f·N, and AbsSum
// decrypts to Σ|t|.
func TestSignStep(t *testing.T) {
	src := randx.NewSeeded(8)
	pk, shares, err := paillier.DealInsecureTest(paillier.NewReader(src.Child()), 512, 2)
	if err != nil {
		t.Fatal(err)
	}
	const n, frac, statBits = 100, 16, 40
	counts := []int64{0, 3, 10, 100, 25, 7}    // n·N_c split below into two shares
	ref := []float64{0, 3.2, 9.1, 100, 30, -1} // Â/n; |t| up to n²·2^f
	ahat := make([]*big.Int, len(counts))
	sx, sy := make([]*big.Int, len(counts)), make([]*big.Int, len(counts))
	for c, nc := range counts {
		if ahat[c], err = FixedPoint(ref[c]*n, frac); err != nil {
			t.Fatal(err)
		}
		sx[c] = big.NewInt(nc*7 - 1000) // arbitrary integer shares of N_c
		sy[c] = big.NewInt(nc - nc*7 + 1000)
	}
	cx, _ := EncryptBatch(pk, sx, src, 2)
	cy, _ := EncryptBatch(pk, sy, src, 2)
	scale := new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(n), frac))
	tc, blinded, err := BlindSigns(pk, cx, cy, ahat, scale, statBits, src, 2)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPacking(pk.Bits(), 2*7+frac+statBits+2)
	if err != nil {
		t.Fatal(err)
	}
	decrypt := func(c *paillier.Ciphertext) *big.Int {
		pds := make([]*paillier.PartialDecryption, 2)
		for i, s := range shares {
			d, err := PartialDecryptBatch(s, []*paillier.Ciphertext{c}, 1)
			if err != nil {
				t.Fatal(err)
			}
			pds[i] = d[0]
		}
		m, err := paillier.Combine(pk, shares[0].Sharing, c, pds)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	var plains []*big.Int
	for _, c := range p.PackAll(pk, blinded, 2) {
		plains = append(plains, decrypt(c))
	}
	bits, err := DecodeSigns(pk, p, plains, len(counts))
	if err != nil {
		t.Fatal(err)
	}
	var want float64
	for c, nc := range counts {
		tv := ref[c]*n*(1<<frac) - float64(n*nc)*(1<<frac)
		if (tv < 0) != (bits[c] == 1) {
			t.Fatalf("cell %d: t = %g, sign bit %d", c, tv, bits[c])
		}
		want += math.Abs(tv)
	}
	sum, err := AbsSum(pk, tc, bits)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := new(big.Float).SetInt(pk.Signed(decrypt(sum))).Float64(); math.Abs(got-want) > float64(len(counts)) {
		t.Fatalf("Σ|t| = %g, want %g", got, want)
	}
	if _, _, err := BlindSigns(pk, cx[:2], cy, ahat, scale, statBits, src, 1); err == nil {
		t.Fatal("BlindSigns accepted shares of the wrong length")
	}
	if _, err := AbsSum(pk, tc, bits[:1]); err == nil {
		t.Fatal("AbsSum accepted too few signs")
	}
	if _, err := DecodeSigns(pk, p, plains, len(counts)+p.Slots); err == nil {
		t.Fatal("DecodeSigns accepted too few plaintexts")
	}
	if _, err := FixedPoint(math.NaN(), frac); err == nil {
		t.Fatal("FixedPoint encoded NaN")
	}
}

// refusal is a call that must fail, named for what is wrong with it.
type refusal struct {
	name string
	err  func() error
}

// refusals checks that each call fails.
func refusals(t *testing.T, cases []refusal) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.err() == nil {
				t.Fatal("accepted")
			}
		})
	}
}
