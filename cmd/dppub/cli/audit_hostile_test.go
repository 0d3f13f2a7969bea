package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/audit/catalog"
)

// `dppub audit hostile-coordinator` runs every attack and each passes;
// the JSON names each attack with what the member did.
func TestAuditHostileCoordinator(t *testing.T) {
	out, _ := mustRun(t, "audit", "hostile-coordinator", "--json")
	var rs []audit.HostileResult
	if err := json.Unmarshal([]byte(out), &rs); err != nil {
		t.Fatal(err)
	}
	want, err := catalog.All().HostileSuite()
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != len(want) {
		t.Fatalf("%d results for %d attacks", len(rs), len(want))
	}
	for _, r := range rs {
		if r.Verdict != "PASS" || r.Got != r.Expect || r.Detail == "" {
			t.Errorf("%s / %s: %+v", r.Method, r.Name, r)
		}
	}
	code, out, _ := run(t, "audit", "--help")
	if code != 0 || !strings.Contains(out, "hostile-coordinator") {
		t.Fatalf("audit --help does not list hostile-coordinator:\n%s", out)
	}
}
