//go:build !noparquet

package data

import (
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// ReadRawParquetFile reads a Parquet file without a schema; see
// ReadRawParquet.
func ReadRawParquetFile(path string) (*Raw, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	defer f.Close()
	return ReadRawParquet(f, path)
}

// ReadRawParquet reads a flat Parquet file as text records without a
// schema, for schema discovery, as ReadRaw reads a CSV file: the header is
// the file's column names, and each cell is written as ReadParquet writes
// it before matching a category — a string column's bytes (trimmed),
// numbers in shortest decimal (float columns at their own precision, so
// a FLOAT 0.1 reads "0.1"), booleans "true"/"false" — and a null is the
// empty string, a missing value to discovery.
func ReadRawParquet(r interface {
	io.ReaderAt
	io.Seeker
}, name string) (*Raw, error) {
	props := parquet.NewReaderProperties(nil)
	props.BufferedStreamEnabled = true
	pf, err := file.NewParquetReader(r, file.WithReadProps(props))
	if err != nil {
		return nil, fmt.Errorf("data: %q is not a Parquet file: %w", name, err)
	}
	defer pf.Close()
	sc := pf.MetaData().Schema
	if sc.HasRepeatedFields() || sc.Root().NumFields() != sc.NumColumns() {
		return nil, fmt.Errorf("data: %q: nested or repeated Parquet columns are not supported (want one flat column per attribute)", name)
	}
	pr := &parquetReader{reader: reader{name: name}, file: pf}
	raw := &Raw{Header: make([]string, sc.NumColumns())}
	cols := make([]*parquetColumn, sc.NumColumns())
	for i := range cols {
		raw.Header[i] = sc.Column(i).Name()
		// Categorical: every physical type is accepted, booleans included.
		if cols[i], err = pr.column(sc, i, Categorical); err != nil {
			return nil, err
		}
	}
	if err := checkHeaderNames(raw.Header, name); err != nil {
		return nil, err
	}
	for g := range pf.NumRowGroups() {
		rg := pf.RowGroup(g)
		for _, c := range cols {
			if c.chunk, err = rg.Column(c.index); err != nil {
				return nil, fmt.Errorf("data: %q row group %d: column %q: %w", name, g, c.name, err)
			}
		}
		for left := rg.NumRows(); left > 0; {
			n := -1
			for _, c := range cols {
				m, err := c.next()
				if err != nil {
					return nil, fmt.Errorf("data: %q row group %d: %w", name, g, err)
				}
				if m == 0 || n >= 0 && m != n {
					return nil, fmt.Errorf("data: %q row group %d: column %q ends early (%d of %d rows left)", name, g, c.name, m, left)
				}
				n = m
			}
			for i := range n {
				rec := make([]string, len(cols))
				for j, c := range cols {
					rec[j] = c.rawText(i)
				}
				raw.Records = append(raw.Records, rec)
			}
			left -= int64(n)
		}
	}
	if len(raw.Records) == 0 {
		return nil, fmt.Errorf("data: no rows in %q", name)
	}
	return raw, nil
}

// rawText is row i as ReadRawParquet writes it: "" for a null, a FLOAT at
// float32 precision, anything else as text writes it.
func (c *parquetColumn) rawText(i int) string {
	switch {
	case c.null[i]:
		return ""
	case c.floats32 != nil:
		return strconv.FormatFloat(float64(c.floats32[c.vi[i]]), 'f', -1, 32)
	}
	return string(c.text(i, false))
}
