package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// The key size is the real one everywhere: keygen refuses a test-size key
// without --insecure-test-keys (writing nothing), the key files state
// their size, and publishing with them takes the size from the files — a
// disagreeing --key-bits or a test-size key without the insecure flag is
// refused before anything runs, and the report and protocol report state
// 512 bits, not the 2048 default.
func TestKeySizeIsStatedAndChecked(t *testing.T) {
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys")
	refused(t, "--insecure-test-keys", []string{keys}, "keygen", "--parties", "2", "--bits", "512", "--seed", "1", "--out", keys)
	mustRun(t, "keygen", "--parties", "2", "--bits", "512", "--insecure-test-keys", "--seed", "1", "--out", keys)
	for _, name := range []string{"public-key.json", "party-1.key.json", "party-2.key.json"} {
		mentions(t, name, string(readFile(t, filepath.Join(keys, name))), `"bits": 512`)
	}
	schema, a, b := pdpmvdsParts(t, dir)
	synth := filepath.Join(dir, "synth.csv")
	base := []string{"publish", "pdp-mvds", "--input", a, "--input", b, "--schema", schema, "--budgets", "1,2",
		"--sspp", "paillier", "--keys", keys, "--rounds", "3", "--seed", "2", "--out", synth}
	for _, c := range []struct {
		extra []string
		want  string
	}{
		{nil, "INSECURE 512-bit key; add --insecure-test-keys"},
		{[]string{"--insecure-test-keys", "--key-bits", "2048"}, "--key-bits 2048, but the key files in " + keys + " hold a 512-bit key"},
	} {
		refused(t, c.want, []string{synth}, append(base, c.extra...)...)
	}
	out, _ := mustRun(t, append(base, "--insecure-test-keys")...)
	if !strings.Contains(out, "Paillier keys of 512 bits") || strings.Contains(out, "2048 bits") {
		t.Errorf("the report does not state the real key size:\n%s", out)
	}
	mentions(t, "the privacy report", string(readFile(t, synth+".privacy.json")), "INSECURE 512-bit")
	mentions(t, "the protocol report", string(readFile(t, synth+".protocol.json")), `"key_bits": 512`)
}
