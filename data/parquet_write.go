//go:build !noparquet

// Writing tables as Parquet: WriteParquet for a whole table, ParquetWriter
// for rows given a chunk at a time (the same bytes), both in row groups
// of parquetRowGroup rows.

package data

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// parquetRowGroup is the number of rows per row group WriteParquet writes.
const parquetRowGroup = 1 << 18

// WriteParquet writes t as a Parquet file (Snappy-compressed, in row
// groups of 2^18 rows): the ID column first (if any) as strings, then one
// required column per attribute, named as in the schema: integer numeric
// attributes as INT64, other numeric ones as DOUBLE, categorical and
// binary ones as their category names (UTF-8 strings). ReadParquet with
// the same schema reads it back. An integer attribute holding a value
// that is not a whole number is an error. ParquetWriter writes the same
// bytes from the rows given a chunk at a time.
func WriteParquet(w io.Writer, t *Table) error {
	if err := t.Validate(); err != nil {
		return err
	}
	pw, names, err := newParquetFile(w, t.Schema)
	if err != nil {
		return err
	}
	for lo := 0; lo < len(t.Rows) || lo == 0; lo += parquetRowGroup {
		hi := min(lo+parquetRowGroup, len(t.Rows))
		if err := writeRowGroup(pw, t, lo, hi, 0, names); err != nil {
			_ = pw.Close()
			return fmt.Errorf("data: write parquet: %w", err)
		}
	}
	if err := pw.Close(); err != nil {
		return fmt.Errorf("data: write parquet: %w", err)
	}
	return nil
}

// newParquetFile starts a Parquet file of tables with schema s, and
// returns the categorical attributes' category names as Parquet strings.
func newParquetFile(w io.Writer, s Schema) (*file.Writer, [][]parquet.ByteArray, error) {
	var fields schema.FieldList
	if s.ID != "" {
		fields = append(fields, stringNode(s.ID))
	}
	for _, a := range s.Attributes {
		switch {
		case a.Kind != Numeric:
			fields = append(fields, stringNode(a.Name))
		case a.Integer:
			fields = append(fields, schema.NewInt64Node(a.Name, parquet.Repetitions.Required, -1))
		default:
			fields = append(fields, schema.NewFloat64Node(a.Name, parquet.Repetitions.Required, -1))
		}
	}
	root, err := schema.NewGroupNode("schema", parquet.Repetitions.Required, fields, -1)
	if err != nil {
		return nil, nil, fmt.Errorf("data: write parquet: %w", err)
	}
	// A column chunk whose dictionary outgrows the page size limit falls
	// back to plain pages, and the writer then lists the chunk's page
	// encodings in map order: the same table gave different bytes from
	// run to run. So no column falls back: the limit holds the largest
	// dictionary a row group can need (every value of a number column
	// distinct, every category), and the ID column, whose values are
	// all distinct, has no dictionary.
	limit := int64(8 * parquetRowGroup)
	for _, a := range s.Attributes {
		n := int64(0)
		for _, c := range a.Categories {
			n += int64(4 + len(c)) // a length prefix and the bytes
		}
		limit = max(limit, n)
	}
	opts := []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithCreatedBy("dppub"), parquet.WithMaxRowGroupLength(parquetRowGroup),
		parquet.WithDictionaryPageSizeLimit(limit)}
	if s.ID != "" {
		opts = append(opts, parquet.WithDictionaryFor(s.ID, false))
	}
	pw, err := file.NewParquetWriterWithError(w, root, file.WithWriterProps(parquet.NewWriterProperties(opts...)))
	if err != nil {
		return nil, nil, fmt.Errorf("data: write parquet: %w", err)
	}
	names := make([][]parquet.ByteArray, len(s.Attributes))
	for j, a := range s.Attributes {
		for _, c := range a.Categories {
			names[j] = append(names[j], parquet.ByteArray(c))
		}
	}
	return pw, names, nil
}

// ParquetWriter writes a table to a Parquet file a chunk of rows at a
// time: the rows are copied into one row group's buffer (2^18 rows), which
// is written when full, so memory does not grow with the rows written.
// The file is byte for byte what WriteParquet writes for the table of all
// the rows given, in order, whatever the chunks' sizes.
type ParquetWriter struct {
	pw    *file.Writer
	names [][]parquet.ByteArray
	// buf holds the rows of the row group being filled; its rows are
	// slices of cells, allocated once.
	buf   Table
	cells []float64
	// written counts the rows in row groups already written (for the row
	// numbers of errors); groups the row groups.
	written, groups int
	err             error
}

// NewParquetWriter starts a Parquet file of tables with schema s on w.
func NewParquetWriter(w io.Writer, s Schema) (*ParquetWriter, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	pw, names, err := newParquetFile(w, s)
	if err != nil {
		return nil, err
	}
	return &ParquetWriter{pw: pw, names: names, buf: Table{Schema: s.clone()}}, nil
}

