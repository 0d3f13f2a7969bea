package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"
	"testing"
)

// TestPPCAStreamedCSVIsTheWholeTables: `publish ppca-dp-mh --out FILE`
// writes the synthetic rows as they come; for a fixed seed the file is
// byte for byte what the whole-table path writes to standard output, its
// report holds the file's digest, the utility printed is the same, and an
// existing file is not replaced without --force.
func TestPPCAStreamedCSVIsTheWholeTables(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "synth.csv")
	args := []string{"publish", "ppca-dp-mh", "--dataset", "adult", "--owners", "3", "--epsilon", "1", "--seed", "5"}
	streamedOut, _ := mustRun(t, append(args, "--out", out)...)
	whole, stderr := mustRun(t, append(args, "--out", "-", "--report", filepath.Join(dir, "whole.json"))...)
	got := readFile(t, out)
	if string(got) != whole {
		t.Fatalf("streamed file (%d bytes) differs from the whole table's CSV (%d bytes)", len(got), len(whole))
	}
	var rep struct {
		OutputSHA256 map[string]string `json:"output_sha256"`
	}
	readJSON(t, out+".privacy.json", &rep)
	sum := sha256.Sum256(got)
	if rep.OutputSHA256["synth.csv"] != hex.EncodeToString(sum[:]) {
		t.Fatalf("report's digest %v, the file's %x", rep.OutputSHA256, sum)
	}
	// The utility goes to stderr with --out -; the same line both ways.
	utilityLine := func(s string) string {
		for _, l := range strings.Split(s, "\n") {
			if strings.Contains(l, "mean total-variation distance") {
				return l
			}
		}
		return ""
	}
	if u := utilityLine(streamedOut); u == "" || u != utilityLine(stderr) {
		t.Fatalf("utility streamed %q, whole %q", u, utilityLine(stderr))
	}
	if code, _, _ := run(t, append(args, "--out", out)...); code == 0 {
		t.Fatal("an existing output was replaced without --force")
	}
	if again := readFile(t, out); string(again) != string(got) {
		t.Fatal("a refused run changed the existing output")
	}
}
