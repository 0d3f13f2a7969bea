package data

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/internal/testenv"
)

const personCSV = `pid,age,sex,x,color,w
p1,30,Male,1,red,0.5
p2,45,Female,0,blue,-0.25
p3,?,Female,0,blue,0
p4,101,Male,0,green,1
`

func TestReadCSVHeader(t *testing.T) {
	s := personSchema(t)
	tab, st, err := ReadCSV(strings.NewReader(personCSV), s, ReadOptions{Header: true})
	if err != nil {
		t.Fatal(err)
	}
	want := ReadStats{Rows: 3, DroppedMissing: 1, Clamped: 1}
	if st != want {
		t.Fatalf("stats %+v, want %+v", st, want)
	}
	wantRows := [][]float64{{30, 1, 1, 0, 0.5}, {45, 0, 0, 2, -0.25}, {101, 1, 0, 1, 1}}
	exp := &Table{Schema: s, Rows: wantRows, IDs: []string{"p1", "p2", "p4"}}
	if !tab.Equal(exp) {
		t.Fatalf("read %+v", tab)
	}
}

func TestReadCSVHeaderOrderFreeAndIgnore(t *testing.T) {
	s := personSchema(t)
	in := "w\textra\tcolor\tx\tsex\tage\tpid\n0.5\tjunk\tred\t1\tMale\t30\tp1\n"
	tab, st, err := ReadCSV(strings.NewReader(in), s, ReadOptions{Header: true, IgnoreColumns: []string{"extra"}})
	if err != nil {
		t.Fatal(err)
	}
	if st.Ignored != 1 || tab.Len() != 1 || tab.IDs[0] != "p1" {
		t.Fatalf("stats %+v table %+v", st, tab)
	}
	if got := tab.Rows[0]; got[0] != 30 || got[1] != 1 || got[4] != 0.5 {
		t.Fatalf("row %v", got)
	}
	_, _, err = ReadCSV(strings.NewReader(in), s, ReadOptions{Header: true})
	if err == nil || !strings.Contains(err.Error(), `"extra"`) {
		t.Fatalf("unlisted extra column: error %v", err)
	}
}

// SkipColumns leaves out extra header columns and declared attributes
// alike (the table's schema lacks the dropped ones), the ID column too.
func TestReadCSVSkipColumns(t *testing.T) {
	in := "age,workclass,income,pid,note\n30,Private,<=50K,p1,hello\n40,Self-emp,>50K,p2,bye\n"
	s := adultLikeSchema()
	s.ID, s.Label = "pid", "income"
	cases := []struct {
		name  string
		skip  []string
		attrs []string
		id    string
		label string
		want  string // error substring, "" for none
	}{
		{"extra column", []string{"note"}, []string{"age", "workclass", "income"}, "pid", "income", ""},
		{"declared and extra", []string{"workclass", "note"}, []string{"age", "income"}, "pid", "income", ""},
		{"the label", []string{"income", "note"}, []string{"age", "workclass"}, "pid", "", ""},
		{"the ID", []string{"pid", "note"}, []string{"age", "workclass", "income"}, "", "income", ""},
		{"declared but absent", []string{"note", "hours"}, nil, "", "", `column "hours" to skip is neither in the header`},
		{"every attribute", []string{"age", "workclass", "income", "note"}, nil, "", "", "leaves no attribute"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tab, st, err := ReadCSV(strings.NewReader(in), s, ReadOptions{Header: true, SkipColumns: c.skip})
			if testenv.ErrorCase(t, err, c.want) {
				return
			}
			if got := strings.Join(tab.Schema.Names(), ","); got != strings.Join(c.attrs, ",") || tab.Schema.ID != c.id || tab.Schema.Label != c.label {
				t.Fatalf("schema %s id %q label %q", got, tab.Schema.ID, tab.Schema.Label)
			}
			if tab.Len() != 2 || len(tab.Rows[0]) != len(c.attrs) || st.Ignored != len(c.skip) {
				t.Fatalf("%d rows of %d, %d ignored", tab.Len(), len(tab.Rows[0]), st.Ignored)
			}
		})
	}
	// An attribute the schema declares but the file lacks is simply dropped.
	s2 := adultLikeSchema()
	s2.Attributes = append(s2.Attributes, Attribute{Name: "hours", Kind: Numeric, Min: 0, Max: 99})
	if tab, _, err := ReadCSV(strings.NewReader("age,workclass,income\n30,Private,<=50K\n"), s2, ReadOptions{Header: true, SkipColumns: []string{"hours"}}); err != nil || len(tab.Schema.Attributes) != 3 {
		t.Fatalf("skipping a declared column the file lacks: %v", err)
	}
	if _, _, err := ReadCSV(strings.NewReader("30,Private,<=50K\n"), s, ReadOptions{SkipColumns: []string{"note"}}); err == nil || !strings.Contains(err.Error(), "header row") {
		t.Fatalf("SkipColumns without a header: %v", err)
	}
}

