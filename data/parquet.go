//go:build !noparquet

package data

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// parquetBatch is the number of rows ReadParquet decodes at a time from
// each column: memory holds one batch of every column read, never a whole
// row group.
const parquetBatch = 1 << 14

// ReadParquetFile reads a Parquet file into a table; see ReadParquet.
func ReadParquetFile(path string, s Schema, o ReadOptions) (*Table, ReadStats, error) {
	return readPath(path, s, o, func(f *os.File, s Schema, o ReadOptions) (*Table, ReadStats, error) { return ReadParquet(f, s, o) })
}

// ReadParquet reads a flat Parquet file (no nested or repeated columns)
// into a table with schema s. Columns are matched by name as ReadCSV
// matches a header (Rename, IgnoreColumns and SkipColumns apply; Header,
// Comma and SkipLinePrefixes do not). A numeric attribute is read from an
// integer or floating-point column, or from a string column parsed as
// ReadCSV parses a cell; a categorical or binary attribute from a string
// column, or from an integer, floating-point or boolean column whose
// values, written in decimal ("3", "2.5", "true"), are its categories.
// A row with a null, or with a string cell that is one of MissingTokens
// (or a number or boolean whose decimal form is one), is dropped and
// counted in DroppedMissing, as ReadCSV drops a row with a missing cell.
// The file is decoded by row group, a batch of rows at a time.
func ReadParquet(r interface {
	io.ReaderAt
	io.Seeker
}, s Schema, o ReadOptions) (*Table, ReadStats, error) {
	if o.Name == "" {
		o.Name = "input"
	}
	o.Header, o.Comma, o.SkipLinePrefixes = true, ',', nil
	rd, err := newReader(o.Name, s, o)
	if err != nil {
		return nil, ReadStats{}, err
	}
	props := parquet.NewReaderProperties(nil)
	props.BufferedStreamEnabled = true // pages are read as decoded, not a column chunk at once
	pf, err := file.NewParquetReader(r, file.WithReadProps(props))
	if err != nil {
		return nil, ReadStats{}, fmt.Errorf("data: %q is not a Parquet file: %w", o.Name, err)
	}
	defer pf.Close()
	pr := &parquetReader{reader: *rd, file: pf}
	if err := pr.init(); err != nil {
		return nil, ReadStats{}, err
	}
	return pr.read()
}

// parquetReader holds the state of one ReadParquet call: the CSV reader's
// state (column mapping, categories, missing tokens, counts) with the
// Parquet file's columns in place of the header's.
type parquetReader struct {
	reader
	file *file.Reader
	// cols[j] decodes attribute j; id the ID column (nil without one).
	cols []*parquetColumn
	id   *parquetColumn
	// numMissing holds the missing tokens that are numbers, for numeric
	// and boolean Parquet columns.
	numMissing map[float64]bool
	// longestMissing is the length of the longest missing token: longer
	// strings need no look-up.
	longestMissing int
	row            int64 // rows read before the current batch
}

// init maps the file's columns to the schema with the CSV reader's header
// mapping, then checks each column's type against its attribute.
func (pr *parquetReader) init() error {
	sc := pr.file.MetaData().Schema
	if sc.HasRepeatedFields() || sc.Root().NumFields() != sc.NumColumns() {
		return fmt.Errorf("data: %q: nested or repeated Parquet columns are not supported (want one flat column per attribute)", pr.name)
	}
	names := make([]string, sc.NumColumns())
	for i := range names {
		names[i] = sc.Column(i).Name()
	}
	var header bytes.Buffer
	cw := csv.NewWriter(&header)
	if err := cw.Write(names); err != nil {
		return fmt.Errorf("data: %q: column names: %w", pr.name, err)
	}
	cw.Flush()
	if err := pr.reader.init(bufio.NewReader(&header)); err != nil {
		return err
	}
	pr.numMissing = map[float64]bool{}
	for tok := range pr.missing {
		pr.longestMissing = max(pr.longestMissing, len(tok))
		if v, err := strconv.ParseFloat(tok, 64); err == nil {
			pr.numMissing[v] = true
		}
	}
	pr.cols = make([]*parquetColumn, len(pr.schema.Attributes))
	for j, a := range pr.schema.Attributes {
		c, err := pr.column(sc, pr.reader.cols[j], a.Kind)
		if err != nil {
			return err
		}
		pr.cols[j] = c
	}
	if pr.idCol >= 0 {
		c, err := pr.column(sc, pr.idCol, Categorical)
		if err != nil {
			return err
		}
		pr.id = c
	}
	return nil
}

