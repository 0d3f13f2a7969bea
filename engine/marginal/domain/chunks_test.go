package domain

import (
	"slices"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/randx"
)

// Counting a table held in pieces — narrow (one byte a cell) and wide
// columns, pieces of many lengths — gives the counts of the whole table,
// for one set or many in one pass, before and after recoding the pieces
// to a coarser domain (the wide column then narrows).
func TestChunksCountAll(t *testing.T) {
	sizes := []int{4, 3, 5, 300}
	ds := randomDataset(sizes, 3001, 0.6, randx.NewSeeded(3))
	var cs Chunks
	for lo, k := 0, 1; lo < ds.Len(); k *= 3 {
		hi := min(ds.Len(), lo+k)
		piece := newCells(sizes, k+2) // room to spare: truncated below
		for j := range sizes {
			for i := lo; i < hi; i++ {
				piece.Set(j, i-lo, int(ds.Cols[j][i]))
			}
		}
		piece.Truncate(hi - lo)
		cs = append(cs, piece)
		lo = hi
	}
	if cs.Len() != ds.Len() || len(cs) < 5 || cs[0].b[3] != nil || cs[0].b[0] == nil {
		t.Fatalf("%d records in %d pieces (want %d, one wide column)", cs.Len(), len(cs), ds.Len())
	}
	sets := [][]int{{0}, {3}, {0, 1}, {2, 1}, {0, 2, 3}, {0, 1, 2, 3}}
	check := func(t *testing.T, cs Chunks, ds *Dataset) {
		t.Helper()
		checkCounts(t, cs, ds, sets)
		for _, s := range sets {
			want, _ := Count(ds, s)
			one, _ := cs.Count(s)
			if !slices.Equal(one.Counts, want.Counts) {
				t.Fatalf("set %v: Count %v, whole %v", s, one.Counts, want.Counts)
			}
		}
	}
	t.Run("as read", func(t *testing.T) { check(t, cs, ds) })
	t.Run("recoded", func(t *testing.T) {
		lut := make([][]uint16, len(sizes))
		lut[3] = make([]uint16, 300)
		for v := range lut[3] {
			lut[3][v] = uint16(v / 10)
		}
		coarse := []int{4, 3, 5, 30}
		cs.Recode(lut, coarse)
		want := NewDataset(coarse, ds.Len())
		for j := range sizes {
			for i, v := range ds.Cols[j] {
				if lut[j] != nil {
					v = lut[j][v]
				}
				want.Cols[j][i] = v
			}
		}
		if cs[0].b[3] == nil || !slices.Equal(cs.Sizes(), coarse) {
			t.Fatalf("recoded column not narrowed, sizes %v", cs.Sizes())
		}
		check(t, cs, want)
	})
	if _, err := (Chunks{}).Count([]int{0}); err == nil {
		t.Error("counting no pieces: no error")
	}
}

// Decoding more rows than records repeats them in order (rows beyond the
// fitted ones), and decoding chunk by chunk gives the table DecodeRows
// gives whole, one chunk or several.
func TestDecodeRowsRepeatsAndChunks(t *testing.T) {
	s := data.Schema{Attributes: []data.Attribute{
		{Name: "c", Kind: data.Categorical, Categories: []string{"a", "b", "c"}},
		{Name: "x", Kind: data.Numeric, Min: 0, Max: 100, Integer: true},
		{Name: "y", Kind: data.Numeric, Min: -1, Max: 1},
	}}
	dom, err := New(s, Options{Bins: 8})
	if err != nil {
		t.Fatal(err)
	}
	ds := randomDataset(dom.Sizes(), 1000, 0.5, randx.NewSeeded(5))
	for _, rows := range []int{700, 2500, DecodeChunk + 1234} {
		t.Run("", func(t *testing.T) {
			whole, err := dom.DecodeRows(ds, rows, randx.NewSeeded(6))
			if err != nil {
				t.Fatal(err)
			}
			if whole.Len() != rows {
				t.Fatalf("%d rows, want %d", whole.Len(), rows)
			}
			for r, row := range whole.Rows {
				for j := range s.Attributes {
					if b, _ := dom.Bin(j, row[j]); b != int(ds.Cols[j][r%ds.Len()]) {
						t.Fatalf("row %d attribute %d: %v in bin %d, record %d holds %d", r, j, row[j], b, r%ds.Len(), ds.Cols[j][r%ds.Len()])
					}
				}
			}
			var parts []float64
			var chunk data.Table
			for k, src := range DecodeSources(rows, randx.NewSeeded(6)) {
				if err := dom.DecodeChunkInto(ds, rows, k, src, &chunk); err != nil {
					t.Fatal(err)
				}
				for _, row := range chunk.Rows {
					parts = append(parts, row...)
				}
			}
			var all []float64
			for _, row := range whole.Rows {
				all = append(all, row...)
			}
			if !slices.Equal(parts, all) {
				t.Fatal("chunk by chunk differs from whole")
			}
		})
	}
}
