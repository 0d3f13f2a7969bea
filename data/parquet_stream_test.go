//go:build !noparquet

package data_test

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	. "github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
)

// rowGroup is the rows per row group the writers write.
const rowGroup = 1 << 18

// streamPersonSchema has an ID column and every kind of attribute.
func streamPersonSchema(t *testing.T) Schema {
	t.Helper()
	s, err := ParseSchema([]byte(`{"id": "pid", "attributes": [
  {"name": "age", "kind": "numeric", "min": 0, "max": 100, "integer": true},
  {"name": "sex", "kind": "categorical", "categories": ["Female", "Male"]},
  {"name": "x", "kind": "binary", "categories": ["0", "1"]},
  {"name": "color", "kind": "categorical", "categories": ["red", "green", "blue"]},
  {"name": "w", "kind": "numeric", "min": -1, "max": 1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// ParquetWriter, given a table's rows a chunk at a time, writes the bytes
// WriteParquet writes for the whole table, whatever the chunks' sizes
// (one row, odd sizes, a whole row group, all at once), and the file
// reads back to the table: Adult (one row group), Adult six times over
// (271,332 rows, two row groups, the second partial; not with -short),
// a table of every kind of attribute with IDs in two row groups, and a
// table with no rows.
func TestParquetWriterChunksGiveWholeTableBytes(t *testing.T) {
	adult, err := datasets.Load("adult")
	if err != nil {
		t.Fatal(err)
	}
	six := &Table{Schema: adult.Schema}
	for range 6 {
		six.Rows = append(six.Rows, adult.Rows...)
	}
	s := streamPersonSchema(t)
	people := &Table{Schema: s}
	src := rand.New(rand.NewPCG(3, 4))
	for i := range rowGroup + 17 {
		people.Rows = append(people.Rows, []float64{float64(src.IntN(101)), float64(src.IntN(2)), float64(src.IntN(2)), float64(src.IntN(3)), src.Float64()*2 - 1})
		people.IDs = append(people.IDs, "p"+strconv.Itoa(i))
	}
	empty := &Table{Schema: adult.Schema}
	for _, c := range []struct {
		name   string
		tab    *Table
		chunks []int // chunk sizes, repeated until the rows run out
		long   bool
	}{
		{"adult in odd chunks", adult, []int{1, 9999, 2, 77, 4096}, false},
		{"adult ×6 in chunks of 4096", six, []int{4096}, true},
		{"adult ×6 in odd chunks", six, []int{1, 9999, 262143, 2, 77}, true},
		{"adult ×6 a row group at a time", six, []int{rowGroup}, true},
		{"adult ×6 at once", six, []int{six.Len()}, true},
		{"every kind with IDs, two row groups, chunks of 4099", people, []int{4099}, false},
		{"no rows", empty, []int{1}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.long && testing.Short() {
				t.Skip("a quarter of a million rows of Adult, several times: not with -short")
			}
			var want bytes.Buffer
			if err := WriteParquet(&want, c.tab); err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			w, err := NewParquetWriter(&got, c.tab.Schema)
			if err != nil {
				t.Fatal(err)
			}
			for lo, k := 0, 0; lo < c.tab.Len(); k++ {
				hi := min(lo+c.chunks[k%len(c.chunks)], c.tab.Len())
				chunk := &Table{Schema: c.tab.Schema, Rows: c.tab.Rows[lo:hi]}
				if c.tab.IDs != nil {
					chunk.IDs = c.tab.IDs[lo:hi]
				}
				if err := w.Write(chunk); err != nil {
					t.Fatal(err)
				}
				lo = hi
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Fatalf("streamed file (%d bytes) differs from WriteParquet's (%d bytes)", got.Len(), want.Len())
			}
			if c.tab.Len() == 0 {
				return
			}
			back, _, err := ReadParquet(bytes.NewReader(got.Bytes()), c.tab.Schema, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !back.Equal(c.tab) {
				t.Fatalf("read back a different table (%d rows, want %d)", back.Len(), c.tab.Len())
			}
		})
	}
}

// A chunk the file cannot hold is refused, naming the row in the file,
// and the writer refuses everything after it.
func TestParquetWriterRefusals(t *testing.T) {
	s := streamPersonSchema(t)
	row := func(age float64) []float64 { return []float64{age, 1, 1, 0, 0.5} }
	for _, c := range []struct {
		name  string
		chunk *Table
		want  string
	}{
		{"age 2.5 in the second chunk's row", &Table{Schema: s, Rows: [][]float64{row(1), row(2.5)}, IDs: []string{"a", "b"}}, `"age" holds "2.5" in row 3`},
		{"another schema", &Table{Schema: Schema{Attributes: s.Attributes[:1]}, Rows: [][]float64{{30}}}, "schema differs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, err := NewParquetWriter(&bytes.Buffer{}, s)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(&Table{Schema: s, Rows: [][]float64{row(30)}, IDs: []string{"p"}}); err != nil {
				t.Fatal(err)
			}
			err = w.Write(c.chunk)
			if err == nil {
				err = w.Close()
			} else if cerr := w.Close(); cerr == nil {
				t.Fatal("Close after a refused chunk succeeded")
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// No column chunk falls back from its dictionary to plain pages (the
// writer lists a chunk's page encodings in map order once it has both,
// so a table gave different bytes from run to run): 200,000 distinct
// doubles (1.6 MB of dictionary, above the writer's default 1 MiB limit)
// have dictionary data pages only, the ID column plain pages only; and
// the bytes are the same in four runs.
func TestWriteParquetHasNoDictionaryFallback(t *testing.T) {
	s, err := ParseSchema([]byte(`{"id": "pid", "attributes": [{"name": "w", "kind": "numeric", "min": 0, "max": 1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	tab := &Table{Schema: s}
	for i := range 200000 {
		tab.Rows = append(tab.Rows, []float64{float64(i) / 200000})
		tab.IDs = append(tab.IDs, "p"+strconv.Itoa(i))
	}
	var first []byte
	for run := range 4 {
		var b bytes.Buffer
		if err := WriteParquet(&b, tab); err != nil {
			t.Fatal(err)
		}
		if run > 0 {
			if !bytes.Equal(b.Bytes(), first) {
				t.Fatalf("run %d wrote different bytes", run)
			}
			continue
		}
		first = b.Bytes()
		r, err := file.NewParquetReader(bytes.NewReader(first))
		if err != nil {
			t.Fatal(err)
		}
		rg := r.MetaData().RowGroup(0)
		for c, want := range []parquet.Encoding{parquet.Encodings.Plain, parquet.Encodings.RLEDict} {
			cc, err := rg.ColumnChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range cc.EncodingStats() {
				if st.PageType.String() == "DATA_PAGE" && st.Encoding != want {
					t.Errorf("column %d has %v data pages, want %v only", c, st.Encoding, want)
				}
			}
		}
	}
}
