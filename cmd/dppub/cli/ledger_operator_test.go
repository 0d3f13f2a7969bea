package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// ledger verify --operator: the help says what the file is and where it
// comes from, a copy of DIR/operator taken when the ledger was created
// verifies it, and another publisher's key does not.
func TestLedgerVerifyOperatorFile(t *testing.T) {
	code, help, _ := run(t, "ledger", "verify", "--help")
	for _, want := range []string{"DIR/operator", "NAME+HASH+KEY", "when the ledger is created", "--operator publisher.pub"} {
		if code != 0 || !strings.Contains(help, want) {
			t.Errorf("ledger verify --help lacks %q", want)
		}
	}
	dir := t.TempDir()
	for _, name := range []string{"a", "b"} {
		code, _, stderr := run(t, "publish", "mul-lda-dp", "--dataset", "nltcs", "--label", "money", "--epsilon", "1",
			"--delta", "1e-3", "--seed", "5", "--ledger", filepath.Join(dir, name), "--out", filepath.Join(dir, name+".csv"))
		if code != 0 {
			t.Fatalf("publish %s: exit %d: %s", name, code, stderr)
		}
	}
	op := readFile(t, filepath.Join(dir, "a", "operator"))
	pub := writeFile(t, t.TempDir(), "publisher.pub", string(op))
	if code, stdout, stderr := run(t, "ledger", "verify", filepath.Join(dir, "a"), "--operator", pub); code != 0 ||
		!strings.Contains(stdout, "ledger OK") || strings.Contains(stdout, "trust: keys read from the ledger directory") {
		t.Errorf("verify with the copied operator key: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, _ := run(t, "ledger", "verify", filepath.Join(dir, "b"), "--operator", pub); code == 0 {
		t.Errorf("ledger b verified with ledger a's operator key:\n%s", stdout)
	}
}
