package data

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dppub/dppub/internal/testenv"
)

// adultLikeCSV is a header and n rows of adultLikeSchema.
func adultLikeCSV(n int) string {
	var b strings.Builder
	b.WriteString("age,workclass,income\n")
	for i := range n {
		fmt.Fprintf(&b, "%d,%s,%s\n", 17+i%70, []string{"Private", "Self-emp"}[i%2], []string{"<=50K", ">50K"}[i%3/2])
	}
	return b.String()
}

// everyReader reads a file with each of the package's readers of
// delimited text: ReadFile (whole table), ScanFile (one and four
// workers, small blocks), and ReadRaw (schema discovery's).
var everyReader = []struct {
	name string
	read func(path string, s Schema) (rows int, err error)
}{
	{"ReadFile", func(path string, s Schema) (int, error) {
		tab, _, err := ReadFile(path, s, ReadOptions{Header: true})
		if err != nil {
			return 0, err
		}
		return tab.Len(), nil
	}},
	{"ScanFile 1 worker", func(path string, s Schema) (int, error) {
		st, err := ScanFile(path, s, ScanOptions{ReadOptions: ReadOptions{Header: true}, Workers: 1, Block: 4096}, nil,
			func(int, [][]float64) error { return nil })
		return st.Rows, err
	}},
	{"ScanFile 4 workers", func(path string, s Schema) (int, error) {
		st, err := ScanFile(path, s, ScanOptions{ReadOptions: ReadOptions{Header: true}, Workers: 4, Block: 4096}, nil,
			func(int, [][]float64) error { return nil })
		return st.Rows, err
	}},
	{"ReadRaw", func(path string, _ Schema) (int, error) {
		f, err := os.Open(path)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		raw, err := ReadRaw(f, path)
		if err != nil {
			return 0, err
		}
		return len(raw.Records), nil
	}},
}

// A gzip file cut short or damaged is an error naming it, from every
// reader, never a table of the rows before the damage: before, Scan read
// a copy of 3000 rows cut in half as 1276 rows without error (gzip -t
// fails on it) and ReadCSV said only "unexpected EOF".
func TestReadTruncatedOrDamagedGzip(t *testing.T) {
	s := adultLikeSchema()
	whole := testenv.Gzip(t, adultLikeCSV(3000))
	damaged := bytes.Clone(whole)
	damaged[len(damaged)/2] ^= 0xff
	noTrailer := whole[:len(whole)-4] // every row there, the checksum's length missing
	cases := []struct {
		name, what string
		body       []byte
	}{
		{"cut in half", "truncated", whole[:len(whole)/2]},
		{"cut at a tenth", "truncated", whole[:len(whole)/10]},
		{"trailer cut", "truncated", noTrailer},
		{"byte flipped", "damaged", damaged},
		{"header only", "truncated", whole[:12]},
	}
	dir := t.TempDir()
	for _, c := range cases {
		path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".csv.gz")
		if err := os.WriteFile(path, c.body, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, r := range everyReader {
			t.Run(c.name+"/"+r.name, func(t *testing.T) {
				rows, err := r.read(path, s)
				var ce *CorruptInputError
				if !errors.As(err, &ce) {
					t.Fatalf("read %d rows, error %v; want a CorruptInputError", rows, err)
				}
				msg := err.Error()
				if !strings.Contains(msg, `"`+path+`" is a `+c.what+" gzip file") || strings.Count(msg, path) != 1 {
					t.Fatalf("error %q does not name %s once as %s", msg, path, c.what)
				}
			})
		}
	}
	// The whole file reads, by every reader, as all its rows.
	path := filepath.Join(dir, "whole.csv.gz")
	if err := os.WriteFile(path, whole, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, r := range everyReader {
		if rows, err := r.read(path, s); err != nil || rows != 3000 {
			t.Errorf("%s of the whole file: %d rows, %v; want 3000", r.name, rows, err)
		}
	}
}

// A UTF-8 byte order mark before the header (Excel's "CSV UTF-8") is
// not part of the first column's name: before, ReadCSV said `header
// lacks column "age"`.
func TestReadByteOrderMark(t *testing.T) {
	s := adultLikeSchema()
	plain := adultLikeCSV(50)
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		body []byte
	}{
		{"bom.csv", []byte(utf8BOM + plain)},
		{"bom.tsv", []byte(utf8BOM + strings.ReplaceAll(plain, ",", "\t"))},
		{"bom.csv.gz", testenv.Gzip(t, utf8BOM+plain)},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, c.body, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, r := range everyReader {
			t.Run(c.name+"/"+r.name, func(t *testing.T) {
				if rows, err := r.read(path, s); err != nil || rows != 50 {
					t.Fatalf("%d rows, %v; want 50", rows, err)
				}
			})
		}
		t.Run(c.name+"/ReadHeader", func(t *testing.T) {
			h, err := ReadHeader(path)
			if err != nil || strings.Join(h, "|") != "age|workclass|income" {
				t.Fatalf("header %q, %v", h, err)
			}
		})
	}
	t.Run("LineParser", func(t *testing.T) {
		first := utf8BOM + "age,workclass,income"
		lp, err := NewLineParser(s, ReadOptions{Header: true}, first)
		if err != nil {
			t.Fatal(err)
		}
		// A pipeline's worker may meet the first line again: it is the
		// header, not a record.
		if _, ok, err := lp.Parse(first, nil); ok || err != nil {
			t.Fatalf("the header with its mark: row %v, %v", ok, err)
		}
		if row, ok, err := lp.Parse("30,Private,>50K", nil); !ok || err != nil || row[0] != 30 {
			t.Fatalf("row %v %v %v", row, ok, err)
		}
	})
}

