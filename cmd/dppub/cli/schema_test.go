package cli

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

// sparseCSV is a table of rows × cols numeric columns that are exactly 0
// in 90% of rows (else lognormal around 1, 3 decimals) and a label of
// two words at 40/60, deterministic in seed.
func sparseCSV(seed uint64, rows, cols int) string {
	rng := rand.New(rand.NewPCG(seed, 38))
	var b strings.Builder
	for j := range cols {
		fmt.Fprintf(&b, "w%02d,", j)
	}
	b.WriteString("class\n")
	for range rows {
		for range cols {
			v := 0.0
			if rng.Float64() < 0.1 {
				v = max(rng.ExpFloat64()*rng.ExpFloat64(), 0.001)
			}
			fmt.Fprintf(&b, "%.3f,", v)
		}
		b.WriteString([]string{"ham", "spam"}[btoi(rng.Float64() < 0.4)] + "\n")
	}
	return b.String()
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// On 476 rows × 30 numeric columns at ε = 1, every column needs a
// person's bounds: each is listed by name (the summary folded all but 15
// into "... and N more columns"), the budget line says why nothing went
// to bounds, and the label keeps both classes.
func TestSchemaListsEveryColumnToReview(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "sparse.csv", sparseCSV(1, 476, 30))
	out := filepath.Join(dir, "s.json")
	stdout, _ := mustRun(t, "schema", in, "--epsilon", "1", "--label", "class", "--seed", "3", "--out", out)
	for j := range 30 {
		if !strings.Contains(stdout, fmt.Sprintf("! w%02d ", j)) {
			t.Errorf("column w%02d not listed for review:\n%s", j, stdout)
		}
	}
	if strings.Contains(stdout, "more columns that need") && !strings.Contains(stdout, "... and 1 more columns that need nothing") ||
		!strings.Contains(stdout, "Budget: numeric columns: on 476 rows") {
		t.Errorf("summary:\n%s", stdout)
	}
	b := readFile(t, out)
	var s struct {
		Draft      bool
		Attributes []struct {
			Name       string
			Categories []string
		}
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	class := s.Attributes[len(s.Attributes)-1]
	if !s.Draft || class.Name != "class" || strings.Join(class.Categories, ",") != "ham,spam,other" {
		t.Errorf("draft %v, %s categories %q", s.Draft, class.Name, class.Categories)
	}
}
