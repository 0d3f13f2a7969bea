//go:build noparquet

package data

import (
	"errors"
	"io"
)

// errNoParquet is what a build with -tags noparquet says for a Parquet
// file: Parquet support (Apache Arrow's Go module) nearly doubles the
// binary (37 MB → 71 MB), so small builds can leave it out.
var errNoParquet = errors.New("data: this dppub was built with -tags noparquet; rebuild without it to read or write Parquet files")

// ReadParquetFile is not available in a noparquet build.
func ReadParquetFile(path string, s Schema, o ReadOptions) (*Table, ReadStats, error) {
	return nil, ReadStats{}, errNoParquet
}

// ReadParquet is not available in a noparquet build.
func ReadParquet(r interface {
	io.ReaderAt
	io.Seeker
}, s Schema, o ReadOptions) (*Table, ReadStats, error) {
	return nil, ReadStats{}, errNoParquet
}

// WriteParquet is not available in a noparquet build.
func WriteParquet(w io.Writer, t *Table) error { return errNoParquet }

// ParquetWriter is not available in a noparquet build.
type ParquetWriter struct{}

// NewParquetWriter is not available in a noparquet build.
func NewParquetWriter(w io.Writer, s Schema) (*ParquetWriter, error) { return nil, errNoParquet }

// Write is not available in a noparquet build.
func (w *ParquetWriter) Write(t *Table) error { return errNoParquet }

// Close is not available in a noparquet build.
func (w *ParquetWriter) Close() error { return errNoParquet }
