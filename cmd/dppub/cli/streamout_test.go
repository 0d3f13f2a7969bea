package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/method"
	ppcaspec "github.com/dppub/dppub/method/ppcadpmh"
	"github.com/dppub/dppub/method/synthesize"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
	"github.com/spf13/cobra"
)

// wholeSynthesize is the synthetic table `dppub synthesize --epsilon 1
// --rows rows --seed seed` makes from tab, decoded whole by the library
// (synthesize.Publish without NoTable), not a chunk at a time.
func wholeSynthesize(t *testing.T, tab *data.Table, rows int, seed uint64) *data.Table {
	t.Helper()
	st := synthesize.Settings{Epsilon: 1, EngineSettings: method.EngineSettings{Rows: rows}}
	st.SetDefaults()
	if err := st.Validate(); err != nil {
		t.Fatal(err)
	}
	out, err := method.RunCentral(context.Background(), synthesize.Spec, &st, method.Local{Table: tab,
		Source: randx.NewSeeded(seed), Attach: synthesize.Input{}})
	if err != nil {
		t.Fatal(err)
	}
	return out.Detail.(*synthesize.Result).Synthetic
}

// wholePPCA is the synthetic table `dppub publish ppca-dp-mh --epsilon 1
// --owners owners --seed seed` makes from tab, returned whole by the
// library (no Sink).
func wholePPCA(t *testing.T, tab *data.Table, owners int, seed uint64) *data.Table {
	t.Helper()
	src := randx.NewSeeded(seed)
	parts, err := kit.Split(tab, owners, 1, src)
	if err != nil {
		t.Fatal(err)
	}
	st := ppcaspec.Settings{Epsilon: 1}
	st.SetDefaults()
	res, err := ppcaspec.Publish(context.Background(), ppcaspec.Options{Owners: parts, Source: src, Settings: st})
	if err != nil {
		t.Fatal(err)
	}
	return res.Synthetic
}

// skipWithoutParquet skips a test of a Parquet output in a build with
// -tags noparquet.
func skipWithoutParquet(t *testing.T, out string) {
	t.Helper()
	if !data.IsParquetPath(out) {
		return
	}
	s := data.Schema{Attributes: []data.Attribute{{Name: "x", Kind: data.Numeric, Max: 1}}}
	if _, err := data.NewParquetWriter(io.Discard, s); err != nil {
		t.Skipf("no Parquet in this build: %v", err)
	}
}

