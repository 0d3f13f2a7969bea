//go:build !noparquet

package data

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// pqCol is a column of a Parquet file written by writeTestParquet: its
// values are int64, float64, string or bool, nil for a null.
type pqCol struct {
	name   string
	values []any
}

// writeTestParquet writes optional (nullable) columns, in row groups of
// at most group rows, as other tools write them.
func writeTestParquet(t testing.TB, cols []pqCol, group int) *bytes.Reader {
	t.Helper()
	var fields schema.FieldList
	for _, c := range cols {
		var n schema.Node
		switch c.values[0].(type) {
		case int64:
			n = schema.NewInt64Node(c.name, parquet.Repetitions.Optional, -1)
		case float64:
			n = schema.NewFloat64Node(c.name, parquet.Repetitions.Optional, -1)
		case bool:
			n = schema.NewBooleanNode(c.name, parquet.Repetitions.Optional, -1)
		default:
			n = schema.MustPrimitive(schema.NewPrimitiveNodeLogical(c.name, parquet.Repetitions.Optional,
				schema.StringLogicalType{}, parquet.Types.ByteArray, -1, -1))
		}
		fields = append(fields, n)
	}
	root := schema.MustGroup(schema.NewGroupNode("schema", parquet.Repetitions.Required, fields, -1))
	var buf bytes.Buffer
	pw := file.NewParquetWriter(&buf, root)
	rows := len(cols[0].values)
	for lo := 0; lo < rows; lo += group {
		hi := min(lo+group, rows)
		rg := pw.AppendRowGroup()
		for _, c := range cols {
			cw, err := rg.NextColumn()
			if err != nil {
				t.Fatal(err)
			}
			defs := make([]int16, hi-lo)
			var ints []int64
			var floats []float64
			var strs []parquet.ByteArray
			var bools []bool
			for i, v := range c.values[lo:hi] {
				if v == nil {
					continue
				}
				defs[i] = 1
				switch v := v.(type) {
				case int64:
					ints = append(ints, v)
				case float64:
					floats = append(floats, v)
				case bool:
					bools = append(bools, v)
				case string:
					strs = append(strs, parquet.ByteArray(v))
				}
			}
			switch w := cw.(type) {
			case *file.Int64ColumnChunkWriter:
				_, err = w.WriteBatch(ints, defs, nil)
			case *file.Float64ColumnChunkWriter:
				_, err = w.WriteBatch(floats, defs, nil)
			case *file.BooleanColumnChunkWriter:
				_, err = w.WriteBatch(bools, defs, nil)
			case *file.ByteArrayColumnChunkWriter:
				_, err = w.WriteBatch(strs, defs, nil)
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := cw.Close(); err != nil {
				t.Fatal(err)
			}
		}
		if err := rg.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	return bytes.NewReader(buf.Bytes())
}

// WriteParquet then ReadParquet gives back the table: values, IDs and
// schema, in one row group or several.
func TestParquetRoundTrip(t *testing.T) {
	s := personSchema(t)
	small, _, err := ReadCSV(strings.NewReader(personCSV), s, ReadOptions{Header: true})
	if err != nil {
		t.Fatal(err)
	}
	big := &Table{Schema: s}
	src := rand.New(rand.NewPCG(1, 2))
	for i := range parquetRowGroup + parquetBatch + 17 { // two row groups, batches of both sizes
		big.Rows = append(big.Rows, []float64{float64(src.IntN(101)), float64(src.IntN(2)), float64(src.IntN(2)), float64(src.IntN(3)), src.Float64()*2 - 1})
		big.IDs = append(big.IDs, fmt.Sprintf("p%d", i))
	}
	for _, c := range []struct {
		name string
		tab  *Table
	}{{"small", small}, {"two row groups", big}} {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteParquet(&buf, c.tab); err != nil {
				t.Fatal(err)
			}
			back, st, err := ReadParquet(bytes.NewReader(buf.Bytes()), s, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !back.Equal(c.tab) || !back.Schema.Equal(s) || back.Schema.ID != s.ID {
				t.Fatalf("read back a different table (%d rows, want %d)", back.Len(), c.tab.Len())
			}
			if st.Rows != c.tab.Len() || st.DroppedMissing != 0 {
				t.Fatalf("stats %+v", st)
			}
		})
	}
	t.Run("file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "p.parquet")
		var buf bytes.Buffer
		if err := WriteParquet(&buf, small); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		back, _, err := ReadParquetFile(path, s, ReadOptions{})
		if err != nil || !back.Equal(small) {
			t.Fatalf("read back %v, %v", back, err)
		}
		if _, _, err := ReadParquetFile(path+".absent", s, ReadOptions{}); err == nil {
			t.Fatal("absent file read")
		}
	})
}

