package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// Rows dropped for a missing value are counted on stderr by every command
// that publishes from a file (the count is the owner's, never released).
func TestDroppedRowsAreCounted(t *testing.T) {
	dir, schema := peopleSchema(t)
	in := writeFile(t, dir, "in.csv", csvRows(200)+"?,no,north\n33,,south\n")
	for _, c := range []struct {
		name string
		args []string
	}{
		{"synthesize", []string{"synthesize", "--rho", "1"}},
		{"privbayes", []string{"publish", "privbayes", "--epsilon", "1"}},
		{"ppca-dp-mh", []string{"publish", "ppca-dp-mh", "--epsilon", "1", "--owners", "1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.csv")
			args := append(c.args, "--input", in, "--schema", schema, "--seed", "1", "--out", out)
			_, stderr := mustRun(t, args...)
			if !strings.Contains(stderr, "2 of 202 rows dropped for a missing value") {
				t.Fatalf("stderr does not count the dropped rows:\n%s", stderr)
			}
		})
	}
}
