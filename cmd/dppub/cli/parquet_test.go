//go:build !noparquet

package cli

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
)

// writeParquet writes the CSV text in as a Parquet file of schema s.
func writeParquet(t *testing.T, dir, name, in string, s data.Schema) string {
	t.Helper()
	tab, _, err := data.ReadCSV(strings.NewReader(in), s, data.ReadOptions{Header: true})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := data.WriteParquet(&b, tab); err != nil {
		t.Fatal(err)
	}
	return writeFile(t, dir, name, b.String())
}

// Commands read .parquet inputs and write a .parquet --out (read back
// with the schema), once: an existing output is refused.
func TestParquetInputsAndOutput(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	schema := writeFile(t, dir, "s.json", schemaJSON)
	s, err := data.LoadSchema(schema)
	if err != nil {
		t.Fatal(err)
	}
	a := writeParquet(t, dir, "a.parquet", csvRows(200), s)
	b := writeParquet(t, dir, "b.parquet", csvRows(100), s)
	cases := []struct {
		name string
		args []string
		out  string
		rows int // rows of the output, 0 for any
	}{
		{"synthesize", []string{"synthesize", "--input", a, "--schema", schema, "--out", p("syn.parquet")}, p("syn.parquet"), 200},
		{"synthesize-rows", []string{"publish", "synthesize-rows", "--input", a, "--input", b, "--schema", schema, "--rho", "1", "--out", p("rows.parquet")}, p("rows.parquet"), 0},
		{"parquet in, csv out", []string{"synthesize", "--input", b, "--schema", schema, "--out", p("syn.csv")}, p("syn.csv"), 100},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append(c.args, "--seed", "1")
			mustRun(t, args...)
			read := data.ReadParquetFile
			if !data.IsParquetPath(c.out) {
				read = data.ReadFile
			}
			tab, _, err := read(c.out, s, data.ReadOptions{Header: true})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(tab.Schema.Names(), s.Names()) || tab.Len() == 0 || (c.rows > 0 && tab.Len() != c.rows) {
				t.Fatalf("output has %d rows of %v, want %d of %v", tab.Len(), tab.Schema.Names(), c.rows, s.Names())
			}
			written(t, c.out+".privacy.json")
			before := readFile(t, c.out)
			if code, _, _ := run(t, args...); code == 0 {
				t.Fatal("an existing output was overwritten")
			}
			if after := readFile(t, c.out); !bytes.Equal(after, before) {
				t.Fatal("the existing output changed")
			}
		})
	}
}

// `dppub schema` drafts the same schema from a Parquet file as from the
// same rows in CSV (without --epsilon: category lists as found, numeric
// bounds left for the owner).
func TestSchemaFromParquet(t *testing.T) {
	dir := t.TempDir()
	s, err := data.LoadSchema(writeFile(t, dir, "s.json", schemaJSON))
	if err != nil {
		t.Fatal(err)
	}
	rows := csvRows(150)
	pq := writeParquet(t, dir, "a.parquet", rows, s)
	csv := writeFile(t, dir, "a.csv", rows)
	var drafts []string
	for _, in := range []string{pq, csv} {
		out := in + ".schema.json"
		if code, _, stderr := run(t, "schema", in, "--out", out); code != 0 {
			t.Fatalf("schema %s: exit %d: %s", in, code, stderr)
		}
		b := readFile(t, out)
		drafts = append(drafts, string(b))
	}
	if drafts[0] != drafts[1] {
		t.Errorf("draft from Parquet\n%s\ndiffers from the CSV's\n%s", drafts[0], drafts[1])
	}
}