func TestReadCSVRename(t *testing.T) {
	s, _ := ParseSchema([]byte(`{"attributes":[{"name":"bed","kind":"binary"},{"name":"eating","kind":"binary"}]}`))
	in := "eating,getting in/out of bed\n1,0\n0,0\n"
	tab, _, err := ReadCSV(strings.NewReader(in), s, ReadOptions{Header: true, Rename: map[string]string{"getting in/out of bed": "bed"}})
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := tab.Column("eating"); c[0] != 1 || c[1] != 0 {
		t.Fatalf("eating column %v", c)
	}
}

// adultLike mimics UCI adult.test: a comment line, ", " separators,
// trailing dots on labels, a blank last line and "?" for missing.
const adultLike = `|1x3 Cross validator
25, Private, <=50K.
38, ?, >50K.
44, Self-emp, >50K.

`

func adultLikeSchema() Schema {
	return Schema{Attributes: []Attribute{
		{Name: "age", Kind: Numeric, Min: 17, Max: 90, Integer: true},
		{Name: "workclass", Kind: Categorical, Categories: []string{"Private", "Self-emp"}},
		{Name: "income", Kind: Binary, Categories: []string{"<=50K", ">50K"}},
	}}
}

// OptionalID reads a file without the schema's ID column as a table
// without IDs, and one with it as before; without OptionalID the missing
// column is an error, and OptionalID needs a header.
func TestReadCSVOptionalID(t *testing.T) {
	s := adultLikeSchema()
	s.ID = "pid"
	for _, c := range []struct {
		name, in string
		opts     ReadOptions
		wantID   string
		wantIDs  []string
		wantErr  string
	}{
		{"absent, optional", "age,workclass,income\n30,Private,<=50K\n", ReadOptions{Header: true, OptionalID: true}, "", nil, ""},
		{"present, optional", "pid,age,workclass,income\np7,30,Private,<=50K\n", ReadOptions{Header: true, OptionalID: true}, "pid", []string{"p7"}, ""},
		{"absent, required", "age,workclass,income\n30,Private,<=50K\n", ReadOptions{Header: true}, "", nil, `header lacks column "pid"`},
		{"no header", "p7,30,Private,<=50K\n", ReadOptions{OptionalID: true}, "", nil, "only in a file with a header row"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tab, _, err := ReadCSV(strings.NewReader(c.in), s, c.opts)
			if testenv.ErrorCase(t, err, c.wantErr) {
				return
			}
			if tab.Schema.ID != c.wantID || !slices.Equal(tab.IDs, c.wantIDs) || tab.Len() != 1 {
				t.Fatalf("schema ID %q, IDs %v, %d rows; want %q, %v, 1 row", tab.Schema.ID, tab.IDs, tab.Len(), c.wantID, c.wantIDs)
			}
			if err := tab.Validate(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestReadCSVUCIQuirks(t *testing.T) {
	opts := ReadOptions{SkipLinePrefixes: []string{"|"}, StripSuffix: "."}
	tab, st, err := ReadCSV(strings.NewReader(adultLike), adultLikeSchema(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if st != (ReadStats{Rows: 2, DroppedMissing: 1, SkippedLines: 1}) {
		t.Fatalf("stats %+v", st)
	}
	if tab.Rows[0][2] != 0 || tab.Rows[1][2] != 1 || tab.Rows[1][1] != 1 {
		t.Fatalf("rows %v", tab.Rows)
	}
	// Without StripSuffix the dotted labels are unknown categories.
	_, _, err = ReadCSV(strings.NewReader(adultLike), adultLikeSchema(), ReadOptions{SkipLinePrefixes: []string{"|"}})
	for _, want := range []string{`"<=50K."`, `"income"`, "line 2"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("error %v does not mention %s", err, want)
		}
	}
}

func TestReadCSVGzipAndFile(t *testing.T) {
	gz := testenv.Gzip(t, personCSV)
	s := personSchema(t)
	tab, _, err := ReadCSV(bytes.NewReader(gz), s, ReadOptions{Header: true})
	if err != nil || tab.Len() != 3 {
		t.Fatalf("gzip: %v, %v", tab, err)
	}
	path := filepath.Join(t.TempDir(), "p.csv.gz")
	os.WriteFile(path, gz, 0o644)
	fromFile, _, err := ReadFile(path, s, ReadOptions{Header: true})
	if err != nil || !fromFile.Equal(tab) {
		t.Fatalf("ReadFile: %v", err)
	}
	if _, _, err := ReadFile(filepath.Join(t.TempDir(), "none.csv"), s, ReadOptions{}); err == nil {
		t.Fatal("missing file accepted")
	}
}

func TestReadCSVMissingTokens(t *testing.T) {
	s := adultLikeSchema()
	in := "30,NA,<=50K\n40,Private,>50K\n"
	s.Attributes[1].Categories = []string{"Private", "NA"}
	tab, st, err := ReadCSV(strings.NewReader(in), s, ReadOptions{})
	if err != nil || tab.Len() != 2 || st.DroppedMissing != 0 {
		t.Fatalf("default tokens: %v %+v", err, st)
	}
	_, st, err = ReadCSV(strings.NewReader(in), s, ReadOptions{MissingTokens: []string{"NA"}})
	if err != nil || st.DroppedMissing != 1 {
		t.Fatalf("NA token: %v %+v", err, st)
	}
	_, _, err = ReadCSV(strings.NewReader("30,,<=50K\n"), s, ReadOptions{MissingTokens: []string{}})
	if err == nil || !strings.Contains(err.Error(), `unknown category ""`) {
		t.Fatalf("no missing tokens: empty cell error %v", err)
	}
}

func TestReadCSVOtherCategory(t *testing.T) {
	s := adultLikeSchema()
	s.Attributes[1].Categories = []string{"Private", "other"}
	opts := ReadOptions{OtherCategory: map[string]string{"workclass": "other"}}
	tab, st, err := ReadCSV(strings.NewReader("30,Never-worked,<=50K\n31,Private,<=50K\n"), s, opts)
	if err != nil || st.MappedToOther != 1 || tab.Rows[0][1] != 1 || tab.Rows[1][1] != 0 {
		t.Fatalf("%v %+v %v", err, st, tab)
	}
	bad := ReadOptions{OtherCategory: map[string]string{"workclass": "nope"}}
	if _, _, err := ReadCSV(strings.NewReader("30,Private,<=50K\n"), s, bad); err == nil {
		t.Fatal("undeclared other category accepted")
	}
}

func TestReadCSVErrors(t *testing.T) {
	s := adultLikeSchema()
	cases := []struct {
		in   string
		opts ReadOptions
		want []string
	}{
		{"", ReadOptions{}, []string{`no rows in "input"`}},
		{"\n\n", ReadOptions{}, []string{`no rows in "input"`}},
		{"|only a comment\n", ReadOptions{SkipLinePrefixes: []string{"|"}}, []string{"no rows"}},
		{"30,?,<=50K\n", ReadOptions{}, []string{"all 1 rows", "missing"}},
		{"30,Private,<=50K\n31,Private\n", ReadOptions{}, []string{"line 2", "2 fields", "want 3"}},
		{"30,Private,<=50K\n3x,Private,<=50K\n", ReadOptions{}, []string{"line 2", `"age"`, `"3x"`}},
		{"NaN,Private,<=50K\n", ReadOptions{}, []string{`"NaN"`, "finite"}},
		{"30,Retired,<=50K\n", ReadOptions{}, []string{"line 1", `"Retired"`, `"workclass"`}},
		{"age,income\n30,<=50K\n", ReadOptions{Header: true}, []string{`header lacks column "workclass"`}},
		{"age,age,workclass,income\n", ReadOptions{Header: true}, []string{`"age" twice`}},
		{"30,Private,<=50K\n", ReadOptions{IgnoreColumns: []string{"x"}}, []string{"only in a file with a header row"}},
		{"age,workclass,income\n", ReadOptions{Header: true, IgnoreColumns: []string{"x"}}, []string{`column "x" to skip is not in the header`}},
		{"age,workclass,income\n", ReadOptions{Header: true, IgnoreColumns: []string{"age"}}, []string{`column "age" to skip is declared by the schema`}},
		{"age,workclass,income,pid\n30,Private,<=50K,7\n", ReadOptions{Header: true}, []string{`line 1: column "pid" is not in the schema`}},
		{"age,workclass,income\n", ReadOptions{Header: true}, []string{`no rows in "input": it holds only the header row`}},
		{"", ReadOptions{Header: true}, []string{`"input" is empty: want a header row`}},
		{"30,\"Priv\"ate,<=50K\n", ReadOptions{}, []string{`"input"`}},
		{"30,Private,<=50K\n", ReadOptions{Header: true}, []string{"the first row looks like data; dppub needs a header row"}},
	}
	for _, c := range cases {
		_, _, err := ReadCSV(strings.NewReader(c.in), s, c.opts)
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("ReadCSV(%q): error %v, want it to mention %s", c.in, err, w)
			}
		}
	}
}

func TestReadCSVCommaDetection(t *testing.T) {
	s := adultLikeSchema()
	s.Attributes[1].Categories = []string{"Private", "a,b"}
	// Tab-separated, so the comma inside a category is data.
	tab, _, err := ReadCSV(strings.NewReader("30\ta,b\t>50K\n"), s, ReadOptions{})
	if err != nil || tab.Rows[0][1] != 1 {
		t.Fatalf("tab detection: %v %v", err, tab)
	}
	if _, _, err := ReadCSV(strings.NewReader("30;Private;>50K\n"), s, ReadOptions{Comma: ';'}); err != nil {
		t.Fatalf("explicit separator: %v", err)
	}
}

func TestWriteCSVRoundTrip(t *testing.T) {
	s := personSchema(t)
	tab, _, err := ReadCSV(strings.NewReader(personCSV), s, ReadOptions{Header: true})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, tab); err != nil {
		t.Fatal(err)
	}
	want := "pid,age,sex,x,color,w\np1,30,Male,1,red,0.5\np2,45,Female,0,blue,-0.25\np4,101,Male,0,green,1\n"
	if buf.String() != want {
		t.Fatalf("wrote\n%s\nwant\n%s", buf.String(), want)
	}
	for _, header := range []bool{true, false} {
		in := buf.String()
		if !header {
			in = in[strings.IndexByte(in, '\n')+1:]
		}
		back, _, err := ReadCSV(strings.NewReader(in), s, ReadOptions{Header: header})
		if err != nil || !back.Equal(tab) {
			t.Fatalf("header=%v: read back %v, %v", header, back, err)
		}
	}
	tab.Rows[0][1] = 7 // not a category index
	if err := WriteCSV(&buf, tab); err == nil {
		t.Fatal("invalid table written")
	}
}

// The schema's own "other" category reads values outside the list and
// counts them; ReadOptions.OtherCategory overrides it.
func TestReadCSVSchemaOther(t *testing.T) {
	s := adultLikeSchema()
	s.Attributes[1].Categories = []string{"Private", "other", "rest"}
	s.Attributes[1].Other = "other"
	tab, st, err := ReadCSV(strings.NewReader("30,Never-worked,<=50K\n31,Private,<=50K\n"), s, ReadOptions{})
	if err != nil || st.MappedToOther != 1 || tab.Rows[0][1] != 1 {
		t.Fatalf("%v %+v %v", err, st, tab)
	}
	tab, _, err = ReadCSV(strings.NewReader("30,Never-worked,<=50K\n"), s, ReadOptions{OtherCategory: map[string]string{"workclass": "rest"}})
	if err != nil || tab.Rows[0][1] != 2 {
		t.Fatalf("override: %v %v", err, tab)
	}
}

// Numbers are written in plain decimal notation: whole numbers of an
// integer attribute without a fraction or exponent, others with their
// declared decimals or exactly.
func TestWriteCSVNumberFormat(t *testing.T) {
	cases := []struct {
		name string
		attr Attribute
		v    float64
		want string
	}{
		{"large integer", Attribute{Integer: true, Min: 0, Max: 1e7}, 1000118, "1000118"},
		{"integer beyond float's exponent switch", Attribute{Integer: true, Min: 0, Max: 1e22}, 1e21, "1000000000000000000000"},
		{"fractional cell of an integer attribute kept exact", Attribute{Integer: true, Min: 0, Max: 10}, 2.5, "2.5"},
		{"small float", Attribute{Min: 0, Max: 1}, 6.26036e-05, "0.0000626036"},
		{"declared decimals", Attribute{Min: 0, Max: 1, Decimals: 3}, 0.123456, "0.123"},
		{"declared decimals round", Attribute{Min: 0, Max: 1, Decimals: 2}, 6.26036e-05, "0.00"},
		{"negative zero", Attribute{Min: -1, Max: 1, Decimals: 2}, -0.001, "0.00"},
		{"negative", Attribute{Min: -1e6, Max: 1}, -123456.75, "-123456.75"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.attr.Name, c.attr.Kind = "x", Numeric
			tab := &Table{Schema: Schema{Attributes: []Attribute{c.attr}}, Rows: [][]float64{{c.v}}}
			var buf bytes.Buffer
			if err := WriteCSV(&buf, tab); err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(strings.TrimPrefix(buf.String(), "x\n")); got != c.want {
				t.Fatalf("%v written as %q, want %q", c.v, got, c.want)
			}
		})
	}
}

func TestReadRaw(t *testing.T) {
	raw, err := ReadRaw(strings.NewReader("a, b\n1, x\n?,y\n"), "in")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(raw.Header, "|") != "a|b" || len(raw.Records) != 2 || strings.Join(raw.Column(1), "|") != "x|y" {
		t.Fatalf("ReadRaw = %+v", raw)
	}
	if !IsMissing(raw.Records[1][0]) || IsMissing("x") {
		t.Fatal("IsMissing wrong")
	}
	cases := []struct{ in, want string }{
		{"", `"in" is empty: want a header row`},
		{"a,b\n", "it holds only the header row"},
		{"1,2\n3,4\n", "the first row looks like data; dppub needs a header row"},
		{"a,a\n1,2\n", `"a" twice`},
		{"a,\n1,2\n", "column 2 has no name"},
		{"a,b\n1,2\n3\n", "line 3 has 1 fields, want 2"},
	}
	for _, c := range cases {
		if _, err := ReadRaw(strings.NewReader(c.in), "in"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadRaw(%q) = %v, want %q", c.in, err, c.want)
		}
	}
}
