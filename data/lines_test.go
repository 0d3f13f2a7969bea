package data_test

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/internal/testenv"
)

// Line by line, Adult's raw file (", "-separated, "?" missing values)
// gives exactly ReadFile's rows and counts.
func TestLineParserMatchesReadFile(t *testing.T) {
	path := filepath.Join(testenv.SharedData(t, "adult"), "adult.data")
	s, err := datasets.Schema("adult")
	if err != nil {
		t.Fatal(err)
	}
	want, wst, err := data.ReadFile(path, s, data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var lp *data.LineParser
	var rows [][]float64
	for sc.Scan() {
		if lp == nil {
			if lp, err = data.NewLineParser(s, data.ReadOptions{}, sc.Text()); err != nil {
				t.Fatal(err)
			}
		}
		row, ok, err := lp.Parse(sc.Text(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			rows = append(rows, slices.Clone(row))
		}
	}
	if len(rows) != want.Len() || lp.Stats().DroppedMissing != wst.DroppedMissing {
		t.Fatalf("%d rows, %d dropped; ReadFile %d, %d", len(rows), lp.Stats().DroppedMissing, want.Len(), wst.DroppedMissing)
	}
	for i := range rows {
		if !slices.Equal(rows[i], want.Rows[i]) {
			t.Fatalf("row %d: %v, ReadFile %v", i, rows[i], want.Rows[i])
		}
	}
}
