package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
)

// writeAdult writes the first n rows of the embedded Adult table (all for
// n = 0) as a CSV with a header, and its schema.
func writeAdult(t *testing.T, dir string, n int) (csvPath, schemaPath string) {
	t.Helper()
	tab, err := datasets.Load("adult")
	if err != nil {
		t.Fatal(err)
	}
	if n > 0 {
		tab.Rows = tab.Rows[:n]
	}
	var b bytes.Buffer
	if err := data.WriteCSV(&b, tab); err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(tab.Schema)
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, dir, "adult.csv", b.String()), writeFile(t, dir, "adult.json", string(js))
}

// utilityLines are the summary's lines computed from the data (not the
// timings).
func utilityLines(stdout string) string {
	var keep []string
	for _, l := range strings.Split(stdout, "\n") {
		if strings.Contains(l, "total-variation") || strings.Contains(l, "original values") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// The streaming paths — records encoded as they are read, the synthetic
// CSV written a chunk at a time and hashed on the way — publish the same
// bytes, with the same report digest and the same utility summary, as the
// paths that hold the tables: a built-in dataset, and standard output
// (written whole). With more rows than one decoding chunk the chunks are
// decoded on several cores in both.
func TestSynthesizeStreamsTheSameBytes(t *testing.T) {
	cases := []struct {
		name  string
		input int // rows of Adult in the input file; 0: all
		rows  string
		full  bool // also compare with --dataset adult (all of Adult)
	}{
		{"adult", 0, "", true},
		{"several decoding chunks", 2000, "70000", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.full && testing.Short() {
				t.Skip("all of Adult three times: not with -short")
			}
			dir := t.TempDir()
			in, schema := writeAdult(t, dir, c.input)
			args := []string{"synthesize", "--epsilon", "1", "--seed", "7"}
			if c.rows != "" {
				args = append(args, "--rows", c.rows)
			}
			streamed := filepath.Join(dir, "streamed.csv")
			code, stdout, stderr := run(t, append(args, "--input", in, "--schema", schema, "--out", streamed)...)
			if code != 0 {
				t.Fatalf("streamed: exit %d: %s", code, stderr)
			}
			got := readFile(t, streamed)
			rep := readReport(t, streamed+".privacy.json")
			sum := sha256.Sum256(got)
			if d := rep.OutputSHA256["streamed.csv"]; d != hex.EncodeToString(sum[:]) {
				t.Errorf("report digest %s, file %x", d, sum)
			}
			whole := filepath.Join(dir, "whole.json")
			code, wantS, stderr := run(t, append(args, "--input", in, "--schema", schema, "--out", "-", "--report", whole)...)
			if code != 0 {
				t.Fatalf("to standard output: exit %d: %s", code, stderr)
			}
			if want := []byte(wantS); !bytes.Equal(got, want) {
				t.Errorf("streamed CSV (%d bytes) differs from the one written whole (%d bytes)", len(got), len(wantS))
			}
			if !c.full {
				return
			}
			builtin := filepath.Join(dir, "builtin.csv")
			code, bout, stderr := run(t, append(args, "--dataset", "adult", "--out", builtin)...)
			if code != 0 {
				t.Fatalf("--dataset: exit %d: %s", code, stderr)
			}
			if b := readFile(t, builtin); !bytes.Equal(got, b) {
				t.Errorf("the CSV read as it streams and --dataset adult give different tables")
			}
			if a, b := utilityLines(stdout), utilityLines(bout); a != b || a == "" {
				t.Errorf("utility summaries differ:\n%s\n--dataset:\n%s", a, b)
			}
		})
	}
}
