package domain

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/engine/marginal/internal/enginetest"
	"github.com/dppub/dppub/randx"
)

// piecesOf cuts rows [lo, hi) of ds into pieces of at most k rows, as a
// reader's batches (narrow columns where the domain allows).
func piecesOf(ds *Dataset, lo, hi, k int) Chunks {
	var cs Chunks
	for ; lo < hi; lo += k {
		n := min(k, hi-lo)
		c := newCells(ds.Sizes, n)
		for j := range ds.Sizes {
			for i := range n {
				c.Set(j, i, int(ds.Cols[j][lo+i]))
			}
		}
		cs = append(cs, c)
	}
	return cs
}

// tupleCount is the number of distinct records of ds.
func tupleCount(ds *Dataset) int {
	seen := map[string]bool{}
	key := make([]byte, 2*len(ds.Sizes))
	for i := range ds.Len() {
		for j := range ds.Sizes {
			key[2*j], key[2*j+1] = uint8(ds.Cols[j][i]), uint8(ds.Cols[j][i]>>8)
		}
		seen[string(key)] = true
	}
	return len(seen)
}

// checkCounts fails unless every set's counts over cs (CountAll) are
// ds's, over the same attributes.
func checkCounts(t *testing.T, cs Chunks, ds *Dataset, sets [][]int) {
	t.Helper()
	got, err := cs.CountAll(sets)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range sets {
		want, _ := Count(ds, s)
		if !slices.Equal(got[i].Counts, want.Counts) || !slices.Equal(got[i].Attrs, want.Attrs) {
			t.Fatalf("set %v: weighted rows count %v over %v, the records %v", s, got[i].Counts[:min(8, len(got[i].Counts))], got[i].Attrs, want.Counts[:min(8, len(want.Counts))])
		}
	}
}

// Records merged into weighted tuples — by 1, 2 or 4 tallies, as a
// reader's workers would, then merged across them — count exactly as the
// records one by one, for every attribute set (1-, 2-, 3-way and all),
// over narrow and wide (more than 256 cells) attributes, whether the
// records repeat a lot or hardly at all; the tuples are the distinct
// records, and recoding then merging again keeps the counts with fewer
// rows.
func TestTallyCountsAsTheRecords(t *testing.T) {
	cases := []struct {
		name  string
		sizes []int
		n     int
	}{
		{"narrow, many repeats", []int{4, 3, 5, 2}, 20000},
		{"wide, many repeats", []int{3, 300, 2, 1000}, 20000},
		{"wide, few repeats", []int{7, 60000, 300, 5}, 20000},
		{"one attribute", []int{50}, 5000},
	}
	for _, c := range cases {
		for _, workers := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("%s, %d workers", c.name, workers), func(t *testing.T) {
				ds := randomDataset(c.sizes, c.n, 0.5, randx.NewSeeded(uint64(len(c.sizes)*c.n)))
				sets := [][]int{{0}, {len(c.sizes) - 1}}
				if len(c.sizes) >= 3 {
					sets = append(sets, []int{0, 1}, []int{1, 3}, []int{0, 2, 3})
				}
				if cells, _ := cellsOf(c.sizes, enginetest.AllAttrs(len(c.sizes))); cells <= 1<<20 {
					sets = append(sets, enginetest.AllAttrs(len(c.sizes)))
				}
				var all Chunks
				for w := range workers {
					tl := NewTally(c.sizes)
					for _, p := range piecesOf(ds, w*c.n/workers, (w+1)*c.n/workers, 777) {
						if err := tl.AddCells(p); err != nil {
							t.Fatal(err)
						}
					}
					all = append(all, tl.Chunks()...)
				}
				cs, err := all.Merged()
				if err != nil {
					t.Fatal(err)
				}
				if cs.Len() != c.n || cs.Distinct() != tupleCount(ds) {
					t.Fatalf("%d records in %d rows, want %d in %d (the distinct records)", cs.Len(), cs.Distinct(), c.n, tupleCount(ds))
				}
				checkCounts(t, cs, ds, sets)
				// Halve the last attribute's cells and merge again.
				last := len(c.sizes) - 1
				lut := make([][]uint16, len(c.sizes))
				lut[last] = make([]uint16, c.sizes[last])
				for v := range lut[last] {
					lut[last][v] = uint16(v / 2)
				}
				coarse := slices.Clone(c.sizes)
				coarse[last] = (c.sizes[last] + 1) / 2
				cs.Recode(lut, coarse)
				want := NewDataset(coarse, c.n)
				for j := range c.sizes {
					for i, v := range ds.Cols[j] {
						if lut[j] != nil {
							v = lut[j][v]
						}
						want.Cols[j][i] = v
					}
				}
				before := cs.Distinct()
				if cs, err = cs.Merged(); err != nil {
					t.Fatal(err)
				}
				if cs.Len() != c.n || cs.Distinct() != tupleCount(want) || cs.Distinct() > before {
					t.Fatalf("recoded: %d records in %d rows (%d before merging), want %d in %d", cs.Len(), cs.Distinct(), before, c.n, tupleCount(want))
				}
				checkCounts(t, cs, want, sets)
			})
		}
	}
}

