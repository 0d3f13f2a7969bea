package sspp

import (
	"math"
	"slices"
	"testing"

	"github.com/dppub/dppub/randx"
)

// commodity runs the whole commodity-server product of U (n × du) and
// the one-hot Z given by col, and returns u + v.
func commodity(t *testing.T, mode Mode, u []uint64, du int, col []int32, dz int, src *randx.Source) []uint64 {
	t.Helper()
	n := len(col)
	sa, sb, srb := NewSeed(src), NewSeed(src), NewSeed(src)
	corr, err := Correction(mode, du, dz, Expand(sa, n*du), Expand(sb, n*dz), srb, 2)
	if err != nil {
		t.Fatal(err)
	}
	maskedU := MaskWords(u, sa)
	maskedZ, err := MaskOneHot(col, dz, sb)
	if err != nil {
		t.Fatal(err)
	}
	a, err := ShareA(mode, du, dz, Expand(sa, n*du), corr, maskedZ, 2)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ShareB(mode, du, dz, maskedU, col, srb, 2)
	if err != nil {
		t.Fatal(err)
	}
	AddInto(a, b)
	return a
}

// plainProduct is UᵀZ (Sum) or the per-record U_r ⊗ e_{col_r} (Row).
func plainProduct(mode Mode, u []uint64, du int, col []int32, dz int) []uint64 {
	n := len(col)
	if mode == Sum {
		want := make([]uint64, du*dz)
		for r := range n {
			for i := range du {
				want[i*dz+int(col[r])] += u[r*du+i]
			}
		}
		return want
	}
	want := make([]uint64, n*du*dz)
	for r := range n {
		for i := range du {
			want[r*du*dz+i*dz+int(col[r])] = u[r*du+i]
		}
	}
	return want
}

// TestCommodityMatchesPlaintext checks u + v = UᵀZ (Sum) and U_r ⊗ Z_r
// (Row) mod 2^64 against direct computation.
func TestCommodityMatchesPlaintext(t *testing.T) {
	cases := []struct {
		name       string
		n, du, dz  int
		word       func(src *randx.Source) uint64
		valueOfRow func(src *randx.Source, r, dz int) int32
	}{
		{"arbitrary words", 1000, 3, 4, func(s *randx.Source) uint64 { return s.Uint64() }, nil},
		{"zero matrix", 300, 2, 5, func(*randx.Source) uint64 { return 0 }, nil},
		{"max-magnitude words", 300, 2, 3, func(*randx.Source) uint64 { return math.MaxUint64 }, nil},
		{"min int64 words", 200, 4, 2, func(*randx.Source) uint64 { return 1 << 63 }, nil},
		{"one value for all records", 257, 3, 3, func(s *randx.Source) uint64 { return s.Uint64() }, func(_ *randx.Source, _, dz int) int32 { return int32(dz - 1) }},
		{"one record", 1, 1, 1, func(s *randx.Source) uint64 { return s.Uint64() }, nil},
		{"no records", 0, 2, 2, func(s *randx.Source) uint64 { return s.Uint64() }, nil},
	}
	for _, c := range cases {
		for _, mode := range []Mode{Sum, Row} {
			t.Run(c.name+map[Mode]string{Sum: "/sum", Row: "/row"}[mode], func(t *testing.T) {
				src := randx.NewSeeded(uint64(c.n*31 + c.du))
				u := make([]uint64, c.n*c.du)
				for i := range u {
					u[i] = c.word(src)
				}
				col := column(src, c.n, c.dz)
				if c.valueOfRow != nil {
					for r := range col {
						col[r] = c.valueOfRow(src, r, c.dz)
					}
				}
				got := commodity(t, mode, u, c.du, col, c.dz, src)
				if want := plainProduct(mode, u, c.du, col, c.dz); !slices.Equal(got, want) {
					t.Fatalf("u + v = %v, want %v", got[:min(8, len(got))], want[:min(8, len(want))])
				}
			})
		}
	}
}

