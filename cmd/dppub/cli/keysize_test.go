package cli

import (
	"os"
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
	code, _, errs := run(t, "keygen", "--parties", "2", "--bits", "512", "--seed", "1", "--out", keys)
	if code == 0 || !strings.Contains(errs, "--insecure-test-keys") {
		t.Fatalf("keygen of a 512-bit key without the insecure flag: exit %d, stderr %q", code, errs)
	}
	notWritten(t, keys)
	if code, _, errs = run(t, "keygen", "--parties", "2", "--bits", "512", "--insecure-test-keys", "--seed", "1", "--out", keys); code != 0 {
		t.Fatalf("keygen: exit %d: %s", code, errs)
	}
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
		code, _, errs := run(t, append(base, c.extra...)...)
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.extra, code, errs, c.want)
		}
		if _, err := os.Stat(synth); err == nil {
			t.Fatalf("%v: a refused run wrote %s", c.extra, synth)
		}
	}
	code, out, errs := run(t, append(base, "--insecure-test-keys")...)
	if code != 0 {
		t.Fatalf("publish: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "Paillier keys of 512 bits") || strings.Contains(out, "2048 bits") {
		t.Errorf("the report does not state the real key size:\n%s", out)
	}
	mentions(t, "the privacy report", string(readFile(t, synth+".privacy.json")), "INSECURE 512-bit")
	mentions(t, "the protocol report", string(readFile(t, synth+".protocol.json")), `"key_bits": 512`)
}
