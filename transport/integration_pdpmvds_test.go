package transport_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dppub/dppub/consortium"
)

// A 3-party PDP-MVDS session between real processes (the synthesizer,
// three parties holding different columns of the same Adult rows, and the
// third party S) publishes, for the same seed, byte for byte the synthetic
// table of `dppub publish pdp-mvds` in one process on the parties' files,
// and its privacy report but for the run record: with the equal-width
// bins, and with bins each party chooses from its own columns (bin_share),
// whose edges travel in a phase before the setup.
func TestPDPMVDSNetworkMatchesOneProcess(t *testing.T) {
	c := servingCluster(t, "pdp-mvds", 3, 2000)
	c.serve("third-party", "--insecure-accept-seed")
	for _, tc := range []struct {
		name  string
		seed  string   // also names the session, which a member runs once
		set   []string // the network run's settings
		flags []string // the one-process run's
	}{
		{name: "equal-width bins", seed: "31"},
		{name: "bins chosen by the parties", seed: "33", set: []string{"--set", "bin_share=0.05"}, flags: []string{"--bin-share", "0.05"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			net := filepath.Join(dir, "net.csv")
			r := c.matchOneProcess(t, "pdp-mvds", net, filepath.Join(dir, "local.csv"),
				append([]string{"--seed", tc.seed, "--set", "rounds=5"}, tc.set...),
				append([]string{"--budgets", "0.5", "--rounds", "5", "--seed", tc.seed}, tc.flags...), "third-party")
			if !strings.Contains(r.stdout, "Wrote 2000 rows") {
				t.Fatalf("unexpected output:\n%s", r.stdout)
			}
			js, _ := json.Marshal(readReport(t, net))
			bins := strings.Count(string(js), `"purpose":"bins of `)
			if want := map[bool]int{false: 0, true: 6}[tc.set != nil]; bins != want {
				t.Errorf("the report lists %d charges for bins, want %d", bins, want)
			}
			logSession(t, "3-party Adult (2000 rows), pdp-mvds commodity", r)
		})
	}
}

// The Paillier suite over the network: every party reads only its own
// key file of the ceremony and S only the public key; the outputs equal
// those of one process with the same key files and seed. (INSECURE
// 512-bit keys, which every member must consent to, to keep the test
// short.)
func TestPDPMVDSPaillierNetworkMatchesOneProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("the Paillier suite between real processes (about 15–28 s on 2 cores; the commodity suite's run stays in -short); runs without -short")
	}
	c := newCluster(t, 2, 300, nil, "--method", "pdp-mvds")
	c.dppub("keygen", "--parties", "2", "--bits", "512", "--insecure-test-keys", "--out", filepath.Join(c.dir, "keys"))
	c.allowUnsound()
	c.serveAll("--insecure-accept-seed")
	c.serve("third-party", "--insecure-accept-seed")
	r := c.matchCSV(t, "pdp-mvds",
		[]string{"--seed", "32", "--set", "rounds=3", "--set", "sspp=paillier",
			"--set", "keys=keys", "--set", "key_bits=512", "--set", "insecure_test_keys=true"},
		[]string{"--budgets", "0.5", "--rounds", "3", "--sspp", "paillier", "--keys", filepath.Join(c.dir, "keys"),
			"--key-bits", "512", "--insecure-test-keys", "--seed", "32"}, "third-party")
	logSession(t, "2-party Adult (300 rows), pdp-mvds paillier-512", r)
}

// allowUnsound sets allow_unsound for every member and reloads the file.
func (c *cluster) allowUnsound() {
	c.t.Helper()
	c.editMembers(func(m *consortium.Member) { m.AllowUnsound = true })
}

// With link and bin_share between real processes, each party chooses its
// bins from its linked rows as soon as it has linked, possibly before
// another party's count reaches the synthesizer, which holds them: the
// table equals, byte for byte for the same seed, that of `dppub publish
// pdp-mvds --link --bin-share 0.05` in one process. (About 6 s on 2
// cores; the linkage and the bins phase are each tested between
// processes in -short by TestPDPMVDSLinkedNetwork and
// TestPDPMVDSNetworkMatchesOneProcess, and together in one process by
// publish's TestPDPMVDSLinkedBins.)
func TestPDPMVDSLinkedBinsNetwork(t *testing.T) {
	if testing.Short() {
		t.Skip("a linked session with data-chosen bins between real processes (about 6 s)")
	}
	l := runLinked(t, `{"rho": 0.5, "link": true, "delta": 1e-7, "rounds": 5, "bin_share": 0.05}`, "47")
	c, net := l.c, l.net
	local, _ := c.publishLinked(t, "47", "--bin-share", "0.05")
	sameFile(t, net, local)
	sameReport(t, net, local)
	js, _ := json.Marshal(readReport(t, net))
	if bins := strings.Count(string(js), `"purpose":"bins of `); bins != 6 {
		t.Errorf("the report lists %d charges for bins, want 6", bins)
	}
}
