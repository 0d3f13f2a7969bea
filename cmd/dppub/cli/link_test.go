package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
	pdpmvdsspec "github.com/dppub/dppub/method/pdpmvds"
)

// linkInputs writes 3 parties' files: party k holds IDs p0..p59 except
// every (k+3)-th, in its own order, and a column row_k holding the ID's
// number, so aligned rows hold equal numbers.
func linkInputs(t *testing.T, dir string) (args []string, common []int) {
	t.Helper()
	held := map[int]int{}
	for k := range 3 {
		col := fmt.Sprintf("row_%d", k+1)
		schema := fmt.Sprintf(`{"attributes": [{"name": %q, "kind": "numeric", "min": 0, "max": 100, "integer": true},
 {"name": "x_%d", "kind": "binary", "categories": ["no", "yes"]}]}`, col, k+1)
		var b strings.Builder
		fmt.Fprintf(&b, "person,%s,x_%d\n", col, k+1)
		for i := 59; i >= 0; i-- { // reversed: not in ID order
			if (i+k)%(k+3) == 0 {
				continue
			}
			held[i]++
			fmt.Fprintf(&b, "p%d,%d,%s\n", i, i, []string{"no", "yes"}[i%2])
		}
		args = append(args, "--input", writeFile(t, dir, fmt.Sprintf("in%d.csv", k+1), b.String()),
			"--schema", writeFile(t, dir, fmt.Sprintf("in%d.json", k+1), schema))
	}
	for i, c := range held {
		if c == 3 {
			common = append(common, i)
		}
	}
	slices.Sort(common)
	return args, common
}

func TestLinkWritesAlignedFilesAndReport(t *testing.T) {
	dir := t.TempDir()
	inputs, common := linkInputs(t, dir)
	out := filepath.Join(dir, "linked")
	args := append([]string{"link", "--id", "person", "--out-dir", out, "--seed", "3"}, inputs...)
	stdout, _ := mustRun(t, args...)
	if !strings.Contains(stdout, fmt.Sprintf("%d records common", len(common))) || !strings.Contains(stdout, "Venn diagram") {
		t.Errorf("summary does not state the intersection and what leaks:\n%s", stdout)
	}
	var rows [][]float64 // rows[k]: party k's row_k column
	for k := range 3 {
		col := fmt.Sprintf("row_%d", k+1)
		s, err := data.ParseSchema([]byte(fmt.Sprintf(`{"attributes": [{"name": %q, "kind": "numeric", "min": 0, "max": 100, "integer": true},
 {"name": "x_%d", "kind": "binary", "categories": ["no", "yes"]}]}`, col, k+1)))
		if err != nil {
			t.Fatal(err)
		}
		tab, _, err := data.ReadFile(filepath.Join(out, fmt.Sprintf("party-%d.csv", k+1)), s, data.ReadOptions{Header: true})
		if err != nil {
			t.Fatal(err)
		}
		c, _ := tab.Column(col)
		rows = append(rows, c)
	}
	for k := 1; k < 3; k++ {
		if !slices.Equal(rows[k], rows[0]) {
			t.Fatalf("party %d's rows are not aligned with party 1's", k+1)
		}
	}
	got := make([]int, len(rows[0]))
	for i, v := range rows[0] {
		got[i] = int(v)
	}
	slices.Sort(got)
	if !slices.Equal(got, common) {
		t.Errorf("linked IDs %v, want %v", got, common)
	}
	b := readFile(t, filepath.Join(out, "link.json"))
	var rep pdpmvdsspec.LinkReport
	if err := json.Unmarshal(b, &rep); err != nil || rep.Common != len(common) || !rep.InProcess || rep.Assumption == "" {
		t.Errorf("report %s: %v", b, err)
	}
	// A second run refuses to overwrite without --force.
	refused(t, "already exists", nil, args...)
}

func TestLinkUsage(t *testing.T) {
	dir := t.TempDir()
	inputs, _ := linkInputs(t, dir)
	for _, c := range []struct {
		name, want string
		args       []string
	}{
		{"one input", "at least 2 --input", []string{"link", "--id", "person", "--out-dir", dir, "--input", "a.csv", "--schema", "a.json"}},
		{"schemas short", "one --schema per --input", append([]string{"link", "--id", "person", "--out-dir", dir}, inputs[:10]...)},
		{"no id", "--id COL is required", append([]string{"link", "--out-dir", dir}, inputs...)},
		{"no out-dir", "--out-dir DIR is required", append([]string{"link", "--id", "person"}, inputs...)},
	} {
		t.Run(c.name, func(t *testing.T) {
			refused(t, c.want, nil, c.args...)
		})
	}
}
