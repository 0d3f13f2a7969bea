package transport_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// A 3-owner synthesize-rows session between real processes (secure
// aggregation of every release over loopback mutual TLS) publishes, for
// the same seed, byte for byte the table of `dppub publish
// synthesize-rows` in one process on the owners' files, and its privacy
// report but for the run record.
func TestRowSynthNetworkMatchesOneProcess(t *testing.T) {
	c := newCluster(t, 3, 4000, nil, "--method", "synthesize-rows")
	c.serveAll("--insecure-accept-seed")
	inputs := c.ownerInputs()
	net := filepath.Join(c.dir, "net.csv")
	r := wait(c.runMethodCmd("synthesize-rows", net, "--seed", "11", "--set", "epsilon=1", "--set", "delta=1e-5"))
	if r.err != nil {
		t.Fatalf("run: %v\n%s%s\n%s", r.err, r.stdout, r.stderr, c.logs())
	}
	local := filepath.Join(c.dir, "local.csv")
	c.dppub(append([]string{"publish", "synthesize-rows", "--schema", filepath.Join(c.dir, "adult.schema.json"),
		"--epsilon", "1", "--delta", "1e-5", "--seed", "11", "--out", local}, inputs...)...)
	sameFile(t, net, local)
	sameReport(t, net, local)
	if !strings.Contains(r.stdout, "Wrote 4000 rows") {
		t.Fatalf("unexpected output:\n%s", r.stdout)
	}
	t.Logf("3-owner Adult (4000 rows), synthesize-rows over loopback mTLS: %v (%s)", r.took.Round(1e6), grab(r.stdout, `session \S+: (.*)`))
}