// A file without a header, read as having one, is said to have none (as
// `dppub schema` says through ReadRaw), whatever the mapping of the
// header would have failed on first: before, a first row of "-75,-75,…"
// said `header names column "-75" twice`. A real header that happens to
// hold numeric names still reads.
func TestReadHeaderless(t *testing.T) {
	s := adultLikeSchema()
	cases := []struct{ name, in string }{
		{"repeated value", "-75,-75,>50K\n30,Private,<=50K\n"},
		{"missing columns", "30,Private,<=50K\n31,Self-emp,>50K\n"},
		{"extra column", "30,Private,<=50K,7\n31,Self-emp,>50K,8\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := ReadCSV(strings.NewReader(c.in), s, ReadOptions{Header: true, Name: "h.csv"})
			if !errors.Is(err, ErrNoHeader) || !strings.Contains(err.Error(), `"h.csv": the first row looks like data; dppub needs a header row`) ||
				!strings.Contains(err.Error(), "the schema's are age, workclass, income") {
				t.Fatalf("error %v", err)
			}
			_, err = Scan(strings.NewReader(c.in), s, ScanOptions{ReadOptions: ReadOptions{Header: true}}, nil, func(int, [][]float64) error { return nil })
			if !errors.Is(err, ErrNoHeader) {
				t.Fatalf("Scan: error %v", err)
			}
			_, err = ReadRaw(strings.NewReader(c.in), "h.csv")
			if !errors.Is(err, ErrNoHeader) {
				t.Fatalf("ReadRaw: error %v", err)
			}
		})
	}
	t.Run("numeric names in a real header", func(t *testing.T) {
		s := adultLikeSchema()
		s.Attributes[0].Name = "2019"
		_, _, err := ReadCSV(strings.NewReader("2019,2019,workclass,income\n"), s, ReadOptions{Header: true})
		if err == nil || errors.Is(err, ErrNoHeader) || !strings.Contains(err.Error(), `"2019" twice`) {
			t.Fatalf("error %v, want the repeated name", err)
		}
		tab, _, err := ReadCSV(strings.NewReader("2019,workclass,income\n30,Private,<=50K\n"), s, ReadOptions{Header: true})
		if err != nil || tab.Len() != 1 {
			t.Fatalf("%v %v", tab, err)
		}
	})
}