// column prepares to decode column i of the file as an attribute of kind
// kind.
func (pr *parquetReader) column(sc *schema.Schema, i int, kind Kind) (*parquetColumn, error) {
	col := sc.Column(i)
	c := &parquetColumn{index: i, name: col.Name(), typ: col.PhysicalType(), maxDef: col.MaxDefinitionLevel()}
	lt := col.LogicalType()
	unsigned := false
	switch lt := lt.(type) {
	case nil, schema.NoLogicalType, schema.StringLogicalType, schema.EnumLogicalType:
	case schema.IntLogicalType:
		unsigned = !lt.IsSigned()
	default:
		return nil, fmt.Errorf("data: %q: column %q has Parquet type %s (%s); want integers, floating point, booleans or strings", pr.name, c.name, c.typ, lt)
	}
	switch c.typ {
	case parquet.Types.Int32:
		c.ints32, c.unsigned = make([]int32, parquetBatch), unsigned
	case parquet.Types.Int64:
		c.ints64, c.unsigned = make([]int64, parquetBatch), unsigned
	case parquet.Types.Float:
		c.floats32 = make([]float32, parquetBatch)
	case parquet.Types.Double:
		c.floats64 = make([]float64, parquetBatch)
	case parquet.Types.ByteArray:
		c.strs = make([]parquet.ByteArray, parquetBatch)
	case parquet.Types.Boolean:
		if kind == Numeric {
			return nil, fmt.Errorf("data: %q: column %q is boolean; a numeric attribute needs numbers", pr.name, c.name)
		}
		c.bools = make([]bool, parquetBatch)
	default:
		return nil, fmt.Errorf("data: %q: column %q has Parquet type %s; want integers, floating point, booleans or strings", pr.name, c.name, c.typ)
	}
	if c.maxDef > 0 {
		c.defs = make([]int16, parquetBatch)
	}
	c.null = make([]bool, parquetBatch)
	return c, nil
}

// parquetColumn decodes one Parquet column a batch at a time.
type parquetColumn struct {
	index    int
	name     string
	typ      parquet.Type
	maxDef   int16
	unsigned bool
	chunk    file.ColumnChunkReader
	// One of these holds the batch's non-null values, in order.
	ints32   []int32
	ints64   []int64
	floats32 []float32
	floats64 []float64
	strs     []parquet.ByteArray
	bools    []bool
	defs     []int16
	// null[i] says row i of the batch is null; vi[i] is its index among
	// the non-null values.
	null []bool
	vi   []int
}

// next decodes up to parquetBatch rows of the column chunk and returns
// how many.
func (c *parquetColumn) next() (int, error) {
	var (
		n   int64
		err error
	)
	switch cr := c.chunk.(type) {
	case *file.Int32ColumnChunkReader:
		n, _, err = cr.ReadBatch(parquetBatch, c.ints32, c.defs, nil)
	case *file.Int64ColumnChunkReader:
		n, _, err = cr.ReadBatch(parquetBatch, c.ints64, c.defs, nil)
	case *file.Float32ColumnChunkReader:
		n, _, err = cr.ReadBatch(parquetBatch, c.floats32, c.defs, nil)
	case *file.Float64ColumnChunkReader:
		n, _, err = cr.ReadBatch(parquetBatch, c.floats64, c.defs, nil)
	case *file.ByteArrayColumnChunkReader:
		n, _, err = cr.ReadBatch(parquetBatch, c.strs, c.defs, nil)
	case *file.BooleanColumnChunkReader:
		n, _, err = cr.ReadBatch(parquetBatch, c.bools, c.defs, nil)
	default:
		return 0, fmt.Errorf("column %q: unexpected column reader %T", c.name, c.chunk)
	}
	if err != nil {
		return 0, fmt.Errorf("column %q: %w", c.name, err)
	}
	c.vi = c.vi[:0]
	k := 0
	for i := range int(n) {
		c.null[i] = c.defs != nil && c.defs[i] < c.maxDef
		c.vi = append(c.vi, k)
		if !c.null[i] {
			k++
		}
	}
	return int(n), nil
}

// number returns the value of non-null row i as a number, and whether
// the column holds numbers.
func (c *parquetColumn) number(i int) (float64, bool) {
	k := c.vi[i]
	switch {
	case c.floats64 != nil:
		return c.floats64[k], true
	case c.ints64 != nil:
		if c.unsigned {
			return float64(uint64(c.ints64[k])), true
		}
		return float64(c.ints64[k]), true
	case c.ints32 != nil:
		if c.unsigned {
			return float64(uint32(c.ints32[k])), true
		}
		return float64(c.ints32[k]), true
	case c.floats32 != nil:
		return float64(c.floats32[k]), true
	case c.bools != nil:
		if c.bools[k] {
			return 1, false
		}
		return 0, false
	}
	return 0, false
}

