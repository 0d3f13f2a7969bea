package audit

import "testing"

// PrivBayes' marginals are tight (each of the m tables moves by 2, the
// whole of the 2m/ε calibration), so the bound comes close to ε; the
// structure (ε1 = 10) and DP-SUBN3's update pass with room to spare, but
// the pair still moves their output measurably (bounds above 0.1). Seeded runs; a
// fresh seed would turn a PASS into a false VIOLATION with probability at
// most 5%.
func TestBayesNetAuditsPass(t *testing.T) {
	for _, tc := range []struct {
		method string
		lo     float64
	}{{"privbayes-marginals", 0.7}, {"privbayes-structure", 0.1}, {"dp-subn3", 0.1}} {
		meth, err := LookupMethod(tc.method)
		if err != nil {
			t.Fatal(err)
		}
		m, err := meth.Mechanism(MethodOptions{})
		r := mustRun(t, m, err, meth.Runs(MethodOptions{}, false), 23)
		if r.Verdict != Pass || r.EpsilonLower < tc.lo {
			t.Errorf("%s: %s with ε_lower %.3f, want PASS above %v", r.Mechanism, r.Verdict, r.EpsilonLower, tc.lo)
		}
	}
}
