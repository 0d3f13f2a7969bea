//go:build noparquet

package data

import "io"

// ReadRawParquetFile is not available in a noparquet build.
func ReadRawParquetFile(path string) (*Raw, error) { return nil, errNoParquet }

// ReadRawParquet is not available in a noparquet build.
func ReadRawParquet(r interface {
	io.ReaderAt
	io.Seeker
}, name string) (*Raw, error) {
	return nil, errNoParquet
}
