package catalog

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/audit/audittest"
	"github.com/dppub/dppub/method"
	_ "github.com/dppub/dppub/method/registry"
	rowsynthspec "github.com/dppub/dppub/method/rowsynth"
	rowsynth "github.com/dppub/dppub/method/rowsynth/audits"
	synthesize "github.com/dppub/dppub/method/synthesize/audits"
	"github.com/dppub/dppub/randx"
)

// Every registered method is audited: some audit of the suite is named
// for it (its mechanisms, its protocol views or its whole pipeline), or
// its family names the suite's audits that check its claim (Evidence), so
// a method cannot be added without evidence for its claim.
func TestEveryRegisteredMethodIsAudited(t *testing.T) {
	c := All()
	inSuite := map[string]bool{}
	for _, k := range c.Suite(true) {
		inSuite[k.Method] = true
	}
	registered := map[string]bool{}
	for _, s := range method.All() {
		registered[s.Name] = true
		if mapped := c.Evidence(s.Name); mapped != nil {
			for _, a := range mapped {
				if !inSuite[a] {
					t.Errorf("%s is audited by %q, which is not an audit of the suite", s.Name, a)
				}
			}
			continue
		}
		found := false
		for _, m := range c.Methods() {
			if inSuite[m.Name] && strings.Contains(m.Name, s.Name) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("no audit of the suite is named for the registered method %s", s.Name)
		}
	}
	for _, name := range c.EvidenceMethods() {
		if !registered[name] {
			t.Errorf("a family names evidence for %s, which is not a registered method", name)
		}
	}
}

