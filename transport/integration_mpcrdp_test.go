package transport_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// A 3-party MP-CRDP session between real processes (each party holding
// its own columns of the same Adult records) publishes, for the same
// seed, byte for byte the model and the query answers of `dppub publish
// mp-crdp` in one process on the parties' files, and its privacy report
// but for the run record.
func TestMPCRDPNetworkMatchesOneProcess(t *testing.T) {
	c := servingCluster(t, "mp-crdp", 3, 3000)
	for _, tc := range []struct {
		name, seed string
		set, flags []string
	}{
		{"logreg", "21", nil, nil},
		{"queries", "22", []string{"--set", "release=queries", "--set", "num_queries=200"}, []string{"--release", "queries", "--num-queries", "200"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := c.matchOneProcess(t, "mp-crdp", filepath.Join(c.dir, tc.name+"-net.out"), filepath.Join(c.dir, tc.name+"-local.out"),
				append([]string{"--seed", tc.seed}, tc.set...),
				append([]string{"--label", "income", "--epsilon", "1", "--notion", "standard", "--b", "2", "--seed", tc.seed}, tc.flags...))
			if !strings.Contains(r.stdout, "released over 3000 joined records") {
				t.Fatalf("unexpected output:\n%s", r.stdout)
			}
			logSession(t, "3-party Adult (3000 records), mp-crdp "+tc.name, r)
		})
	}
}
