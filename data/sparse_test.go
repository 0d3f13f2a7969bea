package data_test

import (
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/internal/testenv"
)

// The row encoder's nonzero entries are exactly Encode's matrix, cell for
// cell, on Adult (numeric, binary and categorical attributes), and it
// counts the same clamped cells.
func TestRowEncoderMatchesEncode(t *testing.T) {
	tab, err := datasets.LoadFrom("adult", testenv.SharedData(t, "adult"))
	if err != nil {
		t.Fatal(err)
	}
	enc, err := data.NewEncoder(tab.Schema, data.EncoderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	X, st, err := enc.Encode(tab)
	if err != nil {
		t.Fatal(err)
	}
	re, err := enc.RowEncoder(tab.Schema)
	if err != nil {
		t.Fatal(err)
	}
	dense := make([]float64, enc.Dim())
	var idx []int
	var val []float64
	clamped := 0
	for i, row := range tab.Rows {
		var c int
		idx, val, c, err = re.Sparse(row, idx[:0], val[:0])
		if err != nil {
			t.Fatal(err)
		}
		clamped += c
		clear(dense)
		for a, j := range idx {
			if a > 0 && j <= idx[a-1] {
				t.Fatalf("row %d: columns out of order: %v", i, idx)
			}
			dense[j] = val[a]
		}
		for j, v := range X.RawRowView(i) {
			if dense[j] != v {
				t.Fatalf("row %d column %d: sparse %v, Encode %v", i, j, dense[j], v)
			}
		}
	}
	if clamped != st.Clamped {
		t.Fatalf("clamped %d, Encode %d", clamped, st.Clamped)
	}
}