// text returns non-null row i written as text: a string column's bytes
// (trimmed unless KeepSpace), a number in
// decimal, a boolean as "true" or "false".
func (c *parquetColumn) text(i int, keepSpace bool) []byte {
	if c.strs != nil {
		b := c.strs[c.vi[i]]
		if !keepSpace {
			b = bytes.TrimSpace(b)
		}
		return b
	}
	v, _ := c.number(i)
	if c.bools != nil {
		return strconv.AppendBool(nil, v == 1)
	}
	return strconv.AppendFloat(nil, v, 'f', -1, 64)
}

// missingCell reports whether row i is null or holds a missing token.
func (pr *parquetReader) missingCell(c *parquetColumn, i int) bool {
	if c.null[i] {
		return true
	}
	if c.strs != nil {
		b := c.text(i, pr.opts.KeepSpace)
		return len(pr.missing) > 0 && len(b) <= pr.longestMissing && pr.missing[string(b)]
	}
	if c.bools != nil {
		return len(pr.missing) > 0 && pr.missing[string(c.text(i, true))]
	}
	v, _ := c.number(i)
	return len(pr.numMissing) > 0 && pr.numMissing[v]
}

func (pr *parquetReader) read() (*Table, ReadStats, error) {
	// The footer's row count sizes the table (capped: it is the file's word).
	t := &Table{Schema: pr.schema.clone(), Rows: make([][]float64, 0, min(pr.file.NumRows(), 1<<24))}
	seen := 0
	used := append([]*parquetColumn(nil), pr.cols...)
	if pr.id != nil {
		used = append(used, pr.id)
	}
	drop := make([]bool, parquetBatch)
	for g := range pr.file.NumRowGroups() {
		rg := pr.file.RowGroup(g)
		for _, c := range used {
			chunk, err := rg.Column(c.index)
			if err != nil {
				return nil, pr.stats, fmt.Errorf("data: %q row group %d: column %q: %w", pr.name, g, c.name, err)
			}
			c.chunk = chunk
		}
		for left := rg.NumRows(); left > 0; {
			n := -1
			for _, c := range used {
				m, err := c.next()
				if err != nil {
					return nil, pr.stats, fmt.Errorf("data: %q row group %d: %w", pr.name, g, err)
				}
				if m == 0 || n >= 0 && m != n {
					return nil, pr.stats, fmt.Errorf("data: %q row group %d: column %q ends early (%d of %d rows left)", pr.name, g, c.name, m, left)
				}
				n = m
			}
			clear(drop[:n])
			for _, c := range used {
				for i := range n {
					if !drop[i] && pr.missingCell(c, i) {
						drop[i] = true
					}
				}
			}
			if err := pr.parseBatch(t, n, drop); err != nil {
				return nil, pr.stats, err
			}
			seen += n
			pr.row += int64(n)
			left -= int64(n)
		}
	}
	pr.stats.Rows = len(t.Rows)
	if err := pr.opts.checkRead(pr.name, seen, false, pr.stats); err != nil {
		return nil, pr.stats, err
	}
	return t, pr.stats, nil
}

// parseBatch appends the batch's rows that are not dropped to t.
func (pr *parquetReader) parseBatch(t *Table, n int, drop []bool) error {
	first := len(t.Rows)
	for i := range n {
		if drop[i] {
			pr.stats.DroppedMissing++
			continue
		}
		t.Rows = append(t.Rows, pr.newRow())
		if pr.id != nil {
			t.IDs = append(t.IDs, string(pr.id.text(i, pr.opts.KeepSpace)))
		}
	}
	for j, a := range pr.schema.Attributes {
		c := pr.cols[j]
		r := first
		for i := range n {
			if drop[i] {
				continue
			}
			v, err := pr.cell(a, j, c, i)
			if err != nil {
				return fmt.Errorf("data: %q row %d: %w", pr.name, pr.row+int64(i)+1, err)
			}
			t.Rows[r][j] = v
			r++
		}
	}
	return nil
}

// cell reads non-missing row i of column c as attribute a (the j-th).
func (pr *parquetReader) cell(a Attribute, j int, c *parquetColumn, i int) (float64, error) {
	if a.Kind == Numeric {
		v, ok := c.number(i)
		if !ok {
			field := string(c.text(i, pr.opts.KeepSpace))
			var err error
			if v, err = strconv.ParseFloat(field, 64); err != nil {
				return 0, fmt.Errorf("column %q: %s is not a finite number", a.Name, QuoteValue(field))
			}
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("column %q: %q is not a finite number", a.Name, strconv.FormatFloat(v, 'g', -1, 64))
		}
		if a.Integer && v != math.Trunc(v) {
			return 0, notWholeError(a.Name, strconv.FormatFloat(v, 'g', -1, 64))
		}
		if v < a.Min || v > a.Max {
			pr.stats.Clamped++
		}
		return v, nil
	}
	b := c.text(i, pr.opts.KeepSpace)
	if k, ok := pr.cats[j].getBytes(b); ok {
		return float64(k), nil
	}
	k, err := pr.category(j, string(b))
	return float64(k), err
}
