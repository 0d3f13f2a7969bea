package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/method/methodtest"
	"github.com/dppub/dppub/ownerstats"
)

// Owners who bring statistics files (as the Beam pipeline writes them)
// publish with `--statistics` exactly what they publish from their rows.
func TestPublishPPCAFromStatisticsFiles(t *testing.T) {
	dir, schemaPath, inputs, stats := statisticsFiles(t, false)
	common := []string{"publish", "ppca-dp-mh", "--schema", schemaPath, "--epsilon", "1", "--k", "2", "--seed", "3"}
	assertSameTable(t, dir, common, inputs, stats[0])
	if code, _, _ := run(t, "publish", "ppca-dp-mh", "--statistics", "x", "--dataset", "adult", "--out", filepath.Join(dir, "y.csv")); code == 0 {
		t.Fatal("--statistics with --dataset accepted")
	}
}

// synthesize-rows owners who bring fine statistics files publish with
// `--statistics` exactly the table they publish from their rows; files of the equal-width kind are refused.
func TestPublishSynthesizeRowsFromStatisticsFiles(t *testing.T) {
	dir, schemaPath, inputs, stats := statisticsFiles(t, true, false)
	fine, plain := stats[0], stats[1]
	common := []string{"publish", "synthesize-rows", "--schema", schemaPath, "--epsilon", "1", "--delta", "1e-4", "--max-cells", "1", "--rounds", "3", "--seed", "3"}
	// The reports differ only in the command line they record (the
	// method's own test compares the reports of one run).
	assertSameTable(t, dir, common, inputs, fine)
	refused(t, "fine", nil, append(append(append([]string{}, common...), plain...), "--out", filepath.Join(dir, "plain.csv"))...)
}

// statisticsFiles writes two owners' files of the test schema (60 and 50
// rows) into a fresh directory dir, and each owner's statistics file for
// every one of fine (the ownerstats.Config Fine field). It returns the
// owners' --input flags and, per entry of fine, their --statistics flags.
func statisticsFiles(t *testing.T, fine ...bool) (dir, schemaPath string, inputs []string, stats [][]string) {
	t.Helper()
	dir, schemaPath = peopleSchema(t)
	schema, err := data.LoadSchema(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	stats = make([][]string, len(fine))
	for i, n := range []int{60, 50} {
		csv := writeFile(t, dir, "o"+itoa(i)+".csv", csvRows(n))
		tab, _, err := data.ReadFile(csv, schema, data.ReadOptions{Header: true})
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, "--input", csv)
		for j, f := range fine {
			b := methodtest.StatisticsFile(t, tab, ownerstats.Config{Schema: schema, Fine: f})
			name := fmt.Sprintf("o%d-%d.stats", i, j)
			stats[j] = append(stats[j], "--statistics", writeFile(t, dir, name, string(b)))
		}
	}
	return dir, schemaPath, inputs, stats
}

// assertSameTable runs the command common with the owners' rows and with
// their statistics files (the --input and --statistics flags) into dir
// and fails unless both runs wrote the same table, byte for byte.
func assertSameTable(t *testing.T, dir string, common, inputs, stats []string) {
	t.Helper()
	var tables [2][]byte
	for i, owners := range [][]string{inputs, stats} {
		out := filepath.Join(dir, fmt.Sprintf("table-%d.csv", i))
		if code, _, stderr := run(t, append(append(slices.Clone(common), owners...), "--out", out)...); code != 0 {
			t.Fatalf("from %s: exit %d: %s", []string{"rows", "statistics"}[i], code, stderr)
		}
		tables[i] = readFile(t, out)
	}
	if len(tables[0]) == 0 || !bytes.Equal(tables[0], tables[1]) {
		t.Fatalf("the statistics files published another table than the owners' rows (%d vs %d bytes)", len(tables[1]), len(tables[0]))
	}
}

// adultOwnerFiles writes Adult (the built-in dataset, its first n rows, or all
// of them for n = 0) as owners' CSV files, one per part (consecutive
// slices), and its schema; it returns the schema's path and the files.
func adultOwnerFiles(t *testing.T, dir string, n, parts int) (string, []string) {
	t.Helper()
	tab, err := datasets.Load("adult")
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 || n > tab.Len() {
		n = tab.Len()
	}
	js, err := json.Marshal(tab.Schema)
	if err != nil {
		t.Fatal(err)
	}
	schema := writeFile(t, dir, "adult.schema.json", string(js))
	var files []string
	for k := range parts {
		rows := make([]int, 0, n/parts+1)
		for i := k * n / parts; i < (k+1)*n/parts; i++ {
			rows = append(rows, i)
		}
		var b bytes.Buffer
		if err := data.WriteCSV(&b, tab.Subset(rows)); err != nil {
			t.Fatal(err)
		}
		files = append(files, writeFile(t, dir, fmt.Sprintf("adult%d.csv", k), b.String()))
	}
	return schema, files
}