func TestCommodityRejects(t *testing.T) {
	src := randx.NewSeeded(2)
	s := NewSeed(src)
	ra := Expand(s, 10*2) // 10 records, du = 2
	rb := Expand(s, 10*3) // dz = 3
	col := column(src, 10, 3)
	refusals(t, []refusal{
		{"correction rows differ", func() error { _, err := Correction(Sum, 2, 3, ra, rb[:27], s, 1); return err }},
		{"correction zero width", func() error { _, err := Correction(Sum, 0, 3, ra, rb, s, 1); return err }},
		{"share A correction length", func() error { _, err := ShareA(Sum, 2, 3, ra, make([]uint64, 5), rb, 1); return err }},
		{"share A row-mode correction", func() error { _, err := ShareA(Row, 2, 3, ra, make([]uint64, 6), rb, 1); return err }},
		{"share A rows differ", func() error { _, err := ShareA(Sum, 2, 3, ra, make([]uint64, 6), rb[:3], 1); return err }},
		{"share B input length", func() error { _, err := ShareB(Sum, 2, 3, ra[:4], col, s, 1); return err }},
		{"share B value out of range", func() error { _, err := ShareB(Sum, 2, 2, ra, col, s, 1); return err }},
		{"one-hot value out of range", func() error { _, err := MaskOneHot([]int32{0, 3}, 3, s); return err }},
		{"sign queries differ", func() error { _, err := SignBits(make([]uint64, 2), make([]uint64, 3)); return err }},
		{"too few signs", func() error { _, err := AbsShare(s, 1, make([]uint64, 3), make([]uint64, 2)); return err }},
	})
}

// TestCommoditySignStep checks that the pair's shares of Σ|t| add up to
// Σ|t| whatever the split of t, for t across its whole allowed range.
func TestCommoditySignStep(t *testing.T) {
	src := randx.NewSeeded(6)
	limit := int64(1) << (62 - SignMaskBits) // |t|·r must stay below 2^62
	ts := []int64{0, 1, -1, 7, -7, limit - 1, -(limit - 1), 123456, -98765}
	pair := NewSeed(src)
	a, b := make([]uint64, len(ts)), make([]uint64, len(ts))
	var want uint64
	for i, v := range ts {
		a[i] = src.Uint64()
		b[i] = uint64(v) - a[i]
		want += uint64(max(v, -v))
	}
	for id := range uint64(5) {
		bits, err := SignBits(SignQuery(pair, id, a, true), SignQuery(pair, id, b, false))
		if err != nil {
			t.Fatal(err)
		}
		ua, err := AbsShare(pair, id, a, bits)
		if err != nil {
			t.Fatal(err)
		}
		ub, _ := AbsShare(pair, id, b, bits)
		if ua+ub != want {
			t.Fatalf("request %d: Σ|t| shares add to %d, want %d", id, int64(ua+ub), want)
		}
	}
}

func TestSplitWords(t *testing.T) {
	src := randx.NewSeeded(9)
	words := []uint64{0, 1, math.MaxUint64, 1 << 63}
	for _, parts := range []int{1, 2, 5} {
		sum := make([]uint64, len(words))
		for _, p := range SplitWords(words, parts, src) {
			AddInto(sum, p)
		}
		if !slices.Equal(sum, words) {
			t.Fatalf("%d parts add to %v, want %v", parts, sum, words)
		}
	}
}

func TestMaskCacheReuses(t *testing.T) {
	c := MaskCache{}
	s := NewSeed(randx.NewSeeded(1))
	a := c.Get(s, 16, true)
	if b := c.Get(s, 16, true); &a[0] != &b[0] {
		t.Fatal("kept mask expanded again")
	}
	if b := c.Get(s, 16, false); &a[0] == &b[0] || !slices.Equal(a, b) {
		t.Fatal("an uncached mask should be a fresh copy of the same stream")
	}
}
