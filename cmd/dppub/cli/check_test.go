package cli

import (
	"strings"
	"testing"
)

// The command refuses a "synthetic" file that copies the real rows (the
// DCR attack's advantage is 1: every member has an exact copy, no held-out
// row does) and accepts one made of other rows of the population, half
// of which equal held-out rows, so the held-out side is the closer one
// and the advantage is negative whatever rows the check samples.
func TestCheckRefusesCopiedRows(t *testing.T) {
	dir, schema := peopleSchema(t)
	rows := strings.Split(strings.TrimSpace(csvRows(300)), "\n")
	header, body := rows[0], rows[1:]
	var realRows, holdRows []string
	for i, r := range body {
		// Distinct rows: 150 real, 150 held out, alternating.
		if i%2 == 0 {
			realRows = append(realRows, r)
		} else {
			holdRows = append(holdRows, r)
		}
	}
	join := func(rs []string) string { return header + "\n" + strings.Join(rs, "\n") + "\n" }
	real := writeFile(t, dir, "real.csv", join(realRows))
	hold := writeFile(t, dir, "hold.csv", join(holdRows[:120]))
	copied := writeFile(t, dir, "copied.csv", join(realRows))
	fresh := writeFile(t, dir, "fresh.csv", join(holdRows[120:]))

	code, out, errOut := run(t, "check", "--real", real, "--holdout", hold, "--synthetic", copied, "--schema", schema)
	if code == 0 || !strings.Contains(out, "REFUSED") || !strings.Contains(errOut, "distance-to-closest-record") {
		t.Errorf("copied rows: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = run(t, "check", "--real", real, "--holdout", hold, "--synthetic", fresh, "--schema", schema, "--max-advantage", "0.3")
	if code != 0 || !strings.Contains(out, "PASS") {
		t.Errorf("held-out rows as the synthetic table: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, _, _ := run(t, "check", "--real", real, "--schema", schema); code == 0 {
		t.Error("missing --holdout and --synthetic accepted")
	}
}