// `dppub statistics` writes exactly ownerstats.FromTable's statistics of
// the table the core reads from the same file, plain and fine, on any
// number of cores; the file is owner-only.
func TestStatisticsCommandEqualsFromTable(t *testing.T) {
	dir := t.TempDir()
	n := 0 // all of Adult
	if testing.Short() {
		n = 8000
	}
	schemaPath, files := adultOwnerFiles(t, dir, n, 1)
	schema, err := data.LoadSchema(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	tab, _, err := data.ReadFile(files[0], schema, data.ReadOptions{Header: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		conf ownerstats.Config
	}{
		{"plain", nil, ownerstats.Config{Schema: schema}},
		{"bins", []string{"--bins", "8", "--bins-for", "age=5"}, ownerstats.Config{Schema: schema, Bins: 8, BinsFor: map[string]int{"age": 5}}},
		{"fine", []string{"--fine"}, ownerstats.Config{Schema: schema, Fine: true}},
		{"fine grid", []string{"--fine", "--grid", "64", "--bins", "10"}, ownerstats.Config{Schema: schema, Fine: true, Grid: 64, Bins: 10}},
	} {
		want, err := ownerstats.FromTable(tab, c.conf)
		if err != nil {
			t.Fatal(err)
		}
		for _, procs := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("%s/GOMAXPROCS=%d", c.name, procs), func(t *testing.T) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				out := filepath.Join(t.TempDir(), "owner.stats")
				args := append([]string{"statistics", "--input", files[0], "--schema", schemaPath, "--out", out}, c.args...)
				stdout, stderr := mustRun(t, args...)
				if !strings.Contains(stderr, "as sensitive as the data") || !strings.Contains(stdout, "FOR THE DATA OWNER ONLY") {
					t.Errorf("no warning that the file is as sensitive as the data:\n%s\n%s", stdout, stderr)
				}
				got, err := ownerstats.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				if !got.Equal(want) {
					t.Fatal("the command's statistics differ from FromTable's")
				}
				if fi, err := os.Stat(out); err != nil || fi.Mode().Perm() != 0o600 {
					t.Fatalf("the statistics file is not owner-only: %v %v", fi.Mode(), err)
				}
			})
		}
	}
}

// Owners who computed their statistics with `dppub statistics` publish
// with --statistics the same table as from their rows, for the same seed:
// PPCA-DP-MH from plain files, synthesize-rows (pairs only) from fine ones.
func TestStatisticsCommandFilesPublishAsRows(t *testing.T) {
	dir := t.TempDir()
	n := 0
	if testing.Short() {
		n = 6000
	}
	schemaPath, files := adultOwnerFiles(t, dir, n, 2)
	for _, c := range []struct {
		method string
		flags  []string // of dppub statistics
		common []string // of dppub publish METHOD
	}{
		{"ppca-dp-mh", nil, []string{"--epsilon", "1", "--k", "3", "--seed", "5"}},
		{"synthesize-rows", []string{"--fine"}, []string{"--epsilon", "1", "--delta", "1e-5", "--max-cells", "1", "--rounds", "3", "--seed", "5"}},
	} {
		t.Run(c.method, func(t *testing.T) {
			sub := t.TempDir()
			var inputs, stats []string
			for k, f := range files {
				out := filepath.Join(sub, fmt.Sprintf("owner%d.stats", k))
				args := append([]string{"statistics", "--quiet", "--input", f, "--schema", schemaPath, "--out", out}, c.flags...)
				mustRun(t, args...)
				inputs = append(inputs, "--input", f)
				stats = append(stats, "--statistics", out)
			}
			common := append([]string{"publish", c.method, "--schema", schemaPath, "--quiet"}, c.common...)
			assertSameTable(t, sub, common, inputs, stats)
		})
	}
}

// The command refuses, before reading the data, what it cannot do, and
// never replaces a file without --force.
func TestStatisticsCommandRefuses(t *testing.T) {
	dir, schemaPath := peopleSchema(t)
	csv := writeFile(t, dir, "o.csv", csvRows(40))
	existing := writeFile(t, dir, "old.stats", "keep me")
	for _, c := range []refusal{
		{"no input", []string{"--schema", schemaPath, "--out", filepath.Join(dir, "a.stats")}, "--input"},
		{"no out", []string{"--input", csv, "--schema", schemaPath}, "--out"},
		{"existing out", []string{"--input", csv, "--schema", schemaPath, "--out", existing}, "--force"},
		// The output is checked before the input is opened.
		{"existing out, missing input", []string{"--input", filepath.Join(dir, "none.csv"), "--schema", schemaPath, "--out", existing}, "--force"},
		{"out is the input", []string{"--input", csv, "--schema", schemaPath, "--out", csv, "--force"}, "o.csv"},
		{"stdout", []string{"--input", csv, "--schema", schemaPath, "--out", "-"}, `"-"`},
		{"parquet", []string{"--input", filepath.Join(dir, "o.parquet"), "--schema", schemaPath, "--out", filepath.Join(dir, "b.stats")}, `"` + filepath.Join(dir, "o.parquet") + `"`},
		{"grid without fine", []string{"--input", csv, "--schema", schemaPath, "--out", filepath.Join(dir, "c.stats"), "--grid", "64"}, "--grid 64"},
		{"bad bins-for", []string{"--input", csv, "--schema", schemaPath, "--out", filepath.Join(dir, "d.stats"), "--bins-for", "age=x"}, `"age=x"`},
		{"quiet and json", []string{"--input", csv, "--schema", schemaPath, "--out", filepath.Join(dir, "e.stats"), "--quiet", "--json"}, "not both"},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The snapshot holds the existing file's digest: it is
			// never replaced.
			refusedInOneLine(t, dir, c.want, append([]string{"statistics"}, c.args...)...)
		})
	}
	// --json: one document on stdout; --force replaces.
	stdout, _ := mustRun(t, "statistics", "--input", csv, "--schema", schemaPath, "--out", existing, "--force", "--json")
	var doc statisticsSummary
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || doc.Rows != 40 || doc.Out != existing || doc.Warning == "" {
		t.Fatalf("--json printed %q (%v)", stdout, err)
	}
}
