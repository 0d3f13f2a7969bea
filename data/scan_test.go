package data

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/dppub/dppub/internal/testenv"
)

// scanTable reads in with Scan into a table whose rows are sorted, for
// comparison with ReadCSV's (Scan hands rows over in no order).
func scanTable(in string, s Schema, o ScanOptions) (*Table, ReadStats, error) {
	var mu sync.Mutex
	t := &Table{}
	st, err := Scan(strings.NewReader(in), s, o, func(s Schema) error { t.Schema = s; return nil },
		func(_ int, rows [][]float64) error {
			mu.Lock()
			defer mu.Unlock()
			for _, r := range rows {
				t.Rows = append(t.Rows, slices.Clone(r))
			}
			return nil
		})
	slices.SortFunc(t.Rows, slices.Compare)
	return t, st, err
}

// Scan gives ReadCSV's rows (in some order), counts and errors, with any
// number of workers and blocks small enough to cut records anywhere.
func TestScanMatchesReadCSV(t *testing.T) {
	adult := adultLikeSchema()
	quoted := adultLikeSchema()
	quoted.Attributes[1].Categories = []string{"Private", "Self,emp", "two\nlines"}
	gz := testenv.Gzip(t, personCSV)
	cases := []struct {
		name string
		in   string
		s    Schema
		o    ReadOptions
	}{
		{"header ids missing clamped", personCSV, personSchema(t), ReadOptions{Header: true}},
		{"gzip", string(gz), personSchema(t), ReadOptions{Header: true}},
		{"tabs order ignore", "w\textra\tcolor\tx\tsex\tage\tpid\n0.5\tjunk\tred\t1\tMale\t30\tp1\n", personSchema(t), ReadOptions{Header: true, IgnoreColumns: []string{"extra"}}},
		{"skip columns", personCSV, personSchema(t), ReadOptions{Header: true, SkipColumns: []string{"color", "pid"}}},
		{"uci quirks", adultLike, adult, ReadOptions{SkipLinePrefixes: []string{"|"}, StripSuffix: "."}},
		{"crlf blank lines", "30,Private,<=50K\r\n\r\n\n31,Self-emp,>50K\r\n32,?,>50K", adult, ReadOptions{}},
		{"quoted newline", "age,workclass,income\n30,\"two\nlines\",<=50K\n31,\"Self,emp\",>50K\n32,Private,>50K\n", quoted, ReadOptions{Header: true}},
		{"comment before header", "|c\nage,workclass,income\n30,Private,<=50K\n", adult, ReadOptions{Header: true, SkipLinePrefixes: []string{"|"}}},
		{"empty", "", adult, ReadOptions{}},
		{"blank", "\n\n", adult, ReadOptions{}},
		{"only a comment", "|only a comment\n", adult, ReadOptions{SkipLinePrefixes: []string{"|"}}},
		{"all missing", "30,?,<=50K\n", adult, ReadOptions{}},
		{"short line", "30,Private,<=50K\n31,Private\n", adult, ReadOptions{}},
		{"bad number", "30,Private,<=50K\n3x,Private,<=50K\n", adult, ReadOptions{}},
		{"first of two errors", "30,Private,<=50K\n31,Nope,<=50K\n" + strings.Repeat("30,Private,<=50K\n", 40) + "3x,Private,<=50K\n", adult, ReadOptions{}},
		{"unknown category", "30,Retired,<=50K\n", adult, ReadOptions{}},
		{"header lacks", "age,income\n30,<=50K\n", adult, ReadOptions{Header: true}},
		{"header only", "age,workclass,income\n", adult, ReadOptions{Header: true}},
		{"empty with header", "", adult, ReadOptions{Header: true}},
		{"unknown column", "age,workclass,income,pid\n30,Private,<=50K,7\n", adult, ReadOptions{Header: true}},
		{"data as header", "30,Private,<=50K\n", adult, ReadOptions{Header: true}},
		// Where a missing token counts: only in a column that is read.
		{"missing in an ignored column", "w,extra,color,x,sex,age,pid\n0.5,?,red,1,Male,30,p1\n0.5,,red,1,Male,31,?\n0.5, ,red,1,Male,?,p3\n", personSchema(t), ReadOptions{Header: true, IgnoreColumns: []string{"extra"}}},
		{"missing in a skipped column", "pid,age,sex,x,color,w\np1,30,Male,1,?,0.5\n?,31,Male,1,red,0.5\np3,32,?,1,red,0.5\n", personSchema(t), ReadOptions{Header: true, SkipColumns: []string{"color", "pid"}}},
		{"own missing tokens, spaced", "30, NA ,<=50K\n31,Private, - \n32,?,>50K\n33, Private ,>50K\n", adult, ReadOptions{MissingTokens: []string{"NA", "-"}}},
		{"no missing tokens", "30,Private,<=50K\n31,?,>50K\n", adult, ReadOptions{MissingTokens: []string{}}},
		{"keep space", "30,?,<=50K\n31, ?,>50K\n32,Private,>50K\n", adult, ReadOptions{KeepSpace: true}},
		{"unicode spaces", "30,\u00a0Private\u00a0,<=50K\n31,\u00a0?,>50K\n32,\t?\t,>50K\n", adult, ReadOptions{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, wst, werr := ReadCSV(strings.NewReader(c.in), c.s, c.o)
			for _, so := range []ScanOptions{{ReadOptions: c.o}, {ReadOptions: c.o, Workers: 3, Block: 7}} {
				got, gst, gerr := scanTable(c.in, c.s, so)
				if werr != nil {
					if gerr == nil || gerr.Error() != werr.Error() {
						t.Fatalf("workers %d block %d: error %v, ReadCSV %v", so.Workers, so.Block, gerr, werr)
					}
					continue
				}
				if gerr != nil {
					t.Fatalf("workers %d block %d: %v", so.Workers, so.Block, gerr)
				}
				slices.SortFunc(want.Rows, slices.Compare)
				if !got.Schema.Equal(want.Schema) || !slices.EqualFunc(got.Rows, want.Rows, slices.Equal) || gst != wst {
					t.Fatalf("workers %d block %d: rows %v stats %+v, ReadCSV %v %+v", so.Workers, so.Block, got.Rows, gst, want.Rows, wst)
				}
			}
		})
	}
}
