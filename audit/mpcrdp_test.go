package audit

import "testing"

// MP-CRDP's releases at the standard notion pass, each with a bound above
// 0.05 (the pair moves the output measurably); the paper's per-query
// count-query noise is caught (four answers at Laplace(1/ε) each are 4ε-DP:
// the bound should be well above 1). Seeded runs; a fresh seed would turn
// a PASS into a false VIOLATION with probability at most 5%.
func TestMPCRDPAudits(t *testing.T) {
	for _, tc := range []struct {
		method, calibration string
		want                Verdict
		lo, hi              float64
	}{
		{"mp-crdp-queries", "sound", Pass, 0.7, 1},
		{"mp-crdp-queries", "paper", Violation, 2.5, 4},
		{"mp-crdp-fm", "", Pass, 0.05, 1},
		{"mp-crdp-svm", "", Pass, 0.05, 1},
		{"mp-crdp-stability", "", Pass, 0.05, 1},
		{"mp-crdp-pearson", "", Pass, 0.6, 1},
		{"mp-crdp-u1", "", Pass, 0.05, 1},
		{"mp-crdp-entropy", "", Pass, 0.6, 1},
	} {
		meth, err := LookupMethod(tc.method)
		if err != nil {
			t.Fatal(err)
		}
		o := MethodOptions{Calibration: tc.calibration}
		m, err := meth.Mechanism(o)
		r := mustRun(t, m, err, meth.Runs(o, false), 29)
		if r.Verdict != tc.want || r.EpsilonLower < tc.lo || r.EpsilonLower > tc.hi {
			t.Errorf("%s: %s with ε_lower %.3f, want %s in [%v, %v]", r.Mechanism, r.Verdict, r.EpsilonLower, tc.want, tc.lo, tc.hi)
		}
	}
}
