package transport_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/consortium"
)

// A synthesize-rows session between real processes in which owners bring
// fine statistics files (`dppub statistics --fine`) instead of their rows
// publishes, for the same seed and --max-cells 1 (pairs only, what fine
// cells answer exactly), byte for byte the table of the same session
// whose owners hold their rows, and of `dppub publish synthesize-rows` in
// one process from the rows and from the statistics files; and the same
// privacy report but for the run record. Each session runs in its own
// consortium: a seeded session's ID repeats, and an owner runs a session
// ID only once.
func TestRowSynthStatisticsOwnersMatchRows(t *testing.T) {
	const rows, seed = "4000", "11"
	set := []string{"--seed", seed, "--set", "epsilon=1", "--set", "delta=1e-5", "--set", "max_cells=1"}
	flags := []string{"--epsilon", "1", "--delta", "1e-5", "--max-cells", "1", "--seed", seed}

	// The owners holding rows: the networked run the others must equal.
	c := servingCluster(t, "synthesize-rows", 2, 4000)
	want := filepath.Join(c.dir, "rows-net.csv")
	r := wait(c.runMethodCmd("synthesize-rows", want, set...))
	if r.err != nil {
		t.Fatalf("run with rows: %v\n%s%s\n%s", r.err, r.stdout, r.stderr, c.logs())
	}
	if !strings.Contains(r.stdout, "Wrote "+rows+" rows") {
		t.Fatalf("unexpected output:\n%s", r.stdout)
	}
	schema := filepath.Join(c.dir, "adult.schema.json")
	local := filepath.Join(c.dir, "rows-local.csv")
	c.dppub(append(append([]string{"publish", "synthesize-rows", "--schema", schema, "--out", local, "--quiet"}, flags...), c.ownerInputs()...)...)
	sameFile(t, want, local)
	sameReport(t, want, local)

	cases := []struct {
		name  string
		stats []string // the owners that bring statistics files
	}{
		{"owner-1 on statistics, owner-2 on rows", []string{"owner-1"}},
		{"every owner on statistics", []string{"owner-1", "owner-2"}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if testing.Short() && i > 0 {
				t.Skip("a further consortium of real processes (seconds); runs without -short")
			}
			s := newCluster(t, 2, 4000, nil, "--method", "synthesize-rows")
			var statFlags []string
			for _, m := range s.file.WithRole("owner") {
				if slices.Contains(tc.stats, m.Name) {
					statFlags = append(statFlags, "--statistics", s.useStatistics(m.Name))
				}
			}
			s.serveAll("--insecure-accept-seed")
			net := filepath.Join(s.dir, "net.csv")
			r := wait(s.runMethodCmd("synthesize-rows", net, set...))
			if r.err != nil {
				t.Fatalf("run: %v\n%s%s\n%s", r.err, r.stdout, r.stderr, s.logs())
			}
			for _, name := range tc.stats {
				// The owner answered from its file, not from rows.
				if log := s.log(name); !strings.Contains(log, "source=statistics") {
					t.Fatalf("%s did not join from its statistics file:\n%s", name, log)
				}
			}
			sameFile(t, net, want)
			sameReport(t, net, want)
			t.Logf("2-owner Adult (%s rows), synthesize-rows with %v on statistics over loopback mTLS: %v (%s)",
				rows, tc.stats, r.took.Round(1e6), grab(r.stdout, `session \S+: (.*)`))
			if len(tc.stats) == len(s.file.WithRole("owner")) {
				// In one process from the same files.
				fromStats := filepath.Join(s.dir, "stats-local.csv")
				s.dppub(append(append([]string{"publish", "synthesize-rows", "--schema", schema, "--out", fromStats, "--quiet"}, flags...), statFlags...)...)
				sameFile(t, fromStats, want)
				sameReport(t, fromStats, want)
			}
		})
	}
}

// useStatistics computes the owner's fine statistics file from its rows
// with `dppub statistics --fine` and makes the consortium file name it
// instead of the rows (the owner's server reads the file at each join);
// it returns the file's path.
func (c *cluster) useStatistics(name string) string {
	c.t.Helper()
	m, err := c.file.Member(name)
	if err != nil {
		c.t.Fatal(err)
	}
	out := filepath.Join(c.dir, name+".stats")
	c.dppub("statistics", "--fine", "--quiet", "--input", c.file.Path(m.Dataset.Path),
		"--schema", c.file.Path(m.Dataset.Schema), "--out", out)
	c.editMembers(func(m *consortium.Member) {
		if m.Name == name {
			m.Dataset.Path, m.Dataset.Statistics = "", name+".stats"
		}
	})
	return out
}