// The columns the writer types: integers INT64, others DOUBLE, categories
// strings; a non-integer value of an integer attribute is refused.
func TestWriteParquetTypes(t *testing.T) {
	s := personSchema(t)
	tab := &Table{Schema: s, Rows: [][]float64{{30, 1, 1, 0, 0.5}}, IDs: []string{"p1"}}
	var buf bytes.Buffer
	if err := WriteParquet(&buf, tab); err != nil {
		t.Fatal(err)
	}
	pf, err := file.NewParquetReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]parquet.Type{"pid": parquet.Types.ByteArray, "age": parquet.Types.Int64, "sex": parquet.Types.ByteArray,
		"x": parquet.Types.ByteArray, "color": parquet.Types.ByteArray, "w": parquet.Types.Double}
	sc := pf.MetaData().Schema
	for i := range sc.NumColumns() {
		if c := sc.Column(i); c.PhysicalType() != want[c.Name()] {
			t.Errorf("column %q is %s, want %s", c.Name(), c.PhysicalType(), want[c.Name()])
		}
	}
	tab.Rows[0][0] = 30.5
	if err := WriteParquet(&buf, tab); err == nil || !strings.Contains(err.Error(), `"30.5"`) {
		t.Fatalf("non-integer age: error %v", err)
	}
}

// Nulls and missing tokens drop rows and are counted as ReadCSV counts
// them; columns are matched by name, typed or as strings.
func TestReadParquetColumns(t *testing.T) {
	s := personSchema(t)
	cols := []pqCol{
		{"w", []any{0.5, -0.25, 0.0, 1.0, 0.0}},
		{"note", []any{"a", nil, "c", "d", "e"}},
		{"color", []any{"red", "blue", "blue", "green", "?"}},
		{"x", []any{int64(1), int64(0), int64(0), int64(0), int64(1)}},
		{"sex", []any{" Male", "Female", "Female", "Male", "Male"}},
		{"age", []any{int64(30), int64(45), nil, int64(101), int64(3)}},
		{"pid", []any{"p1", "p2", "p3", "p4", "p5"}},
	}
	wantRows := [][]float64{{30, 1, 1, 0, 0.5}, {45, 0, 0, 2, -0.25}, {101, 1, 0, 1, 1}}
	for _, group := range []int{100, 2, 1} {
		t.Run(fmt.Sprintf("row groups of %d", group), func(t *testing.T) {
			r := writeTestParquet(t, cols, group)
			tab, st, err := ReadParquet(r, s, ReadOptions{SkipColumns: []string{"note"}})
			if err != nil {
				t.Fatal(err)
			}
			want := ReadStats{Rows: 3, DroppedMissing: 2, Clamped: 1, Ignored: 1}
			if st != want {
				t.Fatalf("stats %+v, want %+v", st, want)
			}
			exp := &Table{Schema: s, Rows: wantRows, IDs: []string{"p1", "p2", "p4"}}
			if !tab.Equal(exp) {
				t.Fatalf("read %+v", tab)
			}
		})
	}
	t.Run("numbers as strings, skipped attribute", func(t *testing.T) {
		r := writeTestParquet(t, []pqCol{
			{"age", []any{"30", " 45 ", ""}},
			{"workclass", []any{"Private", "Self-emp", "Private"}},
			{"income", []any{false, true, true}},
		}, 10)
		s := adultLikeSchema()
		s.Attributes[2].Categories = []string{"false", "true"}
		tab, st, err := ReadParquet(r, s, ReadOptions{SkipColumns: []string{"workclass"}})
		if err != nil {
			t.Fatal(err)
		}
		if st.DroppedMissing != 1 || tab.Len() != 2 || len(tab.Schema.Attributes) != 2 ||
			tab.Rows[0][0] != 30 || tab.Rows[1][0] != 45 || tab.Rows[1][1] != 1 {
			t.Fatalf("read %+v, stats %+v", tab, st)
		}
	})
}

