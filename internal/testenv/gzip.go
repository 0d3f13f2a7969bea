package testenv

import (
	"bytes"
	"compress/gzip"
	"testing"
)

// Gzip is s gzipped, as a file.gz holds it.
func Gzip(t testing.TB, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