// The catalog holds every family's audits once, under unique names; it
// refuses a family twice, an audit without a Build and a case of no
// audit.
func TestCatalog(t *testing.T) {
	n := 0
	for _, f := range Families() {
		n += len(f.Methods)
	}
	if got := len(All().Methods()); got != n || n < 39 {
		t.Errorf("%d audits in the catalog, %d in its families; want equal and the whole list", got, n)
	}
	noBuild := audit.Family{Methods: []audit.Method{{Name: "x", Calibrations: []string{"sound"}}}}
	stray := audit.Family{Cases: []audit.Case{{Method: "no-such-audit", Expect: audit.Pass}}}
	for name, fams := range map[string][]audit.Family{
		"every core audit twice": {audit.Core(), audit.Core()},
		"an audit without Build": {noBuild},
		"a case of no audit":     {audit.Core(), stray},
	} {
		if _, err := audit.NewCatalog(fams...); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestSuiteFast runs every fast-mode audit but the two above and checks
// the expected verdicts and that the bounds are near what the mechanisms
// give (fixed seed; each range holds with probability > 0.999 over seeds,
// from the same Clopper–Pearson arithmetic as above):
//   - Laplace ε = 1 on the pair ⅓ against ⅓ + u: every event {y ≤ t ≤ ⅓}
//     has ratio exactly e^u (u = 0.9997), so the bound is just below 1
//     (0.94 at 20,000 runs).
//   - Gaussian (1, 1e-5): tight only in the far tail; about 0.4.
//   - Exponential, 50 candidates: the pair's true ratio is e^0.98; about 0.8.
//   - zero-sum, publisher's view, M = 10, (2, 1e-3): the paper's σ gives
//     the view √1.83 times the claimed precision; about 2.5 at 200,000 runs
//     (a tight (2, 1e-3) mechanism would reach about 1.76).
//   - mul-lda-dp sound, (2, 1e-3), 5,000 runs: the pair is tight for the
//     sound plan (with the view factor paid), about 1.3; the paper's σ is
//     far larger than needed, about 0.2.
//   - dppca: the Laplace pair reaches only half the sound bound, spread
//     over 55 entries, so about 0; ag-svm sound is tight, about 0.4.
//   - ppca-dp-mh sound Gaussian: the pair is tight for the L2 sensitivity
//     √210 of the second moment, so like the scalar Gaussian, about 0.5.
func TestSuiteFast(t *testing.T) {
	if testing.Short() {
		t.Skip("the whole audit suite (about 60 s on 2 cores) runs without -short")
	}
	ranges := map[string][2]float64{
		"laplace": {0.85, 1}, "gaussian": {0.2, 1}, "exponential": {0.6, 1},
		"ppca-dp-mh/sound/gaussian": {0.2, 1}, "dppca/sound/ag-svm": {0.2, 1}, "zero-sum/sound": {1.4, 2}, "zero-sum/paper": {2.2, 3}, "zero-sum/paper/message": {1.4, 2},
		"mul-lda-dp/sound": {0.9, 2}, "mul-lda-dp/paper": {0, 0.7}, "dppca/sound": {0, 0.5}, "dppca/paper": {0, 0.5},
	}
	for _, c := range All().Suite(false) {
		if c.Method == "ppca-dp-mh" && c.Options.Mechanism == "" && c.Options.Part == "" {
			continue // TestPPCAPaperViolatesSoundPasses
		}
		if audit.WholeRun(c.Method) {
			continue // TestPipelineAuditsSoundPassBrokenCaught, TestViewPPCAPassesReportedClaims
		}
		meth, err := All().Lookup(c.Method)
		if err != nil {
			t.Fatal(err)
		}
		m, err := meth.Mechanism(c.Options)
		r := audittest.MustRun(t, m, err, meth.Runs(c.Options, false), 5)
		if r.Verdict == audit.Violation && c.Expect == audit.Pass {
			// A sound mechanism whose claim is its exact profile is
			// falsely flagged with probability up to 5 % (the audit's
			// confidence); one more seeded draw makes a false failure of
			// a case at most 0.25 % (record-count-add-remove's claim is
			// exact and seed 5 flags it).
			t.Logf("%s: %s at seed 5 (ε_lower %.3f), drawing seed 6", r.Mechanism, r.Verdict, r.EpsilonLower)
			r = audittest.MustRun(t, m, err, meth.Runs(c.Options, false), 6)
		}
		if r.Verdict != c.Expect {
			t.Errorf("%s: %s, want %s", r.Mechanism, r.Verdict, c.Expect)
		}
		key := strings.Trim(c.Method+"/"+c.Options.Calibration+"/"+string(c.Options.View)+c.Options.Mechanism, "/")
		if rg, ok := ranges[key]; ok && (r.EpsilonLower < rg[0] || r.EpsilonLower > rg[1]) {
			t.Errorf("%s: ε_lower = %.3f, want in [%v, %v]", r.Mechanism, r.EpsilonLower, rg[0], rg[1])
		}
	}
}

// Every pipeline audit: the sound pipeline PASSes and the variant that
// releases the canary's count unnoised is caught as a VIOLATION. The
// unnoised variant separates D from D' in every run (the synthetic table
// holds the canary exactly when the private one does), so at 150 runs its
// bound is the ceiling, ln(0.97/0.033) ≈ 3.4 (the Clopper–Pearson bounds at
// 5%/8: zCDP claims also get the Rényi test), above every claim (0.74 to
// 1.13). The sound runs are seeded; a sound pipeline fails its PASS with
// probability at most 5% over seeds (the audit's confidence), and in the
// long runs reported in the package's notes its bound stays below 0.1.
// The unnoised variant is checked again on two more seeds at 40 runs.
// About 12 s on 2 cores.
func TestPipelineAuditsSoundPassBrokenCaught(t *testing.T) {
	if testing.Short() {
		t.Skip("150 runs of each whole pipeline, sound and broken (about 10–17 s on 2 cores); runs without -short")
	}
	for _, name := range []string{"pipeline-synthesize", "pipeline-ppca-dp-mh", "pipeline-dp-subn3", "pipeline-pdp-mvds", "pipeline-synthesize-rows"} {
		t.Run(name, func(t *testing.T) {
			meth, err := All().Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			sound, err := meth.Mechanism(audit.MethodOptions{})
			rs := audittest.MustRun(t, sound, err, 150, 21)
			if rs.Verdict != audit.Pass {
				t.Errorf("sound: ε_lower %.3f > claim %.3f, want PASS", rs.EpsilonLower, rs.ClaimedEpsilon)
			}
			broken, err := meth.Mechanism(audit.MethodOptions{Calibration: audit.VariantUnnoised})
			rb := audittest.MustRun(t, broken, err, 150, 21)
			if rb.Verdict != audit.Violation || rb.EpsilonLower < 3 {
				t.Errorf("unnoised: ε_lower %.3f (%s), want a VIOLATION at the ceiling ≈ 3.4", rb.EpsilonLower, rb.Verdict)
			}
			audittest.ViolationOnMoreSeeds(t, broken, 40) // ceiling 2.0 at 40 runs, above every claim
		})
	}
}

// Same seed on D and D': every release of the sound pipelines moves by at
// most its charge's sensitivity (a count marginal holding both changed
// cells moves by exactly √2, its bound up to the grid's rounding), and
// the duplicated variant — record 0 read over record 1 too, so that every
// release moves by twice the sensitivity it declares — is caught on the
// first pair (2√2 against √2). The replay compares true differences, so
// it has no false alarms; the only randomness is which pairs diverge
// (choices on noisy values: the paper method's pair selection parts 0–5 %
// of pairs here, the adaptive method's private selections up to 30 %; a
// selection is compared by its outcome). About 3 ms a synthesize pair and
// 7 ms a synthesize-rows pair; -short replays the default options and the
// paper method only.
func TestReplaySoundWithinDuplicatedExceeds(t *testing.T) {
	exact := string(rowsynthspec.NoiseExact)
	cases := []struct {
		name, option string
		build        func(variant, option string) (audit.Mechanism, error)
		pairs        int
		short        bool
		// diverged is how many pairs may part ways: the default, auto, runs
		// the adaptive method on the canary tables, whose private
		// selections see the data (12 of 40 pairs on the duplicated table,
		// where the paper's fixed plan parts in 1).
		diverged int
	}{
		{"synthesize", "", synthesize.ReplaySynthesize, 40, true, 20},
		{"synthesize", "paper", synthesize.ReplaySynthesize, 40, true, 10},
		{"synthesize", "indif", synthesize.ReplaySynthesize, 40, false, 10},
		{"synthesize", "laplace-one-way", synthesize.ReplaySynthesize, 40, false, 10},
		{"synthesize-rows", "", rowsynth.ReplayRows, 20, true, 5},
		{"synthesize-rows", exact, rowsynth.ReplayRows, 20, false, 5},
	}
	for _, c := range cases {
		if testing.Short() && !c.short {
			continue
		}
		for _, variant := range audit.ReplayVariants {
			t.Run(c.name+"/"+c.option+"/"+variant, func(t *testing.T) {
				m, err := c.build(variant, c.option)
				if err != nil {
					t.Fatal(err)
				}
				r, err := audit.ReplayPairs(m, c.pairs, 2, randx.NewSeeded(51))
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%s: worst %s moved %.6g in ℓ%g, bound %.6g; %d releases compared, %d of %d pairs diverged", m.Name, r.Worst, r.MaxDiff, r.Norm, r.Bound, r.Releases, r.Diverged, r.Runs)
				if r.Releases < 5*c.pairs || r.Diverged > c.diverged {
					t.Errorf("%d releases compared, %d of %d pairs diverged: want at least the one-way marginals and scores of every pair", r.Releases, r.Diverged, c.pairs)
				}
				if variant == audit.VariantSound {
					if r.Exceeded || r.MaxDiff < math.Sqrt2*(1-1e-9) {
						t.Errorf("sound: worst move %.6g against %.6g (%s): want within the bound, some release moving by √2", r.MaxDiff, r.Bound, r.Worst)
					}
					return
				}
				if !r.Exceeded || math.Abs(r.MaxDiff-2*math.Sqrt2) > 1e-6 {
					t.Errorf("duplicated: worst move %.6g against %.6g (%s): want 2√2, exceeded", r.MaxDiff, r.Bound, r.Worst)
				}
			})
		}
	}
}

// TestGreyBoxRegisteredMethods runs the grey-box audit of every registered
// method at its default options and at each suite case's (GreyBoxSuite)
// and requires PASS: no release may keep low-order bits of its data. The
// audits are at family-wise α = 1% (each at 1%/M, Bonferroni), so a
// correct implementation fails this test with probability at most 1% over
// seeds (the seed is fixed). Runs: Method.GreyBoxRuns, 20,000 per dataset
// for most methods, fewer for the slow or wide ones (2,000 for the 210
// outputs of ppca-dp-mh, 5,000 for mul-lda-dp), a tenth in short mode. A
// feature whose TV between D and D' (one output per release) exceeds
// DetectableTV — 0.041 at 20,000 runs, 0.082 at 5,000, 0.13 at 2,000,
// 0.26 at 500 — is caught with probability at least 0.99; a leak shared
// by the outputs of a wide release is caught at a far smaller TV. The
// replay audits (1,000 runs, 250 same-seed pairs; 100 and 100 in short
// mode) also replay every release of a whole pipeline: replay-synthesize-
// rows is the slowest audit, about 3 ms a run, 10 s of CPU in all. About
// 13 s on 2 cores (2 s in short mode) for the 51 audits before the replay
// audits.
//
// Before the grid releases (commit ee7c4c5) 21 of the 51 leaked with a
// seeded source (18 caught in short mode): the float samplers' structure
// in every Laplace or Gaussian release of a value (laplace, gaussian,
// ppca-dp-mh, zero-sum, dppca, privbayes-marginals, indif, mp-crdp-queries,
// -entropy, -stability, dp-erm output and objective-huber, pdp-mvds exact
// party view) at TV 0.01–0.36; with a secure source 14 leaked through
// Google's granular noise, dppca, indif and mp-crdp-entropy at TV 1.
func TestGreyBoxRegisteredMethods(t *testing.T) {
	start := time.Now()
	cases := All().GreyBoxSuite(false)
	alpha := 0.01 / float64(len(cases))
	var leaked []string
	for _, c := range cases {
		meth, err := All().Lookup(c.Method)
		if err != nil {
			t.Fatal(err)
		}
		m, err := meth.Mechanism(c.Options)
		if err != nil {
			t.Fatal(err)
		}
		runs := meth.GreyBoxRuns(m.Dim, false)
		if testing.Short() {
			runs /= 10
		}
		r, err := audit.GreyBox(m, audit.GreyBoxOptions{Runs: runs, Alpha: alpha, Source: randx.NewSeeded(12), Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		t.Log(r)
		if r.Verdict != audit.Pass {
			leaked = append(leaked, c.Key())
		}
	}
	t.Logf("%d grey-box audits in %.1f s; leaked: %v", len(cases), time.Since(start).Seconds(), leaked)
	if len(leaked) > 0 {
		t.Errorf("%d of %d releases leak low-order bits: %v", len(leaked), len(cases), leaked)
	}
}

// Every hostile-coordinator attack gets the outcome the member must give:
// refused with nothing charged or sent, or charged at its true cost.
func TestHostileSuite(t *testing.T) {
	attacks, err := All().HostileSuite()
	if err != nil {
		t.Fatal(err)
	}
	if len(attacks) < 10 {
		t.Fatalf("%d attacks, want the whole list", len(attacks))
	}
	for _, a := range attacks {
		t.Run(a.Method+"/"+a.Name, func(t *testing.T) {
			r, err := a.Run()
			if err != nil {
				t.Fatal(err)
			}
			if r.Verdict != "PASS" {
				t.Fatalf("%s: expected %q, got %q: %s", a.Attempt, a.Expect, r.Got, r.Detail)
			}
			if r.Detail == "" {
				t.Fatal("no detail: the audit must say what the member did")
			}
		})
	}
	if _, err := All().HostileSuite("no-such-method"); err == nil {
		t.Fatal("an unknown method was accepted")
	}
}

// Every multi-party method has a hostile-coordinator suite, and every
// suite tries both refusals and what a member must accept (a replay it
// ignores or a request it pays for) on the role the method builds. lda-dp
// runs the same owner role as mul-lda-dp, without a dealer; it has no
// suite of its own.
func TestHostileSuiteCoversEveryMultipartyMethod(t *testing.T) {
	have := All().HostileMethods()
	for _, s := range method.All() {
		if !s.Multiparty() || s.Name == "lda-dp" {
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			if !slices.Contains(have, s.Name) {
				t.Fatalf("no hostile-coordinator suite for %s (have %v)", s.Name, have)
			}
			attacks, err := All().HostileSuite(s.Name)
			if err != nil {
				t.Fatal(err)
			}
			kinds := map[audit.HostileExpect]int{}
			for _, a := range attacks {
				kinds[a.Expect]++
			}
			if kinds[audit.HostileRefused] < 5 || kinds[audit.HostileCharged]+kinds[audit.HostileIgnored] == 0 {
				t.Errorf("%d attacks by expectation %v: want at least 5 refusals and one accepted message", len(attacks), kinds)
			}
		})
	}
}