// A value with a fraction in an integer column is an error naming the
// file, the line (or Parquet row), the column and the value: before, 3.5
// was read as 3.5 in a column declared integer. Whole values written with
// a point read.
func TestReadIntegerColumn(t *testing.T) {
	s := adultLikeSchema() // age is integer
	in := "age,workclass,income\n30,Private,<=50K\n31.0,Private,<=50K\n3.5,Self-emp,>50K\n"
	want := `"f.csv" line 4: column "age" is declared integer, but "3.5" is not a whole number`
	_, _, err := ReadCSV(strings.NewReader(in), s, ReadOptions{Header: true, Name: "f.csv"})
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("ReadCSV: error %v, want %q", err, want)
	}
	_, err = Scan(strings.NewReader(in), s, ScanOptions{ReadOptions: ReadOptions{Header: true, Name: "f.csv"}}, nil, func(int, [][]float64) error { return nil })
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Scan: error %v, want %q", err, want)
	}
	tab, _, err := ReadCSV(strings.NewReader(in[:strings.LastIndex(in[:len(in)-1], "\n")+1]), s, ReadOptions{Header: true})
	if err != nil || tab.Rows[1][0] != 31 {
		t.Fatalf("whole values: %v %v", tab, err)
	}
	s.Attributes[0].Integer = false
	if _, _, err := ReadCSV(strings.NewReader(in), s, ReadOptions{Header: true}); err != nil {
		t.Fatalf("a real column: %v", err)
	}
}

// Messages quote a long user value cut, with its length: a 20 MB field
// (or header name) was echoed whole.
func TestLongValuesCutInMessages(t *testing.T) {
	long := strings.Repeat("é", 20<<20/2) // 20 MB in two-byte characters
	s := adultLikeSchema()
	cases := []struct{ name, in string }{
		{"category", "age,workclass,income\n30," + long + ",<=50K\n"},
		{"number", "age,workclass,income\n" + long + ",Private,<=50K\n"},
		{"header name", "age,workclass,income," + long + "\n30,Private,<=50K,x\n"},
		{"repeated header name", "age,workclass,income," + long + "," + long + "\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := ReadCSV(strings.NewReader(c.in), s, ReadOptions{Header: true})
			if err == nil {
				t.Fatal("read without error")
			}
			msg := err.Error()
			if len(msg) > 600 || !strings.Contains(msg, `"`+strings.Repeat("é", 80)+`"… (10485760 characters)`) {
				t.Fatalf("message of %d bytes: %.300q", len(msg), msg)
			}
		})
	}
	for _, c := range []struct{ in, want string }{
		{"", `""`},
		{"short", `"short"`},
		{strings.Repeat("a", 80), `"` + strings.Repeat("a", 80) + `"`},
		{strings.Repeat("a", 81), `"` + strings.Repeat("a", 80) + `"… (81 characters)`},
		{strings.Repeat("ü", 80), `"` + strings.Repeat("ü", 80) + `"`},
	} {
		if got := QuoteValue(c.in); got != c.want || !utf8.ValidString(got) {
			t.Errorf("QuoteValue(%d bytes) = %q, want %q", len(c.in), got, c.want)
		}
	}
}

// An owner's input to a release with fewer rows than MinRows is an error
// naming it and its count (kept rows: those with a missing value do not
// count): before, one data row gave "delta 1 must be in (0, 1)" from deep
// inside the method, the default δ = 1/n² being 1.
func TestReadMinRows(t *testing.T) {
	s := adultLikeSchema()
	cases := []struct {
		name, in, want string
	}{
		{"one row", "age,workclass,income\n30,Private,<=50K\n", `"one.csv" holds 1 row: a release needs at least 2`},
		{"one kept row", "age,workclass,income\n30,Private,<=50K\n31,?,<=50K\n", `"one.csv" holds 1 row once 1 with a missing value are dropped: a release needs at least 2`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := ReadOptions{Header: true, Name: "one.csv", MinRows: 2}
			if _, _, err := ReadCSV(strings.NewReader(c.in), s, o); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("ReadCSV: error %v, want %q", err, c.want)
			}
			_, err := Scan(strings.NewReader(c.in), s, ScanOptions{ReadOptions: o}, nil, func(int, [][]float64) error { return nil })
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Scan: error %v, want %q", err, c.want)
			}
			o.MinRows = 0
			if tab, _, err := ReadCSV(strings.NewReader(c.in), s, o); err != nil || tab.Len() != 1 {
				t.Fatalf("without MinRows: %v, %v", tab, err)
			}
		})
	}
}
