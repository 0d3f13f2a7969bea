package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pdpmvdsParts writes two owners' files of the same 120 records: ids,
// owner 1's age and smoker, owner 2's region (rows in another order).
func pdpmvdsParts(t *testing.T, dir string) (schema, a, b string) {
	t.Helper()
	var sa, sb strings.Builder
	sa.WriteString("id,age,smoker\n")
	sb.WriteString("region,id\n")
	regions := []string{"north", "south", "east"}
	for i := range 120 {
		smoker := "no"
		if i%3 == 0 {
			smoker = "yes"
		}
		sa.WriteString("p" + itoa(i) + "," + itoa(20+i%50) + "," + smoker + "\n")
		j := 119 - i
		sb.WriteString(regions[(j+j/7)%3] + ",p" + itoa(j) + "\n")
	}
	return writeFile(t, dir, "s.json", `{"id": "id", "attributes": [
 {"name": "age", "kind": "numeric", "min": 0, "max": 100, "integer": true},
 {"name": "smoker", "kind": "binary", "categories": ["no", "yes"]},
 {"name": "region", "kind": "categorical", "categories": ["north", "south", "east"]}]}`),
		writeFile(t, dir, "a.csv", sa.String()), writeFile(t, dir, "b.csv", sb.String())
}

// testKeys runs the key ceremony of two owners' 512-bit test keys into
// dir/keys; it returns that directory and what the ceremony printed.
func testKeys(t *testing.T, dir string) (keys, stdout string) {
	t.Helper()
	keys = filepath.Join(dir, "keys")
	stdout, _ = mustRun(t, "keygen", "--parties", "2", "--bits", "512", "--insecure-test-keys", "--seed", "1", "--out", keys)
	return keys, stdout
}

// TestKeygenAndPublishPaillier: the key ceremony writes one secret file
// per owner and the public key; publishing with those files through the
// Paillier suite writes the synthetic rows, the privacy report and the
// protocol report.
func TestKeygenAndPublishPaillier(t *testing.T) {
	dir := t.TempDir()
	keys, out := testKeys(t, dir)
	if !strings.Contains(out, "INSECURE") || !strings.Contains(out, "erase") {
		t.Errorf("keygen output lacks its warnings:\n%s", out)
	}
	st, err := os.Stat(filepath.Join(keys, "party-1.key.json"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		t.Errorf("key file mode %v is readable by others", st.Mode().Perm())
	}
	schema, a, b := pdpmvdsParts(t, dir)
	synth := filepath.Join(dir, "synth.csv")
	out, _ = mustRun(t, "publish", "pdp-mvds", "--input", a, "--input", b, "--schema", schema, "--budgets", "1,2",
		"--sspp", "paillier", "--keys", keys, "--key-bits", "512", "--insecure-test-keys", "--rounds", "3", "--seed", "2", "--out", synth)
	mentions(t, "output", out, "sign step", "key ceremony", "Protocol cost per phase", "pair scores")
	js := readFile(t, synth+".protocol.json")
	var rep struct {
		Suite  string `json:"suite"`
		Phases []struct {
			Name string         `json:"name"`
			Ops  map[string]any `json:"paillier_ops"`
		} `json:"phases"`
	}
	if err := json.Unmarshal(js, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Suite != "paillier" || len(rep.Phases) < 3 {
		t.Errorf("protocol report: %s", js)
	}
	if lines := lineCount(t, synth); lines != 121 {
		t.Errorf("synthetic file has %d lines, want 121", lines)
	}
}

// TestPublishPDPMVDSBadFlags: bad choices are usage errors and write
// nothing.
func TestPublishPDPMVDSBadFlags(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "o.csv")
	for _, args := range [][]string{
		{"--dataset", "adult", "--budgets", "1", "--sspp", "magic", "--out", out},
		{"--dataset", "adult", "--budgets", "1", "--sspp", "paillier", "--key-bits", "1024", "--out", out},
		{"--dataset", "adult", "--budgets", "1,2", "--parties", "3", "--out", out},
		{"--dataset", "adult", "--out", out},
		{"--dataset", "adult", "--budgets", "1", "--noise", "loud", "--out", out},
	} {
		refused(t, "--help", []string{out}, append([]string{"publish", "pdp-mvds"}, args...)...)
	}
	if code, _, _ := run(t, "keygen", "--parties", "1", "--out", dir); code == 0 {
		t.Error("keygen accepted one party")
	}
}

// The key size is the real one everywhere: keygen refuses a test-size key
// without --insecure-test-keys (writing nothing), the key files state
// their size, and publishing with them takes the size from the files — a
// disagreeing --key-bits or a test-size key without the insecure flag is
// refused before anything runs, and the report and protocol report state
// 512 bits, not the 2048 default.
func TestKeySizeIsStatedAndChecked(t *testing.T) {
	dir := t.TempDir()
	refused(t, "--insecure-test-keys", []string{filepath.Join(dir, "keys")}, "keygen", "--parties", "2", "--bits", "512", "--seed", "1", "--out", filepath.Join(dir, "keys"))
	keys, _ := testKeys(t, dir)
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
