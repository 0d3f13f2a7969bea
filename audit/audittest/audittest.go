// Package audittest holds the helpers the tests of the audits share: a
// seeded run that fails the test on error, the re-check of a caught
// variant on more seeds, and a table of expected verdicts and bounds.
package audittest

import (
	"cmp"
	"fmt"
	"strings"
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

// FastRuns looks up the audit named name in fam and returns it with the
// runs a test gives each batch: its FastRuns (the size `audit all` uses),
// or short in -short mode.
func FastRuns(t testing.TB, fam audit.Family, name string, short int) (audit.Method, int) {
	t.Helper()
	meth, err := fam.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	if testing.Short() {
		return meth, short
	}
	return meth, meth.FastRuns
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

// ViewCase is one expected verdict of a view audit: the view, the noise
// mode ("" for the method's default) and the variant. Short keeps the
// case in -short mode; Ceiling requires the (broken) variant to separate
// D from D' in every run, its ε_lower within 0.1 of the power's ceiling.
type ViewCase struct {
	View    audit.View
	Mode    string
	Variant string
	Want    audit.Verdict
	Short   bool
	Ceiling bool
}

// ViewRuns sizes CheckViews: Runs releases per batch (ShortRuns in -short
// mode) from Seed, and MoreRuns on each of MoreSeeds for a VIOLATION.
type ViewRuns struct {
	Runs, ShortRuns, MoreRuns int
	Seed                      uint64
}

// CheckViews audits the mechanism build returns for each case, seeded,
// and requires its verdict; a VIOLATION is checked again on MoreSeeds
// (ViolationOnMoreSeeds).
func CheckViews(t *testing.T, build func(view audit.View, mode, variant string) (audit.Mechanism, error), n ViewRuns, cases []ViewCase) {
	t.Helper()
	runs := n.Runs
	if testing.Short() {
		runs = n.ShortRuns
	}
	for _, c := range cases {
		if testing.Short() && !c.Short {
			continue
		}
		t.Run(string(c.View)+"/"+strings.TrimPrefix(c.Mode+"/", "/")+c.Variant, func(t *testing.T) {
			m, err := build(c.View, c.Mode, c.Variant)
			r := MustRun(t, m, err, runs, n.Seed)
			p := r.Power()
			t.Logf("ε_lower %.3f vs claim %.3f: %s; power %v", r.EpsilonLower, r.ClaimedEpsilon, r.Verdict, p)
			if r.Verdict != c.Want {
				t.Errorf("ε_lower %.3f vs claim %.3f: %s, want %s", r.EpsilonLower, r.ClaimedEpsilon, r.Verdict, c.Want)
			}
			if c.Want == audit.Violation {
				ViolationOnMoreSeeds(t, m, n.MoreRuns)
			}
			if c.Ceiling && r.EpsilonLower < p.Ceiling-0.1 {
				t.Errorf("ε_lower %.3f: the broken variant should separate D from D' in every run (ceiling %.3f)", r.EpsilonLower, p.Ceiling)
			}
		})
	}
}
