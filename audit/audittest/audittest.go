// Package audittest holds the helpers the tests of the audits share: a
// seeded run that fails the test on error, the re-check of a caught
// variant on more seeds, and a table of expected verdicts and bounds.
package audittest

import (
	"cmp"
	"fmt"
	"testing"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/randx"
)

// MustRun audits m (built with err) at runs releases per batch from seed,
// on two workers, failing t on any error.
func MustRun(t testing.TB, m audit.Mechanism, err error, runs int, seed uint64) *audit.Result {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	r, err := audit.Run(m, audit.Options{Runs: runs, Source: randx.NewSeeded(seed), Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: claim %v, ε_lower = %.3f → %s", r.Mechanism, r.Claim, r.EpsilonLower, r.Verdict)
	return r
}

// MoreSeeds are the extra seeds on which a test that claims a broken
// variant "is caught" checks the catch again (without -short), so that no
// README claim rests on one pinned seed.
var MoreSeeds = []uint64{1001, 1002}

// ViolationOnMoreSeeds audits m at runs releases on each of MoreSeeds and
// requires a VIOLATION each time (skipped in short mode).
func ViolationOnMoreSeeds(t *testing.T, m audit.Mechanism, runs int) {
	t.Helper()
	if testing.Short() {
		return
	}
	for _, seed := range MoreSeeds {
		r, err := audit.Run(m, audit.Options{Runs: runs, Source: randx.NewSeeded(seed), Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if r.Verdict != audit.Violation {
			t.Errorf("seed %d, %d runs: ε_lower %.3f vs claim %.3f%s: %s, want VIOLATION", seed, runs, r.EpsilonLower, r.ClaimedEpsilon, NoisePhrase(r), r.Verdict)
		}
	}
}

// NoisePhrase is the noise test's bound for a message, or "".
func NoisePhrase(r *audit.Result) string {
	if r.Noise == nil {
		return ""
	}
	return fmt.Sprintf(" (noise test ρ ≥ %.4g, claim %g)", r.Noise.RhoLower, r.ClaimedRho)
}

// Bound is a named audit with the verdict a correct implementation gives
// and the range its bound falls in (from the arithmetic in each
// constructor's comment).
type Bound struct {
	Method  string
	Options audit.MethodOptions
	Want    audit.Verdict
	Lo, Hi  float64
	// Seed of the run; 0 means 11.
	Seed uint64
}

// CheckBounds runs each case of fam seeded, so the verdicts are
// reproducible; with a fresh seed each PASS would turn into a false
// VIOLATION with probability at most 5% (the confidence).
func CheckBounds(t *testing.T, fam audit.Family, cases []Bound) {
	t.Helper()
	for _, tc := range cases {
		meth, err := fam.Lookup(tc.Method)
		if err != nil {
			t.Fatal(err)
		}
		m, err := meth.Mechanism(tc.Options)
		r := MustRun(t, m, err, meth.Runs(tc.Options, false), cmp.Or(tc.Seed, 11))
		if r.Verdict != tc.Want || r.EpsilonLower < tc.Lo || r.EpsilonLower > tc.Hi {
			t.Errorf("%s: %s with ε_lower %.3f, want %s in [%v, %v]", r.Mechanism, r.Verdict, r.EpsilonLower, tc.Want, tc.Lo, tc.Hi)
		}
	}
}

// BenchRelease measures one release plus its statistic, the unit cost of
// an audit (an audit of N runs makes 4N of them).
func BenchRelease(b *testing.B, m audit.Mechanism, err error) {
	if err != nil {
		b.Fatal(err)
	}
	src := randx.NewSeeded(1)
	out := make([]float64, m.Dim)
	stat := m.Statistic
	if stat == nil {
		stat = func(v []float64) float64 { return v[0] }
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := m.Release(audit.Side(i%2), src, out); err != nil {
			b.Fatal(err)
		}
		stat(out)
	}
}
