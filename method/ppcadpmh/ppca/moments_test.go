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

// AddSplit of rows plus AddUnits of their unit columns' counts is
// AddSparse of the same rows, bit for bit: on random rows whose unit
// columns hold 0 or 1 and whose other columns hold anything in [0, 1]
// (exact 1s and tiny values included), and on Adult encoded.
func TestAddSplitEqualsAddSparse(t *testing.T) {
	src := randx.NewSeeded(11)
	const p = 13
	unit := make([]bool, p)
	for i := range unit {
		unit[i] = i%3 != 1
	}
	var rows [][]float64
	for range 3000 {
		row := make([]float64, p)
		for i := range row {
			switch r := src.IntN(6); {
			case unit[i]:
				row[i] = float64(r % 2)
			case r == 0:
				row[i] = 1
			case r == 1:
				row[i] = math.Ldexp(src.Float64(), -70)
			case r > 2:
				row[i] = src.Float64()
			}
		}
		rows = append(rows, row)
	}
	tab, enc := adult(t)
	X, _, err := enc.Encode(tab)
	if err != nil {
		t.Fatal(err)
	}
	adultUnit := make([]bool, enc.Dim())
	for _, a := range tab.Schema.Attributes {
		if a.Kind == data.Numeric {
			continue
		}
		cols, err := enc.Columns(a.Name)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cols {
			adultUnit[c] = true
		}
	}
	var adultRows [][]float64
	for i := range tab.Len() {
		adultRows = append(adultRows, X.RawRowView(i))
	}
	for _, c := range []struct {
		name string
		unit []bool
		rows [][]float64
	}{{"random", unit, rows}, {"adult", adultUnit, adultRows}} {
		t.Run(c.name, func(t *testing.T) {
			p := len(c.unit)
			want, got := NewMoments(p), NewMoments(p)
			pairs := make([]uint64, p*p)
			var num, units []int
			var val []float64
			for _, row := range c.rows {
				want.AddDense(row)
				num, val, units = num[:0], val[:0], units[:0]
				for i, x := range row {
					switch {
					case x == 0:
					case c.unit[i]:
						units = append(units, i)
					default:
						num, val = append(num, i), append(val, x)
					}
				}
				got.AddSplit(num, val, units)
				for a, i := range units {
					for _, j := range units[a:] {
						pairs[i*p+j]++
					}
				}
			}
			if got.Equal(want) {
				t.Fatal("AddSplit alone already equals AddSparse: the test sees no unit terms")
			}
			for i := range p {
				if c := pairs[i*p+i]; c > 0 {
					got.AddUnits(i, -1, c)
				}
				for j := i; j < p; j++ {
					if c := pairs[i*p+j]; c > 0 {
						got.AddUnits(i, j, c)
					}
				}
			}
			if !got.Equal(want) {
				t.Fatal("AddSplit + AddUnits differ from AddSparse")
			}
		})
	}
}
