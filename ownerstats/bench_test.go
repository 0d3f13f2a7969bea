package ownerstats

import (
	"os"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
)

// BenchmarkScanFile is `dppub statistics` on an Adult-like file of 10⁶
// rows (docs/results/scale/run.sh 1000000 writes it), to profile with
// -cpuprofile. It skips when the file is absent.
func BenchmarkScanFile(b *testing.B) {
	path := os.Getenv("DPPUB_SCALE_FILE")
	if path == "" {
		path = "/tmp/dppub-scale/adult-1000000.csv"
	}
	if _, err := os.Stat(path); err != nil {
		b.Skipf("no scale file (docs/results/scale/run.sh 1000000 writes it): %v", err)
	}
	s, err := datasets.Schema("adult")
	if err != nil {
		b.Fatal(err)
	}
	c := Config{Schema: s, Read: data.ReadOptions{Header: true}}
	for b.Loop() {
		if _, _, err := ScanFile(path, c, data.ScanOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
