package transport_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dppub/dppub/consortium"
	"github.com/dppub/dppub/dp"
)

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
