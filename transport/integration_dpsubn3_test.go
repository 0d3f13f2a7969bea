package transport_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// A 3-owner DP-SUBN3 session between real processes publishes, for the
// same seed, byte for byte the table of `dppub publish dp-subn3` in one
// process on the owners' files, and its privacy report but for the run
// record.
func TestDPSUBN3NetworkMatchesOneProcess(t *testing.T) {
	c := newCluster(t, 3, 4000, nil, "--method", "dp-subn3")
	c.serveAll("--insecure-accept-seed")
	r := c.matchOneProcess(t, "dp-subn3", filepath.Join(c.dir, "net.csv"), filepath.Join(c.dir, "local.csv"),
		[]string{"--seed", "11", "--set", "epsilon=0.5", "--set", "k=2"},
		[]string{"--epsilon", "0.5", "--k", "2", "--seed", "11"})
	if !strings.Contains(r.stdout, "Wrote 4000 rows") {
		t.Fatalf("unexpected output:\n%s", r.stdout)
	}
	t.Logf("3-owner Adult (4000 rows), dp-subn3 over loopback mTLS: %v (%s)", r.took.Round(1e6), grab(r.stdout, `session \S+: (.*)`))
}
