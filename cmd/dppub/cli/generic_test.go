package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/method/dpsubn3"
	bnspec "github.com/dppub/dppub/method/privbayes"
	synthspec "github.com/dppub/dppub/method/synthesize"
)

var registerGeneric sync.Once

// TestGenericPublishEqualsOwnCommand registers DP-SUBN3's spec again
// under another name, which therefore gets the generic `publish` command
// built from the registry alone, and checks that it publishes exactly
// what DP-SUBN3's own command publishes for the same flags and seed: a
// new method needs no CLI code.
func TestGenericPublishEqualsOwnCommand(t *testing.T) {
	registerGeneric.Do(func() {
		s := dpsubn3.Spec
		s.Name = "dp-subn3-generic"
		method.Register(s)
	})
	dir := t.TempDir()
	own, generic := filepath.Join(dir, "own.csv"), filepath.Join(dir, "generic.csv")
	if code, _, stderr := run(t, "publish", "dp-subn3", "--dataset", "wdbc", "--owners", "3", "--epsilon", "1",
		"--seed", "5", "--out", own); code != 0 {
		t.Fatalf("own command: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := run(t, "publish", "dp-subn3-generic", "--dataset", "wdbc", "--owners", "3", "--epsilon", "1",
		"--seed", "5", "--out", generic)
	if code != 0 {
		t.Fatalf("generic command: exit %d: %s", code, stderr)
	}
	sameBytes(t, own, generic, "the generic command published other rows than the method's own command")
	if !strings.Contains(stdout, "Bayesian network") {
		t.Fatalf("the summary is missing from the output:\n%s", stdout)
	}
	// Settings flags are bound from the settings struct and checked by the
	// method once.
	if code, _, stderr := run(t, "publish", "dp-subn3-generic", "--dataset", "wdbc", "--epsilon", "1", "--beta", "2", "--out", filepath.Join(dir, "x.csv")); code == 0 || !strings.Contains(stderr, "β") && !strings.Contains(stderr, "beta") {
		t.Fatalf("beta = 2 accepted or not named: exit %d, %q", code, stderr)
	}
}

var registerGenericCentral sync.Once

// TestGenericCentralEqualsOwnCommand registers PrivBayes' central spec
// again under another name, which therefore gets the generic `publish`
// command of a central method (method.RunCentral on one owner's table),
// and checks that it publishes exactly what PrivBayes' own command
// publishes for the same flags and seed, from a dataset and from a file
// with extra columns left out; the methods with commands of their own
// (dppub synthesize among them) get no generic one.
func TestGenericCentralEqualsOwnCommand(t *testing.T) {
	const name = "privbayes-generic"
	registerGenericCentral.Do(func() {
		s := bnspec.Spec
		s.Name = name
		method.Register(s)
	})
	dir, schema := peopleSchema(t)
	lines := strings.Split(strings.TrimSpace(csvRows(200)), "\n")
	for i := range lines {
		lines[i] = map[bool]string{true: "pid", false: "p" + itoa(i)}[i == 0] + "," + lines[i]
	}
	in := writeFile(t, dir, "in.csv", strings.Join(lines, "\n")+"\n")
	for _, c := range []struct {
		name string
		data []string
	}{
		{"dataset", []string{"--dataset", "wdbc"}},
		{"file with an extra column", []string{"--input", in, "--schema", schema, "--skip-columns", "pid"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			own, generic := filepath.Join(dir, c.name+"-own.csv"), filepath.Join(dir, c.name+"-generic.csv")
			flags := append([]string{"--epsilon", "1", "--bins", "6", "--seed", "5"}, c.data...)
			if code, _, stderr := run(t, append([]string{"publish", bnspec.Name, "--out", own}, flags...)...); code != 0 {
				t.Fatalf("own command: exit %d: %s", code, stderr)
			}
			code, stdout, stderr := run(t, append([]string{"publish", name, "--out", generic}, flags...)...)
			if code != 0 {
				t.Fatalf("generic command: exit %d: %s", code, stderr)
			}
			sameBytes(t, own, generic, "the generic command published other rows than the method's own command")
			// The report names the method its run is (the spec's own run).
			if !strings.Contains(stdout, "Privacy report: "+bnspec.Name) || !strings.Contains(stdout, "Wrote "+generic) {
				t.Fatalf("the summary is missing from the output:\n%s", stdout)
			}
			written(t, generic+".privacy.json")
		})
	}
	// A mistake in a setting is named by its flag, as a usage error.
	code, _, stderr := run(t, "publish", name, "--dataset", "wdbc", "--epsilon", "1", "--beta", "2", "--out", filepath.Join(dir, "x.csv"))
	if code == 0 || !strings.Contains(stderr, "--beta must be in (0, 1), got 2 (see --help)") {
		t.Fatalf("beta = 2: exit %d, %q", code, stderr)
	}
	// Only methods without commands of their own get the generic one.
	root := NewRoot(&bytes.Buffer{}, &bytes.Buffer{})
	if c, _, err := root.Find([]string{"publish", name}); err != nil || !strings.Contains(c.Long, "Runs the method in one place") {
		t.Errorf("no generic central command for %s (%v)", name, err)
	}
	for _, m := range []string{synthspec.Name, bnspec.Name, "dppca-svm"} {
		if c, _, err := root.Find([]string{"publish", m}); err == nil && c.Name() == m && strings.Contains(c.Long, "Runs the method in one place") {
			t.Errorf("%s, which has its own command, got the generic one too", m)
		}
	}
}
