package data

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

func personTable(t *testing.T) *Table {
	t.Helper()
	tab, _, err := ReadCSV(strings.NewReader(personCSV), personSchema(t), ReadOptions{Header: true})
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

func TestEncoderLayout(t *testing.T) {
	e, err := NewEncoder(personSchema(t), EncoderOptions{Exclude: []string{"x"}})
	if err != nil {
		t.Fatal(err)
	}
	if e.Dim() != 7 {
		t.Fatalf("Dim = %d, want 1+2+3+1", e.Dim())
	}
	want := "age,sex=Female,sex=Male,color=red,color=green,color=blue,w"
	if got := strings.Join(e.ColumnNames(), ","); got != want {
		t.Fatalf("ColumnNames = %s", got)
	}
	if got := strings.Join(e.Attributes(), ","); got != "age,sex,color,w" {
		t.Fatalf("Attributes = %s", got)
	}
	if cols, err := e.Columns("color"); err != nil || !slices.Equal(cols, []int{3, 4, 5}) {
		t.Fatalf("Columns(color) = %v, %v", cols, err)
	}
	if _, err := e.Columns("x"); err == nil || !strings.Contains(err.Error(), "excluded") {
		t.Fatalf("Columns(x) error %v", err)
	}
	if _, err := e.Columns("nope"); err == nil {
		t.Fatal("Columns(nope) accepted")
	}
	if _, err := NewEncoder(personSchema(t), EncoderOptions{Exclude: []string{"nope"}}); err == nil {
		t.Fatal("unknown exclusion accepted")
	}
	all := personSchema(t).Names()
	if _, err := NewEncoder(personSchema(t), EncoderOptions{Exclude: all}); err == nil {
		t.Fatal("excluding everything accepted")
	}
}

func TestEncodeValues(t *testing.T) {
	tab := personTable(t)
	e, _ := NewEncoder(tab.Schema, EncoderOptions{})
	m, st, err := e.Encode(tab)
	if err != nil {
		t.Fatal(err)
	}
	// age 101 is above its bound 100: clamped to 1 and counted.
	want := mat.NewDense(3, 8, []float64{
		0.30, 0, 1, 1, 1, 0, 0, 0.75,
		0.45, 1, 0, 0, 0, 0, 1, 0.375,
		1.00, 0, 1, 0, 0, 1, 0, 1,
	})
	if !mat.EqualApprox(m, want, 1e-15) || st.Clamped != 1 {
		t.Fatalf("Encode =\n%v\nclamped %d", mat.Formatted(m), st.Clamped)
	}
	row := make([]float64, e.Dim())
	e.EncodeRow(row, tab.Rows[1])
	if !slices.Equal(row, m.RawRowView(1)) {
		t.Fatalf("EncodeRow = %v", row)
	}
}

func TestEncodeByNameAndMismatch(t *testing.T) {
	tab := personTable(t)
	e, _ := NewEncoder(tab.Schema, EncoderOptions{Exclude: []string{"x", "w"}})
	shuffled, err := tab.SelectColumns("color", "w", "sex", "age")
	if err != nil {
		t.Fatal(err)
	}
	a, _, err1 := e.Encode(tab)
	b, _, err2 := e.Encode(shuffled)
	if err1 != nil || err2 != nil || !mat.Equal(a, b) {
		t.Fatalf("encoding depends on column order: %v %v", err1, err2)
	}
	other := personSchema(t)
	other.Attributes[0].Max = 200
	if _, _, err := e.Encode(&Table{Schema: other, Rows: tab.Rows, IDs: tab.IDs}); err == nil || !strings.Contains(err.Error(), `"age"`) {
		t.Fatalf("differently declared attribute: %v", err)
	}
	if _, _, err := e.Encode(&Table{Schema: tab.Schema}); err == nil {
		t.Fatal("empty table encoded")
	}
	bad := tab.Subset([]int{0})
	bad.Rows[0][1] = 5
	if _, _, err := e.Encode(bad); err == nil || !strings.Contains(err.Error(), `"sex"`) {
		t.Fatalf("bad category index: %v", err)
	}
}

// TestDecodeInvertsEncode checks Decode(Encode(t)) == t exactly on
// integer-valued data inside the bounds, for random tables.
func TestDecodeInvertsEncode(t *testing.T) {
	s := personSchema(t)
	s.Attributes[4] = Attribute{Name: "w", Kind: Numeric, Min: -1000, Max: 1000, Integer: true}
	src := randx.NewSeeded(1)
	tab := &Table{Schema: s}
	for range 500 {
		tab.Rows = append(tab.Rows, []float64{
			float64(src.IntN(101)), float64(src.IntN(2)), float64(src.IntN(2)),
			float64(src.IntN(3)), float64(src.IntN(2001) - 1000),
		})
	}
	e, _ := NewEncoder(s, EncoderOptions{})
	m, st, err := e.Encode(tab)
	if err != nil || st.Clamped != 0 {
		t.Fatal(err, st)
	}
	back := e.Decode(m)
	tab.Schema.ID = ""
	if !back.Equal(tab) {
		t.Fatal("Decode(Encode(t)) != t")
	}
	// Without the Integer flag the round trip is exact up to rounding.
	s.Attributes[4].Integer = false
	tab.Schema = s
	tab.Schema.ID = ""
	e, _ = NewEncoder(tab.Schema, EncoderOptions{})
	m, _, _ = e.Encode(tab)
	back = e.Decode(m)
	for i := range tab.Rows {
		if d := math.Abs(back.Rows[i][4] - tab.Rows[i][4]); d > 1e-9 {
			t.Fatalf("row %d: %g decoded as %g", i, tab.Rows[i][4], back.Rows[i][4])
		}
	}
}

func TestDecodeNoisyRows(t *testing.T) {
	e, _ := NewEncoder(personSchema(t), EncoderOptions{})
	// age clipped below 0; sex argmax Male; x 0.5 -> 1; color tie -> first max (green);
	// w above 1 -> Max.
	m := mat.NewDense(2, 8, []float64{
		-0.3, 0.2, 0.9, 0.5, 0.1, 0.7, 0.7, 1.7,
		0.555, 0.6, -0.1, 0.49, 2, -1, 0, 0.5,
	})
	got := e.Decode(m)
	want := [][]float64{{0, 1, 1, 1, 1}, {56, 0, 0, 0, 0}}
	if !slices.EqualFunc(got.Rows, want, slices.Equal) || got.IDs != nil || got.Schema.ID != "" {
		t.Fatalf("Decode = %v", got.Rows)
	}
	if err := got.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestNormalizeAndClipRows(t *testing.T) {
	m := mat.NewDense(3, 2, []float64{3, 4, 0, 0, 0.3, 0.4})
	NormalizeRowsL2(m)
	want := mat.NewDense(3, 2, []float64{0.6, 0.8, 0, 0, 0.6, 0.8})
	if !mat.EqualApprox(m, want, 1e-15) {
		t.Fatalf("NormalizeRowsL2 = %v", mat.Formatted(m))
	}
	m = mat.NewDense(3, 2, []float64{3, 4, 0, 0, 0.3, 0.4})
	ClipRowsL2(m, 1)
	want = mat.NewDense(3, 2, []float64{0.6, 0.8, 0, 0, 0.3, 0.4})
	if !mat.EqualApprox(m, want, 1e-15) {
		t.Fatalf("ClipRowsL2 = %v", mat.Formatted(m))
	}
	huge := mat.NewDense(1, 2, []float64{3e200, 4e200})
	NormalizeRowsL2(huge)
	if math.Abs(huge.At(0, 0)-0.6) > 1e-15 {
		t.Fatalf("overflowing row normalised to %v", huge.RawRowView(0))
	}
	defer func() {
		if recover() == nil {
			t.Fatal("ClipRowsL2 with c = 0 did not panic")
		}
	}()
	ClipRowsL2(m, 0)
}
