package data

import "strings"

// IsParquetPath reports whether path names a Parquet file (".parquet",
// in any case).
func IsParquetPath(path string) bool {
	return len(path) > len(".parquet") && strings.EqualFold(path[len(path)-len(".parquet"):], ".parquet")
}
