package cli

import (
	"bytes"
	"fmt"
	"os"
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
	dir := t.TempDir()
	schemaPath := writeFile(t, dir, "s.json", schemaJSON)
	schema, err := data.LoadSchema(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	var inputs, stats []string
	for i, n := range []int{60, 50} {
		csv := writeFile(t, dir, "o"+itoa(i)+".csv", csvRows(n))
		tab, _, err := data.ReadFile(csv, schema, data.ReadOptions{Header: true})
		if err != nil {
			t.Fatal(err)
		}
		st, err := ownerstats.FromTable(tab, ownerstats.Config{Schema: schema})
		if err != nil {
			t.Fatal(err)
		}
		b, err := st.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "o"+itoa(i)+".stats")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, "--input", csv)
		stats = append(stats, "--statistics", p)
	}
	common := []string{"publish", "ppca-dp-mh", "--schema", schemaPath, "--epsilon", "1", "--k", "2", "--seed", "3"}
	assertSameTable(t, dir, common, inputs, stats)
	if code, _, _ := run(t, "publish", "ppca-dp-mh", "--statistics", "x", "--dataset", "adult", "--out", filepath.Join(dir, "y.csv")); code == 0 {
		t.Fatal("--statistics with --dataset accepted")
	}
}

// synthesize-rows owners who bring fine statistics files publish with
// `--statistics` exactly the table they publish from their rows; files of the equal-width kind are refused.
func TestPublishSynthesizeRowsFromStatisticsFiles(t *testing.T) {
	dir := t.TempDir()
	schemaPath := writeFile(t, dir, "s.json", schemaJSON)
	schema, err := data.LoadSchema(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	var inputs, stats, plain []string
	for i, n := range []int{60, 50} {
		csv := writeFile(t, dir, "o"+itoa(i)+".csv", csvRows(n))
		tab, _, err := data.ReadFile(csv, schema, data.ReadOptions{Header: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			conf ownerstats.Config
			name string
			to   *[]string
		}{
			{ownerstats.Config{Schema: schema, Fine: true}, ".fine", &stats},
			{ownerstats.Config{Schema: schema}, ".plain", &plain},
		} {
			st, err := ownerstats.FromTable(tab, c.conf)
			if err != nil {
				t.Fatal(err)
			}
			b, err := st.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, "o"+itoa(i)+c.name+".stats")
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			*c.to = append(*c.to, "--statistics", p)
		}
		inputs = append(inputs, "--input", csv)
	}
	common := []string{"publish", "synthesize-rows", "--schema", schemaPath, "--epsilon", "1", "--delta", "1e-4", "--max-cells", "1", "--rounds", "3", "--seed", "3"}
	// The reports differ only in the command line they record (the
	// method's own test compares the reports of one run).
	assertSameTable(t, dir, common, inputs, stats)
	if code, _, stderr := run(t, append(append(append([]string{}, common...), plain...), "--out", filepath.Join(dir, "plain.csv"))...); code == 0 || !strings.Contains(stderr, "fine") {
		t.Fatalf("equal-width statistics files: exit %d: %s", code, stderr)
	}
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
		tables[i], _ = os.ReadFile(out)
	}
	if len(tables[0]) == 0 || !bytes.Equal(tables[0], tables[1]) {
		t.Fatalf("the statistics files published another table than the owners' rows (%d vs %d bytes)", len(tables[1]), len(tables[0]))
	}
}
