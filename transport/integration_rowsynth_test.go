package transport_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/consortium"
	"github.com/dppub/dppub/dp"
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

// A 3-owner synthesize-rows session between real processes (secure
// aggregation of every release over loopback mutual TLS) publishes, for
// the same seed, byte for byte the table of `dppub publish
// synthesize-rows` in one process on the owners' files, and its privacy
// report but for the run record: on the paper method and on the
// adaptive one (which auto picks for these 4 000 rows), whose rounds add the
// owners' select requests (roles.KindSelect) to the counts; and under
// add/remove neighbours, where the owners' counts never leave them and
// their noisy total (roles.KindCount) is the first release.
func TestRowSynthNetworkMatchesOneProcess(t *testing.T) {
	for _, c := range []struct {
		name   string
		run    []string
		pub    []string
		method string // what the report's method names
		wrote  string // what the run says it wrote
		nb     string // the report's relation
	}{
		{"paper", []string{"--set", "method=paper"}, []string{"--method", "paper"}, "Algorithms 2-3 of PDP-MVDS", "Wrote 4000 rows", "replace-one"},
		{"adaptive", []string{"--set", "method=adaptive"}, []string{"--method", "adaptive"}, "the adaptive method", "Wrote 4000 rows", "replace-one"},
		// The noisy total (σ ≈ 16 at 1 % of ρ) is the number of rows.
		{"add-remove", []string{"--set", "neighbours=add-remove", "--set", "method=paper"}, []string{"--neighbours", "add-remove", "--method", "paper"}, "Algorithms 2-3 of PDP-MVDS", "Wrote ", "add-remove"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := servingCluster(t, "synthesize-rows", 3, 4000)
			r := cl.matchCSV(t, "synthesize-rows",
				append([]string{"--seed", "11", "--set", "epsilon=1", "--set", "delta=1e-5"}, c.run...),
				append([]string{"--epsilon", "1", "--delta", "1e-5", "--seed", "11"}, c.pub...))
			if !strings.Contains(r.stdout, c.wrote) {
				t.Fatalf("unexpected output:\n%s", r.stdout)
			}
			// The session ran the method named: its report records it.
			rep := readReport(t, filepath.Join(cl.dir, "net.csv"))
			if m := fmt.Sprint(rep["method"]); !strings.Contains(m, c.method) {
				t.Fatalf("the report's method is %q, want %q in it", m, c.method)
			}
			if nb := fmt.Sprint(rep["neighbours"]); nb != c.nb {
				t.Fatalf("the report's relation is %q, want %q", nb, c.nb)
			}
			logSession(t, "3-owner Adult (4000 rows), synthesize-rows, "+c.name, r)
		})
	}
}

// Under an injected wide-area latency (every owner holds each message
// until 50 ms after it arrived, so every round trip from the curator
// costs at least 50 ms, messages sent together once) a synthesize-rows
// session publishes the same bytes as without it; the log line gives its
// wall time and rounds, for docs/results/rows/ (the USENIX Security 2026
// vertical AIM protocol reports 24 minutes for Adult over a real WAN).
func TestRowSynthUnderWANLatency(t *testing.T) {
	if testing.Short() {
		t.Skip("about 10 s of injected latency")
	}
	c := newCluster(t, 3, 4000, nil, "--method", "synthesize-rows")
	c.serveAll("--insecure-accept-seed", "--fault-latency", "50ms")
	r := c.matchCSV(t, "synthesize-rows",
		[]string{"--seed", "11", "--set", "epsilon=1", "--set", "delta=1e-5"},
		[]string{"--epsilon", "1", "--delta", "1e-5", "--seed", "11"})
	requests := strings.Count(c.log("owner-1"), "type=rowsynth/request")
	t.Logf("3-owner Adult (4000 rows), synthesize-rows with 50 ms latency at every owner: %v for %d requests (%s)",
		r.took.Round(1e6), requests, grab(r.stdout, `session \S+: (.*)`))
}