// Write appends t's rows; t has the writer's schema.
func (w *ParquetWriter) Write(t *Table) error {
	if w.err != nil {
		return w.err
	}
	if !t.Schema.Equal(w.buf.Schema) {
		return w.fail(errors.New("a chunk's schema differs from the file's"))
	}
	if err := t.Validate(); err != nil {
		return w.fail(err)
	}
	p := len(w.buf.Schema.Attributes)
	if w.cells == nil {
		// A chunk as small as the rows to write sizes the first buffer:
		// a table of a few rows does not take a whole row group's.
		w.cells = make([]float64, 0, p*min(parquetRowGroup, max(len(t.Rows), 1<<12)))
		w.buf.Rows = make([][]float64, 0, cap(w.cells)/max(p, 1))
	}
	for i, row := range t.Rows {
		if len(w.buf.Rows) == parquetRowGroup {
			if err := w.flush(); err != nil {
				return err
			}
		}
		if len(w.cells)+p > cap(w.cells) {
			// Grow to the next size up to a row group; the rows already
			// buffered keep pointing at the old cells, which stay valid.
			n := min(parquetRowGroup, 2*cap(w.cells)/max(p, 1))
			w.cells = make([]float64, 0, p*n)
		}
		lo := len(w.cells)
		w.cells = append(w.cells, row...)
		w.buf.Rows = append(w.buf.Rows, w.cells[lo:lo+p:lo+p])
		if w.buf.Schema.ID != "" {
			w.buf.IDs = append(w.buf.IDs, t.IDs[i])
		}
	}
	return nil
}

// flush writes the buffered rows as one row group and empties the buffer.
func (w *ParquetWriter) flush() error {
	if err := writeRowGroup(w.pw, &w.buf, 0, len(w.buf.Rows), w.written, w.names); err != nil {
		return w.fail(err)
	}
	w.written += len(w.buf.Rows)
	w.groups++
	w.buf.Rows, w.buf.IDs = w.buf.Rows[:0], w.buf.IDs[:0]
	// The full buffer's cells are reused from the start: the rows that
	// pointed at them have been written.
	w.cells = w.cells[:0]
	return nil
}

func (w *ParquetWriter) fail(err error) error {
	w.err = fmt.Errorf("data: write parquet: %w", err)
	return w.err
}

// Close writes the last row group (an empty one if no row was written,
// as WriteParquet writes for an empty table) and the file's footer. After
// an error from Write it only releases the writer.
func (w *ParquetWriter) Close() error {
	if w.err != nil {
		_ = w.pw.Close()
		return w.err
	}
	if len(w.buf.Rows) > 0 || w.groups == 0 {
		if err := w.flush(); err != nil {
			_ = w.pw.Close()
			return err
		}
	}
	if err := w.pw.Close(); err != nil {
		return w.fail(err)
	}
	w.err = errors.New("data: write parquet: the writer is closed")
	return nil
}

func stringNode(name string) *schema.PrimitiveNode {
	return schema.MustPrimitive(schema.NewPrimitiveNodeLogical(name, parquet.Repetitions.Required,
		schema.StringLogicalType{}, parquet.Types.ByteArray, -1, -1))
}

// writeRowGroup writes rows [lo, hi) of t as one row group; before rows
// precede t's in the file (for the row numbers of errors).
func writeRowGroup(pw *file.Writer, t *Table, lo, hi, before int, names [][]parquet.ByteArray) error {
	rg, err := pw.AppendRowGroupChecked()
	if err != nil {
		return err
	}
	rows := t.Rows[lo:hi]
	if t.Schema.ID != "" {
		ids := make([]parquet.ByteArray, len(rows))
		for i, id := range t.IDs[lo:hi] {
			ids[i] = parquet.ByteArray(id)
		}
		if err := writeColumn(rg, ids); err != nil {
			return err
		}
	}
	for j, a := range t.Schema.Attributes {
		switch {
		case a.Kind != Numeric:
			col := make([]parquet.ByteArray, len(rows))
			for i, row := range rows {
				col[i] = names[j][int(row[j])]
			}
			err = writeColumn(rg, col)
		case a.Integer:
			col := make([]int64, len(rows))
			for i, row := range rows {
				v := row[j]
				if v != math.Trunc(v) || v < -(1<<63) || v >= 1<<63 {
					return fmt.Errorf("integer attribute %q holds %q in row %d, not a whole number", a.Name, strconv.FormatFloat(v, 'g', -1, 64), before+lo+i+1)
				}
				col[i] = int64(v)
			}
			err = writeColumn(rg, col)
		default:
			col := make([]float64, len(rows))
			for i, row := range rows {
				col[i] = row[j]
			}
			err = writeColumn(rg, col)
		}
		if err != nil {
			return err
		}
	}
	return rg.Close()
}

// writeColumn writes the next column of a row group.
func writeColumn[T int64 | float64 | parquet.ByteArray](rg file.SerialRowGroupWriter, values []T) error {
	cw, err := rg.NextColumn()
	if err != nil {
		return err
	}
	switch w := cw.(type) {
	case *file.Int64ColumnChunkWriter:
		_, err = w.WriteBatch(any(values).([]int64), nil, nil)
	case *file.Float64ColumnChunkWriter:
		_, err = w.WriteBatch(any(values).([]float64), nil, nil)
	case *file.ByteArrayColumnChunkWriter:
		_, err = w.WriteBatch(any(values).([]parquet.ByteArray), nil, nil)
	default:
		err = errors.New("unexpected column writer")
	}
	if err != nil {
		return err
	}
	return cw.Close()
}