// A tally fed rows as a reader parses them (AddRows) holds what the
// domain's Encode makes of the whole table: the same counts, the same
// clamped values.
func TestTallyAddRowsEncodes(t *testing.T) {
	s := data.Schema{Attributes: []data.Attribute{
		{Name: "c", Kind: data.Categorical, Categories: []string{"a", "b", "c"}},
		{Name: "x", Kind: data.Numeric, Min: 0, Max: 100, Integer: true},
		{Name: "y", Kind: data.Numeric, Min: -1, Max: 1},
	}}
	dom, err := New(s, Options{BinsFor: map[string]int{"x": 300}, Bins: 8})
	if err != nil {
		t.Fatal(err)
	}
	src := randx.NewSeeded(9)
	tab := &data.Table{Schema: s}
	for range 3 * tallyPage / 2 { // more than one page of scratch
		tab.Rows = append(tab.Rows, []float64{float64(src.IntN(3)), float64(src.IntN(110)), math.Round(src.Float64()*30-15) / 10})
	}
	ds, st, err := dom.Encode(tab)
	if err != nil {
		t.Fatal(err)
	}
	tl := NewTally(dom.Sizes())
	clamped := 0
	for lo := 0; lo < tab.Len(); lo += 5000 {
		c, err := tl.AddRows(dom, tab.Rows[lo:min(lo+5000, tab.Len())])
		if err != nil {
			t.Fatal(err)
		}
		clamped += c
	}
	if clamped != st.Clamped || clamped == 0 {
		t.Errorf("%d values clamped, Encode clamped %d", clamped, st.Clamped)
	}
	cs := tl.Chunks()
	if cs.Len() != tab.Len() || cs.Distinct() != tupleCount(ds) {
		t.Fatalf("%d records in %d rows, want %d in %d", cs.Len(), cs.Distinct(), tab.Len(), tupleCount(ds))
	}
	checkCounts(t, cs, ds, [][]int{{0}, {1}, {2}, {0, 1}, {1, 2}, {0, 1, 2}})
	other, err := New(s, Options{Bins: 8})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tl.AddRows(other, tab.Rows[:1]); err == nil {
		t.Error("rows of another domain: no error")
	}
}

// Records that hardly repeat are not worth merging (a tuple costs more
// than a record): past the first check the tally holds them one row per
// record, at no more rows than records, and still counts them exactly,
// whether they come as parsed rows or as pieces.
func TestTallyStopsMergingDistinctRecords(t *testing.T) {
	sizes := []int{60000, 60000, 3}
	n := tallyFirstCheck + 3*tallyPage + 5
	ds := randomDataset(sizes, n, 0, randx.NewSeeded(11))
	tl := NewTally(sizes)
	for _, p := range piecesOf(ds, 0, n, 5000) {
		if err := tl.AddCells(p); err != nil {
			t.Fatal(err)
		}
	}
	if tl.Merging() {
		t.Fatalf("still merging %d rows of %d records", tl.Distinct(), n)
	}
	cs := tl.Chunks()
	if cs.Len() != n || cs.Distinct() > n {
		t.Fatalf("%d records in %d rows, want %d in at most %d", cs.Len(), cs.Distinct(), n, n)
	}
	checkCounts(t, cs, ds, [][]int{{2}, {0, 2}, {1, 2}})
}

// A tuple's weight never wraps: past 2^32 − 1 records it goes on in a
// second row, and the counts are exact.
func TestTallyWeightsDoNotOverflow(t *testing.T) {
	sizes := []int{3, 2}
	c := newCells(sizes, 3)
	c.Set(0, 0, 2)
	c.Set(0, 1, 2)
	c.Set(0, 2, 1)
	c.wt = []uint32{math.MaxUint32 - 1, 5, 7}
	tl := NewTally(sizes)
	if err := tl.AddCells(c); err != nil {
		t.Fatal(err)
	}
	cs := tl.Chunks()
	if want := math.MaxUint32 + 11; cs.Len() != want || cs.Distinct() != 3 {
		t.Fatalf("%d records in %d rows, want %d in 3", cs.Len(), cs.Distinct(), want)
	}
	m, err := cs.Count([]int{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{0, 0, 7, 0, math.MaxUint32 + 4, 0}; !slices.Equal(m.Counts, want) {
		t.Errorf("counts %v, want %v", m.Counts, want)
	}
}
