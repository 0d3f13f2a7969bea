package transport_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// A 3-party PDP-MVDS session between real processes (the synthesizer,
// three parties holding different columns of the same Adult rows, and the
// third party S) publishes, for the same seed, byte for byte the synthetic
// table and the privacy report of `dppub publish pdp-mvds` in one process
// on the parties' files.
func TestPDPMVDSNetworkMatchesOneProcess(t *testing.T) {
	c := newCluster(t, 3, 2000, nil, "--method", "pdp-mvds")
	c.serveAll("--insecure-accept-seed")
	c.serve("third-party", "--insecure-accept-seed")
	var inputs []string
	for _, m := range c.file.WithRole("owner") {
		inputs = append(inputs, "--input", c.file.Path(m.Dataset.Path))
	}
	net := filepath.Join(c.dir, "net.csv")
	r := wait(c.runMethodCmd("pdp-mvds", net, "--seed", "31", "--set", "rounds=5"))
	if r.err != nil {
		t.Fatalf("run: %v\n%s%s\n%s\n--- third-party:\n%s", r.err, r.stdout, r.stderr, c.logs(), c.log("third-party"))
	}
	local := filepath.Join(c.dir, "local.csv")
	c.dppub(append([]string{"publish", "pdp-mvds", "--schema", filepath.Join(c.dir, "adult.schema.json"),
		"--budgets", "0.5", "--rounds", "5", "--seed", "31", "--out", local}, inputs...)...)
	sameFile(t, net, local)
	sameFile(t, net+".privacy.json", local+".privacy.json")
	if !strings.Contains(r.stdout, "Wrote 2000 rows") {
		t.Fatalf("unexpected output:\n%s", r.stdout)
	}
	t.Logf("3-party Adult (2000 rows), pdp-mvds commodity over loopback mTLS: %v (%s)", r.took.Round(1e6), grab(r.stdout, `session \S+: (.*)`))
}
