package cli

import (
	"bytes"
	"os"
	"path/filepath"
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
	fromRows, fromStats := filepath.Join(dir, "rows.csv"), filepath.Join(dir, "stats.csv")
	if code, _, stderr := run(t, append(append(append([]string{}, common...), inputs...), "--out", fromRows)...); code != 0 {
		t.Fatalf("from rows: exit %d: %s", code, stderr)
	}
	if code, _, stderr := run(t, append(append(append([]string{}, common...), stats...), "--out", fromStats)...); code != 0 {
		t.Fatalf("from statistics: exit %d: %s", code, stderr)
	}
	a, _ := os.ReadFile(fromRows)
	b, _ := os.ReadFile(fromStats)
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Fatalf("statistics files published other rows than the owners' tables (%d vs %d bytes)", len(b), len(a))
	}
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
	fromRows, fromStats := filepath.Join(dir, "rows.csv"), filepath.Join(dir, "stats.csv")
	if code, _, stderr := run(t, append(append(append([]string{}, common...), inputs...), "--out", fromRows)...); code != 0 {
		t.Fatalf("from rows: exit %d: %s", code, stderr)
	}
	if code, _, stderr := run(t, append(append(append([]string{}, common...), stats...), "--out", fromStats)...); code != 0 {
		t.Fatalf("from statistics: exit %d: %s", code, stderr)
	}
	// The reports differ only in the command line they record (the
	// method's own test compares the reports of one run).
	a, _ := os.ReadFile(fromRows)
	b, _ := os.ReadFile(fromStats)
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Fatalf("statistics files published another table than the owners' (%d vs %d bytes)", len(b), len(a))
	}
	if code, _, stderr := run(t, append(append(append([]string{}, common...), plain...), "--out", filepath.Join(dir, "plain.csv"))...); code == 0 || !strings.Contains(stderr, "fine") {
		t.Fatalf("equal-width statistics files: exit %d: %s", code, stderr)
	}
}
