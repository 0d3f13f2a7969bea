package cli

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
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
	if code, _, stderr := run(t, append(append(append([]string{}, common...), plain...), "--out", filepath.Join(dir, "plain.csv"))...); code == 0 || !strings.Contains(stderr, "fine") {
		t.Fatalf("equal-width statistics files: exit %d: %s", code, stderr)
	}
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
			st, err := ownerstats.FromTable(tab, ownerstats.Config{Schema: schema, Fine: f})
			if err != nil {
				t.Fatal(err)
			}
			b, err := st.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
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