func TestReadParquetErrors(t *testing.T) {
	s := adultLikeSchema()
	good := []pqCol{
		{"age", []any{int64(30)}},
		{"workclass", []any{"Private"}},
		{"income", []any{">50K"}},
	}
	with := func(i int, c pqCol) []pqCol {
		out := append([]pqCol(nil), good...)
		out[i] = c
		return out
	}
	cases := []struct {
		name string
		cols []pqCol
		o    ReadOptions
		want string
	}{
		{"unknown category", with(1, pqCol{"workclass", []any{"Gov"}}), ReadOptions{}, `row 1: unknown category "Gov" in column "workclass"`},
		{"not a number", with(0, pqCol{"age", []any{"old"}}), ReadOptions{}, `column "age": "old" is not a finite number`},
		{"infinite", with(0, pqCol{"age", []any{math.Inf(1)}}), ReadOptions{}, `"+Inf" is not a finite number`},
		{"boolean number", with(0, pqCol{"age", []any{true}}), ReadOptions{}, `column "age" is boolean`},
		{"lacking column", good[:2], ReadOptions{}, `lacks column "income"`},
		{"extra column", append(good, pqCol{"note", []any{"x"}}), ReadOptions{}, `column "note" is not in the schema`},
		{"all missing", with(1, pqCol{"workclass", []any{nil}}), ReadOptions{}, "all 1 rows"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := ReadParquet(writeTestParquet(t, c.cols, 10), s, c.o)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
	t.Run("not parquet", func(t *testing.T) {
		_, _, err := ReadParquet(strings.NewReader("age,workclass,income\n"), s, ReadOptions{Name: "x.parquet"})
		if err == nil || !strings.Contains(err.Error(), `"x.parquet" is not a Parquet file`) {
			t.Fatalf("error %v", err)
		}
	})
}

// benchTable is an Adult-like table of n rows.
func benchTable(n int) *Table {
	s := Schema{Attributes: []Attribute{
		{Name: "age", Kind: Numeric, Min: 17, Max: 90, Integer: true},
		{Name: "workclass", Kind: Categorical, Categories: []string{"Private", "Self-emp-not-inc", "Local-gov", "State-gov", "Federal-gov"}},
		{Name: "education", Kind: Categorical, Categories: []string{"HS-grad", "Some-college", "Bachelors", "Masters", "Doctorate", "11th"}},
		{Name: "hours", Kind: Numeric, Min: 1, Max: 99, Integer: true},
		{Name: "capital", Kind: Numeric, Min: 0, Max: 1e5, Decimals: 2},
		{Name: "sex", Kind: Binary, Categories: []string{"Female", "Male"}},
		{Name: "income", Kind: Binary, Categories: []string{"<=50K", ">50K"}},
	}}
	t := &Table{Schema: s, Rows: make([][]float64, n)}
	src := rand.New(rand.NewPCG(3, 4))
	for i := range t.Rows {
		t.Rows[i] = []float64{float64(17 + src.IntN(74)), float64(src.IntN(5)), float64(src.IntN(6)),
			float64(1 + src.IntN(99)), float64(src.IntN(10_000_000)) / 100, float64(src.IntN(2)), float64(src.IntN(2))}
	}
	return t
}

// BenchmarkReadTable reads the same 10⁶-row table from CSV and from
// Parquet.
func BenchmarkReadTable(b *testing.B) {
	tab := benchTable(1_000_000)
	dir := b.TempDir()
	for _, f := range []struct {
		name  string
		write func(*bytes.Buffer, *Table) error
		read  func(string, Schema, ReadOptions) (*Table, ReadStats, error)
		o     ReadOptions
	}{
		{"csv", func(w *bytes.Buffer, t *Table) error { return WriteCSV(w, t) }, ReadFile, ReadOptions{Header: true}},
		{"parquet", func(w *bytes.Buffer, t *Table) error { return WriteParquet(w, t) }, ReadParquetFile, ReadOptions{}},
	} {
		var buf bytes.Buffer
		if err := f.write(&buf, tab); err != nil {
			b.Fatal(err)
		}
		path := filepath.Join(dir, "t."+f.name)
		if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
			b.Fatal(err)
		}
		b.Run(f.name, func(b *testing.B) {
			b.SetBytes(int64(buf.Len()))
			for b.Loop() {
				back, _, err := f.read(path, tab.Schema, f.o)
				if err != nil || back.Len() != tab.Len() {
					b.Fatal(back.Len(), err)
				}
			}
		})
	}
}
