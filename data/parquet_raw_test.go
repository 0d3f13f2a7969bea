//go:build !noparquet

package data

import (
	"reflect"
	"strings"
	"testing"
)

// ReadRawParquet gives schema discovery the records ReadRaw gives it for
// the same table as CSV: names from the file, numbers in shortest
// decimal, strings trimmed, booleans as words, nulls as empty (missing)
// cells, across row groups.
func TestReadRawParquetMatchesCSV(t *testing.T) {
	cols := []pqCol{
		{"age", []any{int64(39), int64(50), nil, int64(28)}},
		{"income", []any{2174.5, 0.0, 13.25, nil}},
		{"sex", []any{" Male", "Female", nil, "Female "}},
		{"smoker", []any{true, false, true, nil}},
	}
	raw, err := ReadRawParquet(writeTestParquet(t, cols, 3), "people.parquet")
	if err != nil {
		t.Fatal(err)
	}
	csv := "age,income,sex,smoker\n39,2174.5,Male,true\n50,0,Female,false\n,13.25,,true\n28,,Female,\n"
	want, err := ReadRaw(strings.NewReader(csv), "people.csv")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(raw, want) {
		t.Errorf("Parquet raw\n%q\nwant the CSV's\n%q", raw, want)
	}
	if IsMissing(raw.Records[2][0]) != true {
		t.Errorf("a null reads %q, which is not a missing value", raw.Records[2][0])
	}
}

func TestReadRawParquetRefusesNonParquet(t *testing.T) {
	if _, err := ReadRawParquet(strings.NewReader("age\n1\n"), "people.parquet"); err == nil || !strings.Contains(err.Error(), `"people.parquet" is not a Parquet file`) {
		t.Errorf("err = %v, want a refusal naming the file", err)
	}
}
