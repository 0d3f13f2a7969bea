package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestPublishPrivBayesAndDPSUBN3OnCSV(t *testing.T) {
	schema, a, b := csvOwners(t)
	dir := t.TempDir()
	for _, c := range []struct {
		method string
		owners int
		args   []string
	}{
		{"privbayes", 1, []string{"--input", a, "--input", b}}, // joined into one central table
		{"dp-subn3", 2, []string{"--input", a, "--input", b, "--frontier", "2"}},
	} {
		out := filepath.Join(dir, c.method+".csv")
		args := append([]string{"publish", c.method, "--schema", schema, "--epsilon", "2", "--seed", "3", "--out", out}, c.args...)
		code, stdout, stderr := run(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.method, code, stderr)
		}
		if !strings.Contains(stdout, "Network (published, DP)") || !strings.Contains(stderr, "NO privacy guarantee") {
			t.Errorf("%s: output lacks the network or the seed warning:\n%s\n%s", c.method, stdout, stderr)
		}
		if lines := lineCount(t, out); lines != 111 {
			t.Errorf("%s: %d lines, want a header and 110 rows", c.method, lines)
		}
		r := readReport(t, out+".privacy.json")
		if r.Method != c.method || len(r.Parties) != c.owners || r.Claimed.Epsilon != 2 {
			t.Errorf("%s: report method %q, %d parties, overall %v", c.method, r.Method, len(r.Parties), r.Claimed)
		}
	}
}

func TestPublishBaselinesBadUsage(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"publish", "privbayes", "--dataset", "nltcs", "--owners", "3", "--out", filepath.Join(dir, "x.csv")},
		{"publish", "privbayes", "--dataset", "nltcs", "--beta", "1", "--out", filepath.Join(dir, "x.csv")},
		{"publish", "dp-subn3", "--dataset", "nltcs", "--score", "f", "--out", filepath.Join(dir, "x.csv")},
		{"publish", "dp-subn3", "--dataset", "nltcs"},
		{"eval", "baselines", "--paper", "lda-dp", "--figure", "4"},
	} {
		if code, _, _ := run(t, args...); code == 0 {
			t.Errorf("%v succeeded", args)
		}
	}
	notWritten(t, filepath.Join(dir, "x.csv"))
}

// PrivBayes' and DP-SUBN3's settings are checked by the method and named
// by their flags: a mistake in one is a usage error, not a failed run.
func TestPublishBaselinesNameTheFlag(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"privbayes", "--bins", "1"}, "--bins must be at least 2, got 1"},
		{[]string{"privbayes", "--beta", "1"}, "--beta must be in (0, 1), got 1"},
		{[]string{"dp-subn3", "--score", "f"}, `--score must be r or mi, got "f"`},
		{[]string{"dp-subn3", "--epsilon", "0"}, "--epsilon must be positive and finite, got 0"},
		{[]string{"dp-subn3", "--frontier", "-1"}, "--frontier must not be negative, got -1"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			args := append([]string{"publish"}, c.args...)
			code, _, stderr := run(t, append(args, "--dataset", "nltcs", "--out", filepath.Join(dir, "x.csv"))...)
			if code == 0 || !strings.Contains(stderr, c.want) || !strings.HasSuffix(strings.TrimSpace(stderr), "(see --help)") {
				t.Fatalf("exit %d, stderr %q, want the usage error %q … (see --help)", code, stderr, c.want)
			}
		})
	}
	// The settings' help tags are the flags' help.
	_, help, _ := run(t, "publish", "dp-subn3", "--help")
	if !strings.Contains(help, "most correlated with it in the prior as parents") {
		t.Errorf("--frontier has no help of its own:\n%s", help)
	}
}
