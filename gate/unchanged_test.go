package gate

import (
	"math"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/method/methodtest"
	"github.com/dppub/dppub/randx"
)

// The check's result for a fixed seed is what it was before the attacks
// were made faster (early exit, the categorical lower bound, the worker
// pool): every advantage and interval bit for bit, and every detail.
// The tables: 1,500 members and 1,500 held-out rows of Adult; synthetic
// tables of other Adult rows with a share of members copied exactly or
// with their age moved by a year (so the nearest row is at distance 0,
// at 1/90, or farther). The wanted numbers were printed by the
// code before the change.
func TestCheckResultUnchanged(t *testing.T) {
	tab := methodtest.Table(t, "adult")
	perm := randx.NewSeeded(17).Perm(tab.Len())
	real, holdout := tab.Subset(perm[:1500]), tab.Subset(perm[1500:3000])
	moved := func(rows []int) *data.Table {
		m := tab.Subset(rows)
		for _, r := range m.Rows {
			r[0] = min(r[0]+1, m.Schema.Attributes[0].Max)
		}
		return m
	}
	concat := func(ts ...*data.Table) *data.Table {
		out := &data.Table{Schema: ts[0].Schema}
		for _, t := range ts {
			out.Rows = append(out.Rows, t.Rows...)
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		synth *data.Table
		// want is each attack's advantage and interval.
		want [2][3]float64
	}{
		{"other rows", tab.Subset(perm[3000:6000]), [2][3]float64{
			{-0.04564081632653061, -0.11474862756631765, 0.023466994913256434},
			{0.03212244897959193, -0.03702981773168834, 0.10127471569087221}}},
		{"a fifth copied", concat(tab.Subset(perm[3000:5400]), tab.Subset(perm[:600])), [2][3]float64{
			{0.3496775510204082, 0.28574716718742055, 0.41360793485339586},
			{0.194473469387755, 0.126885102183786, 0.262061836591724}}},
		{"a third moved", concat(moved(perm[:1000]), tab.Subset(perm[3000:5000])), [2][3]float64{
			{0.6268530612244898, 0.5754546648966004, 0.6782514575523793},
			{0.3235755102040816, 0.2588757627549081, 0.3882752576532551}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, _ := Check(Options{Real: real, Holdout: holdout, Synthetic: tc.synth, MaxQueries: 700, Source: randx.NewSeeded(23)})
			if res == nil {
				t.Fatal("no result")
			}
			for i, a := range res.Attacks {
				if got := [3]float64{a.Advantage, a.Lower, a.Upper}; got != tc.want[i] {
					t.Errorf("%s: advantage and interval %v, want %v", a.Name, got, tc.want[i])
				}
			}
		})
	}
}

// nearest, which skips rows by their categorical mismatches and stops
// sums early, finds the distance a full scan finds: on Adult (its nine
// categorical columns packed into one word), and on a table of 70 binary
// and 2 numeric columns, of which only the first 64 binary ones pack.
func TestNearestMatchesScan(t *testing.T) {
	adult := methodtest.Table(t, "adult")
	src := randx.NewSeeded(29)
	wide := &data.Table{}
	for j := range 72 {
		a := data.Attribute{Name: "b" + string(rune('A'+j/26)) + string(rune('a'+j%26)), Kind: data.Binary, Categories: []string{"n", "y"}}
		if j >= 70 {
			a = data.Attribute{Name: a.Name, Kind: data.Numeric, Min: 0, Max: 10}
		}
		wide.Schema.Attributes = append(wide.Schema.Attributes, a)
	}
	for range 600 {
		row := make([]float64, 72)
		for j := range 70 {
			// Mostly "n", so that near rows exist.
			if src.Float64() < 0.1 {
				row[j] = 1
			}
		}
		row[70], row[71] = 10*src.Float64(), float64(src.IntN(11))
		wide.Rows = append(wide.Rows, row)
	}
	for _, tc := range []struct {
		name   string
		table  *data.Table
		packed int
	}{
		{"adult", adult.Subset(src.Perm(adult.Len())[:600]), 9},
		{"70 binary columns", wide, 64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sp := newSpace(tc.table.Schema)
			if len(sp.cat) != tc.packed {
				t.Errorf("%d columns packed, want %d", len(sp.cat), tc.packed)
			}
			qs, rows := sp.encodeAll(tc.table.Subset(seq(0, 100))), sp.encodeAll(tc.table.Subset(seq(100, 600)))
			if qs.codes == nil || rows.codes == nil {
				t.Fatal("no codes packed")
			}
			fast := sp.nearestAll(qs, rows)
			for q := range qs.len() {
				scan := math.Inf(1)
				for i := range rows.len() {
					scan = math.Min(scan, sp.dist(qs.row(q), rows.row(i)))
				}
				if fast[q] != scan {
					t.Errorf("query %d: nearest %v, a full scan %v", q, fast[q], scan)
				}
			}
		})
	}
}

func seq(lo, hi int) []int {
	out := make([]int, 0, hi-lo)
	for i := lo; i < hi; i++ {
		out = append(out, i)
	}
	return out
}
