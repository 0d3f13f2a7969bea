package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/method/dpsubn3"
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
	a, errA := os.ReadFile(own)
	b, errB := os.ReadFile(generic)
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	if !bytes.Equal(a, b) {
		t.Fatalf("the generic command published other rows than the method's own command (%d vs %d bytes)", len(b), len(a))
	}
	if !strings.Contains(stdout, "Bayesian network") {
		t.Fatalf("the summary is missing from the output:\n%s", stdout)
	}
	// Settings flags are bound from the settings struct and checked by the
	// method once.
	if code, _, stderr := run(t, "publish", "dp-subn3-generic", "--dataset", "wdbc", "--epsilon", "1", "--beta", "2", "--out", filepath.Join(dir, "x.csv")); code == 0 || !strings.Contains(stderr, "β") && !strings.Contains(stderr, "beta") {
		t.Fatalf("beta = 2 accepted or not named: exit %d, %q", code, stderr)
	}
}
