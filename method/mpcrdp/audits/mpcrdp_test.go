package audits

import (
	"strings"
	"testing"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/audit/audittest"
	mpcrdp "github.com/dppub/dppub/method/mpcrdp/crdp"
	"github.com/dppub/dppub/randx"
)

// MP-CRDP's releases at the standard notion pass, each with a bound above
// a floor (the pair moves the output measurably); the paper's per-query
// count-query noise is caught (four answers at Laplace(1/ε) each are 4ε-DP:
// the bound should be well above 1), and so is the paper's Δu2 = 1/K
// (true ε = 2.5 for the pair under permute-and-flip, see MPCRDPU2). The data-dependent
// notions are not standard DP: a duplicate doubles the noise scale, and
// the four answers (or FM's weights) reveal it. Seeded runs; a fresh seed
// would turn a PASS into a false VIOLATION with probability at most 5%,
// and the ranges hold with probability above 0.99 over seeds (binomial
// spread of the hit counts at these run counts).
func TestMPCRDPAudits(t *testing.T) {
	if testing.Short() {
		t.Skip("every MP-CRDP audit at full run counts (about 12–28 s on 2 cores); runs without -short")
	}
	for _, tc := range []struct {
		method, calibration, mechanism string
		want                           audit.Verdict
		lo, hi                         float64
	}{
		{"mp-crdp-queries", "sound", "", audit.Pass, 0.7, 1},
		{"mp-crdp-queries", "paper", "", audit.Violation, 2.5, 4},
		{"mp-crdp-fm", "", "", audit.Pass, 0.05, 1},
		{"mp-crdp-svm", "", "", audit.Pass, 0.05, 1},
		{"mp-crdp-stability", "", "", audit.Pass, 0.05, 1},
		{"mp-crdp-pearson", "", "", audit.Pass, 0.6, 1},
		{"mp-crdp-u1", "", "", audit.Pass, 0.05, 1},
		{"mp-crdp-entropy", "", "", audit.Pass, 0.6, 1},
		{"mp-crdp-u2", "sound", "", audit.Pass, 0.05, 0.25},
		{"mp-crdp-u2", "paper", "", audit.Violation, 1.8, 2.5},
		{"mp-crdp-release", "sound", "queries", audit.Pass, 0.7, 1},
		{"mp-crdp-release", "paper", "queries", audit.Violation, 2.5, 4},
		{"mp-crdp-release", "sound", "queries/mp-crdp", audit.Violation, 3, 10},
		{"mp-crdp-release", "sound", "logreg/mp-crdp", audit.Violation, 2.5, 10},
	} {
		meth, err := Audits().Lookup(tc.method)
		if err != nil {
			t.Fatal(err)
		}
		o := audit.MethodOptions{Calibration: tc.calibration, Mechanism: tc.mechanism}
		m, err := meth.Mechanism(o)
		r := audittest.MustRun(t, m, err, meth.Runs(o, false), 29)
		if r.Verdict != tc.want || r.EpsilonLower < tc.lo || r.EpsilonLower > tc.hi {
			t.Errorf("%s: %s with ε_lower %.3f, want %s in [%v, %v]", r.Mechanism, r.Verdict, r.EpsilonLower, tc.want, tc.lo, tc.hi)
		}
	}
}

// The pipeline pair must be what MPCRDPRelease's comment says: every
// notion's factor 1 on D and 2 on D', the four queries at 1 on D and 0 on
// D' for record 0's contribution, and the claim the pipeline's charge.
func TestMPCRDPReleasePair(t *testing.T) {
	for _, n := range mpcrdp.Notions {
		m, err := MPCRDPRelease(MPCRDPReleaseOptions{Notion: n, Epsilon: 1})
		if err != nil {
			t.Fatal(err)
		}
		want := "factors 1 on D, 2 on D'"
		if n == mpcrdp.Standard {
			want = "factors 1 on D, 1 on D'"
		}
		if !strings.Contains(m.Name, want) || m.Claim.Epsilon != 1 || m.Dim != 4 {
			t.Errorf("%s: %q, claim %v, dim %d; want %s, ε = 1, 4 answers", n, m.Name, m.Claim, m.Dim, want)
		}
	}
	for _, side := range []audit.Side{audit.D, audit.DPrime} {
		p, err := releasePipeline(side, MPCRDPReleaseOptions{Calibration: mpcrdp.Sound, Notion: mpcrdp.Standard, Epsilon: 1})
		if err != nil {
			t.Fatal(err)
		}
		out, err := p.ReleaseAs(mpcrdp.Queries, mpcrdp.Standard, 1, randx.NewSeeded(1))
		if err != nil {
			t.Fatal(err)
		}
		// 32 records have f1 = 0, 32 have f4 = 0, 16 each pair of zeros;
		// D' loses record 0 from all four.
		want := []float64{32, 32, 16, 16}
		for q, v := range out.Truth {
			if side == audit.DPrime {
				v++
			}
			if v != want[q] || out.NoiseScale != 4 {
				t.Errorf("%v: query %d = %v, scale %v; want %v, 4", side, q, out.Truth[q], out.NoiseScale, want[q]-float64(side))
			}
		}
	}
	for _, bad := range []string{"none", "queries/weird", "model"} {
		if _, _, err := ParseReleaseVariant(bad); err == nil {
			t.Errorf("variant %q accepted", bad)
		}
	}
	if _, err := MPCRDPU2("none", 1); err == nil {
		t.Error("mp-crdp-u2 accepted calibration none")
	}
}
