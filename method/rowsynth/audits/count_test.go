package audits

import (
	"strings"
	"testing"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/audit/audittest"
	proto "github.com/dppub/dppub/method/rowsynth/roles"
)

// The owners' add/remove record count, audited through the whole
// protocol against the exact (ε = 1, δ) profile of its calibration: one
// added record passes in both noise modes (the audit's confidence allows
// a false VIOLATION in 5 % of seeds); three added records, which the
// calibration does not cover (true δ at ε = 1 about 0.7 against 0.127),
// are caught.
func TestRecordCountRowsAudit(t *testing.T) {
	// Each run is a whole protocol run (keys, masks, shares): about 5 ms.
	runs := 2_000
	if testing.Short() {
		runs = 800
	}
	for _, c := range []struct {
		name  string
		mode  proto.NoiseMode
		added int
		want  audit.Verdict
	}{
		{"default (insider-safe)", "", 1, audit.Pass},
		{"exact", proto.NoiseExact, 1, audit.Pass},
		{"three added", proto.NoiseExact, 3, audit.Violation},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := RecordCountRows(c.mode, c.added)
			r := audittest.MustRun(t, m, err, runs, 71)
			t.Logf("ε ≥ %.3f (claimed %.3f at δ %.3g)", r.EpsilonLower, r.ClaimedEpsilon, m.Claim.Delta)
			if r.Verdict != c.want {
				t.Errorf("verdict %s, want %s", r.Verdict, c.want)
			}
		})
	}
}

// A coordinator that names add/remove to an owner of a replace-one
// session (with the add/remove calibration) or asks it for its record
// count is refused before any charge.
func TestHostileAddRemoveClaimsRefused(t *testing.T) {
	found := 0
	for _, a := range rowsHostileAttacks() {
		if !strings.Contains(a.Name, "replace-one owner") {
			continue
		}
		found++
		r, err := a.Run()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %s (%s)", a.Name, r.Got, r.Detail)
		if r.Verdict != "PASS" {
			t.Errorf("%s: got %s, want %s: %s", a.Name, r.Got, a.Expect, r.Detail)
		}
	}
	if found != 2 {
		t.Fatalf("%d add/remove attacks, want 2", found)
	}
}