// tableBytesOf is the whole table as the whole-table writers write it.
func tableBytesOf(t *testing.T, tab *data.Table, parquet bool) []byte {
	t.Helper()
	var b bytes.Buffer
	write := data.WriteCSV
	if parquet {
		write = data.WriteParquet
	}
	if err := write(&b, tab); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// Every output of the two commands that write a synthetic table as it is
// made — a CSV file, a Parquet file (by row group), standard output — with
// and without the release gate, holds for a fixed seed on 1,250 rows of
// Adult the bytes the whole-table writers write for the table the library
// makes whole, the report holds their digest, and with the gate the
// gate's result is written (for standard output, to --gate-out) and says
// every synthetic row was checked. synthesize writes 70,000 rows (3,000
// with -short).
func TestStreamedOutputsAreTheWholeTables(t *testing.T) {
	dir := t.TempDir()
	in, held, schemaPath := adultFiles(t, dir, 1250, 300)
	s, err := data.LoadSchema(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	tab, _, err := kit.ReadTable(nil, in, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Two decoding chunks, decoded on every core; one with -short (the
	// chunks are TestSynthesizeStreamsTheSameBytes's), where the gate's
	// attacks, which cost queries × synthetic rows, would be most of the
	// time.
	rows := 70000
	if testing.Short() {
		rows = 3000
	}
	commands := []struct {
		name  string
		args  []string
		whole *data.Table
		gated bool
	}{
		{"synthesize", []string{"synthesize", "--epsilon", "1", "--rows", itoa(rows), "--seed", "7"}, wholeSynthesize(t, tab, rows, 7), false},
		{"synthesize", []string{"synthesize", "--epsilon", "1", "--rows", itoa(rows), "--seed", "7"}, wholeSynthesize(t, tab, rows, 7), true},
		{"ppca-dp-mh", []string{"publish", "ppca-dp-mh", "--epsilon", "1", "--owners", "2", "--seed", "5"}, wholePPCA(t, tab, 2, 5), false},
		{"ppca-dp-mh", []string{"publish", "ppca-dp-mh", "--epsilon", "1", "--owners", "2", "--seed", "5"}, wholePPCA(t, tab, 2, 5), true},
	}
	for _, c := range commands {
		for _, out := range []string{"synth.csv", "synth.parquet", "-"} {
			gated := c.gated
			{
				name := c.name + " --out " + out
				if gated {
					name += " --gate"
				}
				t.Run(name, func(t *testing.T) {
					skipWithoutParquet(t, out)
					d := t.TempDir()
					report := filepath.Join(d, "r.json")
					gateOut := filepath.Join(d, "g.json")
					args := append(slices.Clone(c.args), "--input", in, "--schema", schemaPath, "--report", report)
					path := out
					if out != "-" {
						path = filepath.Join(d, out)
					}
					args = append(args, "--out", path)
					if gated {
						args = append(args, "--gate", "--gate-holdout", held, "--gate-out", gateOut)
					}
					stdout, _ := mustRun(t, args...)
					got := []byte(stdout)
					if out != "-" {
						if got, err = os.ReadFile(path); err != nil {
							t.Fatal(err)
						}
					}
					want := tableBytesOf(t, c.whole, strings.HasSuffix(out, ".parquet"))
					if !bytes.Equal(got, want) {
						t.Fatalf("%d bytes written, the whole table's are %d bytes and differ", len(got), len(want))
					}
					var rep privacy.Report
					js := readFile(t, report)
					if err := json.Unmarshal(js, &rep); err != nil {
						t.Fatal(err)
					}
					key := filepath.Base(path)
					if out == "-" {
						key = kit.StdoutName
					}
					digestRecorded(t, rep.OutputSHA256, key, got)
					if !gated {
						mustNotExist(t, gateOut)
						return
					}
					rel := readGate(t, gateOut)
					if rel.Refused || rel.SyntheticRows != c.whole.Len() || rel.SyntheticChecked != c.whole.Len() || rel.Sampled() != "" {
						t.Errorf("gate result: refused %v, checked %d of %d synthetic rows, want a pass on all %d", rel.Refused, rel.SyntheticChecked, rel.SyntheticRows, c.whole.Len())
					}
				})
			}
		}
	}
}

// A release the gate refuses is never published, whatever the output:
// no file (nor a temporary one) is left beside it, no report and no gate
// result, and nothing reaches standard output; an existing output is not
// replaced by a run without --force, gated or not, and is by one with it.
func TestStreamedOutputRefusals(t *testing.T) {
	dir := t.TempDir()
	unique, uniqueSchema := uniqueRows(t, dir, 200)
	adult, held, schema := adultFiles(t, dir, 1250, 300)
	leaky := []string{"synthesize", "--input", unique, "--schema", uniqueSchema, "--rho", "1000000", "--bins", "200", "--gate"}
	for _, out := range []string{"synth.csv", "synth.parquet", "-"} {
		t.Run("refused to "+out, func(t *testing.T) {
			skipWithoutParquet(t, out)
			d := t.TempDir()
			args := append(slices.Clone(leaky), "--report", filepath.Join(d, "r.json"), "--gate-out", filepath.Join(d, "g.json"))
			path := out
			if out != "-" {
				path = filepath.Join(d, out)
			}
			code, stdout, stderr := run(t, append(args, "--out", path)...)
			if code == 0 || !strings.Contains(stderr, "gate: release refused") || !strings.Contains(stderr, "nothing was written or published") {
				t.Fatalf("exit %d, want a refusal:\n%s", code, stderr)
			}
			if out == "-" && stdout != "" {
				t.Errorf("a refused release wrote %d bytes to standard output", len(stdout))
			}
			if left, _ := os.ReadDir(d); len(left) > 0 {
				t.Errorf("a refused release left %d files: %v", len(left), left[0].Name())
			}
		})
	}
	for _, out := range []string{"synth.csv", "synth.parquet"} {
		for _, gated := range []bool{false, true} {
			name := "existing " + out
			if gated {
				name += " --gate"
			}
			t.Run(name, func(t *testing.T) {
				skipWithoutParquet(t, out)
				d := t.TempDir()
				path := writeFile(t, d, out, "the owner's earlier file\n")
				args := []string{"synthesize", "--input", adult, "--schema", schema, "--epsilon", "1", "--out", path}
				if gated {
					args = append(args, "--gate", "--gate-holdout", held)
				}
				refused(t, "already exists", nil, args...)
				if b, _ := os.ReadFile(path); string(b) != "the owner's earlier file\n" {
					t.Fatal("a refused run changed the existing output")
				}
				if code, _, stderr := run(t, append(args, "--force")...); code != 0 {
					t.Fatalf("--force: exit %d: %s", code, stderr)
				}
				if b, _ := os.ReadFile(path); string(b) == "the owner's earlier file\n" {
					t.Fatal("--force did not replace the output")
				}
			})
		}
	}
}

// A table of more rows than the gate checks whole is checked on a
// uniform sample of gateSampleRows of them (here 500 of 3,000), and the
// gate's result and the summary say how many of how many; the file
// written is still every row.
func TestGateChecksASampleOfALargeTable(t *testing.T) {
	defer func(n int) { kit.GateSampleRows = n }(kit.GateSampleRows)
	kit.GateSampleRows = 500
	dir := t.TempDir()
	adult, held, schema := adultFiles(t, dir, 1250, 300)
	out := filepath.Join(dir, "synth.csv")
	stdout, _ := mustRun(t, "synthesize", "--input", adult, "--schema", schema, "--epsilon", "1", "--rows", "3000",
		"--gate", "--gate-holdout", held, "--out", out)
	rel := readGate(t, out+".gate.json")
	const says = "a uniform random sample of 500 of the 3000 synthetic rows"
	if rel.SyntheticRows != 3000 || rel.SyntheticChecked != 500 || !strings.Contains(rel.Verdict(), says) {
		t.Errorf("gate result checked %d of %d rows, verdict %q", rel.SyntheticChecked, rel.SyntheticRows, rel.Verdict())
	}
	if !strings.Contains(stdout, says) {
		t.Errorf("the summary does not say %q:\n%s", says, stdout)
	}
	if b, _ := os.ReadFile(out); bytes.Count(b, []byte("\n")) != 3001 {
		t.Errorf("the file has %d lines, want a header and 3000 rows", bytes.Count(b, []byte("\n")))
	}
}

// A run that fails after some rows were written publishes nothing: a
// file output leaves no file (nor a temporary one) and no report; on
// standard output the rows already written cannot be taken back, so the
// error says they are incomplete (when any reached it: a failure before
// the first row leaves standard output empty and says nothing of it),
// and no report is written.
func TestStreamedRunFailingMidway(t *testing.T) {
	s := data.Schema{Attributes: []data.Attribute{{Name: "x", Kind: data.Numeric, Min: 0, Max: 1e6, Integer: true}}}
	chunk := func(lo, n int) *data.Table {
		tab := &data.Table{Schema: s}
		for i := range n {
			tab.Rows = append(tab.Rows, []float64{float64(lo + i)})
		}
		return tab
	}
	boom := errors.New("the protocol failed")
	for _, c := range []struct {
		name       string
		out        string
		rows       int // rows emitted before the failure
		incomplete bool
	}{
		{"file, after 400,000 rows", "synth.csv", 400000, false},
		{"parquet file, after 400,000 rows", "synth.parquet", 400000, false},
		{"standard output, after 400,000 rows", "-", 400000, true},
		{"standard output, after 10 rows", "-", 10, true},
		{"standard output, before any row", "-", 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			skipWithoutParquet(t, c.out)
			d := t.TempDir()
			var stdout bytes.Buffer
			cmd := &cobra.Command{Use: "test"}
			cmd.SetContext(context.Background())
			cmd.SetOut(&stdout)
			kit.KeepStdout(cmd) // --out - writes the rows to stdout
			o := &kit.OutputFlags{Out: c.out, Report: filepath.Join(d, "r.json")}
			if c.out != "-" {
				o.Out = filepath.Join(d, c.out)
			}
			err := kit.PublishStreamed(o, cmd, nil, nil, s, func(emit kit.EmitFunc) (*privacy.Report, error) {
				for lo := 0; lo < c.rows; lo += 1000 {
					if err := emit(chunk(lo, min(1000, c.rows-lo)), nil); err != nil {
						return nil, err
					}
				}
				return nil, boom
			})
			if !errors.Is(err, boom) {
				t.Fatalf("error %v, want the run's", err)
			}
			if got := strings.Contains(err.Error(), "incomplete"); got != c.incomplete {
				t.Errorf("error %q: says incomplete %v, want %v", err, got, c.incomplete)
			}
			if c.incomplete != (stdout.Len() > 0) {
				t.Errorf("%d bytes on standard output", stdout.Len())
			}
			if left, _ := os.ReadDir(d); len(left) > 0 {
				t.Errorf("a failed run left %d files: %v", len(left), left[0].Name())
			}
		})
	}
}

// A build without Parquet (-tags noparquet) refuses a Parquet --out of
// both streaming commands with one line, before the engine or the
// protocol runs, and writes nothing. (Skipped in a build with Parquet.)
func TestParquetOutRefusedWithoutParquet(t *testing.T) {
	s := data.Schema{Attributes: []data.Attribute{{Name: "x", Kind: data.Numeric, Max: 1}}}
	if _, err := data.NewParquetWriter(io.Discard, s); err == nil {
		t.Skip("this build writes Parquet")
	}
	for _, args := range [][]string{
		{"synthesize", "--dataset", "adult", "--epsilon", "1"},
		{"publish", "ppca-dp-mh", "--dataset", "adult", "--epsilon", "1"},
	} {
		name := args[0]
		if name == "publish" {
			name = args[1]
		}
		t.Run(name, func(t *testing.T) {
			d := t.TempDir()
			code, stdout, stderr := run(t, append(args, "--out", filepath.Join(d, "synth.parquet"))...)
			if code == 0 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, "noparquet") {
				t.Fatalf("exit %d, want one line naming noparquet:\n%s", code, stderr)
			}
			if stdout != "" {
				t.Errorf("printed %q", stdout)
			}
			if left, _ := os.ReadDir(d); len(left) > 0 {
				t.Errorf("left %s", left[0].Name())
			}
		})
	}
}
