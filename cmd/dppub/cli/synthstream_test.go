package cli

import (
	"bytes"
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
			stdout, _ := mustRun(t, append(args, "--input", in, "--schema", schema, "--out", streamed)...)
			got := readFile(t, streamed)
			rep := readReport(t, streamed+".privacy.json")
			digestRecorded(t, rep.OutputSHA256, "streamed.csv", got)
			whole := filepath.Join(dir, "whole.json")
			wantS, _ := mustRun(t, append(args, "--input", in, "--schema", schema, "--out", "-", "--report", whole)...)
			if want := []byte(wantS); !bytes.Equal(got, want) {
				t.Errorf("streamed CSV (%d bytes) differs from the one written whole (%d bytes)", len(got), len(wantS))
			}
			if !c.full {
				return
			}
			builtin := filepath.Join(dir, "builtin.csv")
			bout, _ := mustRun(t, append(args, "--dataset", "adult", "--out", builtin)...)
			if b := readFile(t, builtin); !bytes.Equal(got, b) {
				t.Errorf("the CSV read as it streams and --dataset adult give different tables")
			}
			if a, b := utilityLines(stdout), utilityLines(bout); a != b || a == "" {
				t.Errorf("utility summaries differ:\n%s\n--dataset:\n%s", a, b)
			}
		})
	}
}

// TestPPCAStreamedCSVIsTheWholeTables: `publish ppca-dp-mh --out FILE`
// writes the synthetic rows as they come; for a fixed seed the file is
// byte for byte what the whole-table path writes to standard output, its
// report holds the file's digest, the utility printed is the same, and an
// existing file is not replaced without --force.
func TestPPCAStreamedCSVIsTheWholeTables(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "synth.csv")
	args := []string{"publish", "ppca-dp-mh", "--dataset", "adult", "--owners", "3", "--epsilon", "1", "--seed", "5"}
	streamedOut, _ := mustRun(t, append(args, "--out", out)...)
	whole, stderr := mustRun(t, append(args, "--out", "-", "--report", filepath.Join(dir, "whole.json"))...)
	got := readFile(t, out)
	if string(got) != whole {
		t.Fatalf("streamed file (%d bytes) differs from the whole table's CSV (%d bytes)", len(got), len(whole))
	}
	rep := readReport(t, out+".privacy.json")
	digestRecorded(t, rep.OutputSHA256, "synth.csv", got)
	// The utility goes to stderr with --out -; the same lines both ways.
	if u := utilityLines(streamedOut); !strings.Contains(u, "mean total-variation distance") || u != utilityLines(stderr) {
		t.Fatalf("utility streamed %q, whole %q", u, utilityLines(stderr))
	}
	if code, _, _ := run(t, append(args, "--out", out)...); code == 0 {
		t.Fatal("an existing output was replaced without --force")
	}
	if again := readFile(t, out); string(again) != string(got) {
		t.Fatal("a refused run changed the existing output")
	}
}
