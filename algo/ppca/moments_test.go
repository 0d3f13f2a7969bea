package ppca

import (
	"math"
	"math/big"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/internal/testenv"
	"github.com/dppub/dppub/linalg"
	"github.com/dppub/dppub/randx"
)

// Every fixed-point term is the exact product truncated: t·2^-62 ≤ a·b <
// (t+1)·2^-62, checked in exact arithmetic on random pairs and on pairs
// whose rounded product is a multiple of 2^-62 (where the FMA correction
// matters).
func TestFixProductTruncatesExactly(t *testing.T) {
	src := randx.NewSeeded(3)
	pairs := [][2]float64{{1, 1}, {0.5, 0.5}, {1, 0}, {math.Nextafter(1, 0), math.Nextafter(1, 0)}}
	for range 20000 {
		pairs = append(pairs, [2]float64{src.Float64(), src.Float64()})
		// a·b near a multiple of 2^-62: b = k/a rounded.
		a := 0.5 + src.Float64()/2
		pairs = append(pairs, [2]float64{a, math.Ldexp(float64(src.Uint64N(1<<40)), -40) / a})
	}
	for _, pr := range pairs {
		a, b := pr[0], pr[1]
		if b > 1 {
			continue
		}
		exact := new(big.Float).SetPrec(300).Mul(big.NewFloat(a).SetPrec(300), big.NewFloat(b))
		exact.SetMantExp(exact, FracBits)
		tv := fixProduct(a, b)
		lo := new(big.Float).SetUint64(tv)
		hi := new(big.Float).SetUint64(tv + 1)
		if lo.Cmp(exact) > 0 || hi.Cmp(exact) <= 0 {
			t.Fatalf("fixProduct(%v, %v) = %d, exact %s·2^-62", a, b, tv, exact.Text('g', 30))
		}
	}
}

func adult(t *testing.T) (*data.Table, *data.Encoder) {
	t.Helper()
	tab, err := datasets.LoadFrom("adult", testenv.SharedData(t, "adult"))
	if err != nil {
		t.Fatal(err)
	}
	enc, err := data.NewEncoder(tab.Schema, data.EncoderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tab, enc
}

// On Adult (45 222 rows, 6 numeric columns among 106): the one-pass
// sums do not depend on the number of cores (bit for bit); they equal the
// dense matrix's; their count entries (products of one-hot columns) equal
// the float sum exactly; every other entry is within the float sum's error bound n·2^-52·|v|; and
// snapped to the plan's release grids every entry equals the old float
// path's snap, i.e. the seeded releases are unchanged on Adult.
func TestTableMomentsOnAdult(t *testing.T) {
	tab, enc := adult(t)
	one, clamped, err := TableMoments(tab, enc, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{2, 3, 7} {
		m, c, err := TableMoments(tab, enc, w)
		if err != nil {
			t.Fatal(err)
		}
		if !m.Equal(one) || c != clamped {
			t.Fatalf("%d workers: sums differ from one worker's", w)
		}
	}
	X, _, err := enc.Encode(tab)
	if err != nil {
		t.Fatal(err)
	}
	if !DenseMoments(X, 2).Equal(one) {
		t.Fatal("dense and table moments differ")
	}
	sum, outer := linalg.Moments(X)
	packed := one.Packed()
	old := append([]float64(nil), sum...)
	for i := range sum {
		for j := i; j < len(sum); j++ {
			old = append(old, outer.At(i, j))
		}
	}
	n := float64(tab.Len())
	integers := 0
	for k, v := range packed {
		if old[k] == math.Trunc(old[k]) && v == math.Trunc(v) {
			integers++
			if v != old[k] {
				t.Fatalf("count entry %d: %v, float sum %v", k, v, old[k])
			}
		}
		if math.Abs(v-old[k]) > n*math.Ldexp(1, -52)*max(1, math.Abs(v)) {
			t.Fatalf("entry %d: %v, float sum %v", k, v, old[k])
		}
	}
	if integers < len(packed)/2 {
		t.Fatalf("only %d of %d entries are counts", integers, len(packed))
	}
	b := RowBounds{P: enc.Dim()}
	for _, a := range enc.Attributes() {
		cols, _ := enc.Columns(a)
		b.Groups = append(b.Groups, len(cols))
	}
	plan, err := NewPlan(PlanOptions{Calibration: Sound, Mechanism: Laplace, Epsilon: 1, Bounds: b})
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range packed {
		g := plan.BlockNoise(k, enc.Dim())
		if g.Snap(v) != g.Snap(old[k]) {
			t.Errorf("entry %d snaps to %v, the float sum to %v", k, g.Snap(v), g.Snap(old[k]))
		}
	}
	var back Moments
	bin, _ := one.MarshalBinary()
	if err := back.UnmarshalBinary(bin); err != nil || !back.Equal(one) {
		t.Fatalf("round trip: %v", err)
	}
}
