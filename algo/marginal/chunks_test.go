package marginal

import (
	"slices"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/randx"
)

// Counting a table held in pieces gives the counts of the whole table,
// for one set or many in one pass.
func TestChunksCountAll(t *testing.T) {
	sizes := []int{4, 3, 5, 2}
	ds := randomDataset(sizes, 3001, 0.6, randx.NewSeeded(3))
	var cs Chunks
	for lo, k := 0, 1; lo < ds.Len(); k *= 3 {
		hi := min(ds.Len(), lo+k)
		piece := &Dataset{Sizes: ds.Sizes, Cols: make([][]uint16, len(sizes))}
		for j := range sizes {
			piece.Cols[j] = ds.Cols[j][lo:hi]
		}
		cs = append(cs, piece)
		lo = hi
	}
	sets := [][]int{{0}, {3}, {0, 1}, {2, 1}, {0, 2, 3}, {0, 1, 2, 3}}
	got, err := cs.CountAll(sets)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range sets {
		t.Run(setKey(s), func(t *testing.T) {
			want, _ := Count(ds, s)
			if !slices.Equal(got[i].Counts, want.Counts) || !slices.Equal(got[i].Attrs, want.Attrs) {
				t.Fatalf("pieces %v, whole %v", got[i].Counts, want.Counts)
			}
			one, _ := cs.Count(s)
			if !slices.Equal(one.Counts, want.Counts) {
				t.Fatalf("Count %v, whole %v", one.Counts, want.Counts)
			}
		})
	}
	if cs.Len() != ds.Len() || len(cs) < 5 {
		t.Fatalf("%d records in %d pieces", cs.Len(), len(cs))
	}
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
	dom, err := NewDomain(s, DomainOptions{Bins: 8})
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