// Owners whose lifetime budget is the natural (ε = 3, δ = 1e-5) join a
// synthesize-rows session at --epsilon 1 --delta 1e-5: the session spends
// ρ-zCDP and each owner's ledger counts it once, as the (ε, δ) its charged
// ρ converts to at δ = 1e-5. Then a session given only ρ is refused (no δ
// to count it at), and so is a second session at δ = 1e-5, the lifetime
// δ being spent.
func TestRowSynthOnEpsilonDeltaLifetime(t *testing.T) {
	c := newCluster(t, 2, 1200, nil, "--method", "synthesize-rows")
	c.editMembers(func(m *consortium.Member) {
		if m.Budget != nil {
			m.Budget = &consortium.Budget{Epsilon: 3, Delta: 1e-5}
		}
	})
	c.serveAll()
	out := filepath.Join(c.dir, "synth.csv")
	r := wait(c.runMethodCmd("synthesize-rows", out, "--set", "epsilon=1", "--set", "delta=1e-5", "--set", "rounds=3"))
	if r.err != nil {
		t.Fatalf("run: %v\n%s%s\n%s", r.err, r.stdout, r.stderr, c.logs())
	}
	if !strings.Contains(r.stdout, "owner-1: lifetime budget (ε=3, δ=1e-05), remaining (ε=2, δ=0)") {
		t.Fatalf("the run does not show the converted spend:\n%s", r.stdout)
	}
	for _, tc := range []struct {
		name     string
		settings []string
		want     string
	}{
		{"ρ without δ", []string{"--set", "epsilon=auto", "--set", "delta=auto", "--set", "rho=0.01"},
			"has no δ at which to count it against the (ε, δ) lifetime budget (ε=3, δ=1e-05): run the session with --epsilon and --delta"},
		{"the lifetime δ spent", []string{"--set", "epsilon=0.5", "--set", "delta=1e-5"},
			"counted at the session's δ=1e-05 as (ε=0.5, δ=1e-05), would exceed the lifetime budget (ε=3, δ=1e-05)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := wait(c.runMethodCmd("synthesize-rows", filepath.Join(c.dir, "refused.csv"), tc.settings...))
			if r.err == nil || !strings.Contains(r.stderr, tc.want) {
				t.Fatalf("want a refusal with %q, got %v:\n%s%s", tc.want, r.err, r.stdout, r.stderr)
			}
			t.Log(strings.TrimSpace(r.stderr))
		})
	}
	for _, name := range []string{"owner-1", "owner-2"} {
		c.stop(name)
		b := c.ledger(name) // verified
		if len(b.Converted) != 1 || b.Running != 0 {
			t.Fatalf("%s's ledger: %+v", name, b)
		}
		conv := b.Converted[0]
		want := dp.Approx(dp.ZCDPEpsilon(conv.Charged, 1e-5), 1e-5)
		if conv.Delta != 1e-5 || !(conv.Charged > 0) || conv.Charged > conv.Budget*(1+1e-9) || b.Spent != want || !(want.Epsilon <= 1+1e-9) {
			t.Fatalf("%s: spent %v, converted %+v, want %v", name, b.Spent, conv, want)
		}
		t.Logf("%s: %d ρ charges, %v; spent ε=%.9f, δ=%g; remaining ε=%.9f, δ=%g", name, b.Entries, conv, b.Spent.Epsilon, b.Spent.Delta, b.Remaining.Epsilon, b.Remaining.Delta)
	}
	shown := c.dppub("consortium", "budget", "--config", c.config, "--member", "owner-1")
	if !strings.Contains(shown, "zCDP sessions, each counted once") || !strings.Contains(shown, "at δ=1e-05") || !strings.Contains(shown, "remaining:       (ε=2, δ=0)") {
		t.Fatalf("dppub consortium budget:\n%s", shown)
	}
	t.Logf("dppub consortium budget:\n%s", strings.Join(strings.SplitN(shown, "\n", 8)[:7], "\n"))
}
