package audit

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/method/mullda/lda"
	"github.com/dppub/dppub/method/ppcadpmh/ppca"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

func mustRun(t *testing.T, m Mechanism, err error, runs int, seed uint64) *Result {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(m, Options{Runs: runs, Source: randx.NewSeeded(seed), Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: claim %v, ε_lower = %.3f → %s", r.Mechanism, r.Claim, r.EpsilonLower, r.Verdict)
	return r
}

// moreSeeds are the extra seeds on which a test that claims a broken
// variant "is caught" checks the catch again (without -short), so that no
// README claim rests on one pinned seed.
var moreSeeds = []uint64{1001, 1002}

// violationOnMoreSeeds audits m at runs releases on each of moreSeeds and
// requires a VIOLATION each time (skipped in short mode).
func violationOnMoreSeeds(t *testing.T, m Mechanism, runs int) {
	t.Helper()
	if testing.Short() {
		return
	}
	for _, seed := range moreSeeds {
		r, err := Run(m, Options{Runs: runs, Source: randx.NewSeeded(seed), Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if r.Verdict != Violation {
			t.Errorf("seed %d, %d runs: ε_lower %.3f vs claim %.3f%s: %s, want VIOLATION", seed, runs, r.EpsilonLower, r.ClaimedEpsilon, noisePhrase(r), r.Verdict)
		}
	}
}

func noisePhrase(r *Result) string {
	if r.Noise == nil {
		return ""
	}
	return fmt.Sprintf(" (noise test ρ ≥ %.4g, claim %g)", r.Noise.RhoLower, r.ClaimedRho)
}

// TestPPCAPaperViolatesSoundPasses is the audit that must catch the wrong
// sensitivity of PPCA-DP-MH (docs/errata.md#ppca-second-moment-sensitivity)
// at p = 20, ε = 2: the paper puts Lap(2p/ε) = Lap(20) on each of the 210
// upper-triangle entries of Σxxᵀ and charges ε/2 = 1, but the pair moves
// every entry by 1, so the true ε is 210/20 = 10.5.
//
// Run count from the Clopper–Pearson arithmetic. The LLR over the 210
// entries is a sum of 210 small terms (each within ±1/20), roughly
// N(±0.26, 0.72²) on D and D'. Simulating it 2·10⁶ times gives, for the
// event {LLR ≥ 1.6}: p_D = 0.0307, p_D' = 0.0049 (ratio e^1.84). With
// N = 20,000 test runs per dataset that is about 615 and 97 hits, and the
// one-sided bounds at α = 0.05/4 give p_lo = 0.0281, p_hi = 0.0061, so
// ε_lower ≈ ln 4.6 = 1.53 > 1 (N = 5,000 would give only 1.23, N = 10,000
// 1.39). The hit counts' sampling error moves ε_lower by about ±0.11 (one
// sd), so with the event chosen on an equally large search batch the
// violation is missed with probability well below 10⁻³. The sound
// calibration (Lap(210) per entry) has an LLR within ±0.07·(6 sd), far from
// any event with ratio e; it is reported as a violation with probability at
// most 1 − confidence = 5% by construction, and in fact never. Cost: 4·N
// releases of the real owner per calibration, about 3–5 s on 2 cores.
func TestPPCAPaperViolatesSoundPasses(t *testing.T) {
	if testing.Short() {
		t.Skip("20,000 runs per dataset of two 210-entry releases (about 15–35 s on 2 cores); runs without -short")
	}
	const runs = 20_000
	paper, err := PPCADPMH(PPCAOptions{P: 20, Epsilon: 2, Calibration: ppca.Paper})
	rp := mustRun(t, paper, err, runs, 11)
	sound, err := PPCADPMH(PPCAOptions{P: 20, Epsilon: 2, Calibration: ppca.Sound})
	rs := mustRun(t, sound, err, runs, 11)
	if rp.ClaimedEpsilon != 1 || rs.ClaimedEpsilon != 1 {
		t.Fatalf("claims %v and %v, want ε/2 = 1 for the second moment", rp.ClaimedEpsilon, rs.ClaimedEpsilon)
	}
	if rp.Verdict != Violation || rp.EpsilonLower < 1.2 {
		t.Errorf("paper calibration: ε_lower = %.3f (%s), want a VIOLATION above 1.2", rp.EpsilonLower, rp.Verdict)
	}
	if rs.Verdict != Pass || rs.EpsilonLower > 0.3 {
		t.Errorf("sound calibration: ε_lower = %.3f (%s), want a PASS below 0.3", rs.EpsilonLower, rs.Verdict)
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
	for _, c := range Suite(false) {
		if c.Method == "ppca-dp-mh" && c.Options.Mechanism == "" && c.Options.Part == "" {
			continue // TestPPCAPaperViolatesSoundPasses
		}
		if wholeRun(c.Method) {
			continue // TestPipelineAuditsSoundPassBrokenCaught, TestViewPPCAPassesReportedClaims
		}
		meth, err := LookupMethod(c.Method)
		if err != nil {
			t.Fatal(err)
		}
		m, err := meth.Mechanism(c.Options)
		r := mustRun(t, m, err, meth.Runs(c.Options, false), 5)
		if r.Verdict != c.Expect {
			t.Errorf("%s: %s, want %s", r.Mechanism, r.Verdict, c.Expect)
		}
		key := strings.Trim(c.Method+"/"+c.Options.Calibration+"/"+string(c.Options.View)+c.Options.Mechanism, "/")
		if rg, ok := ranges[key]; ok && (r.EpsilonLower < rg[0] || r.EpsilonLower > rg[1]) {
			t.Errorf("%s: ε_lower = %.3f, want in [%v, %v]", r.Mechanism, r.EpsilonLower, rg[0], rg[1])
		}
	}
}

// A Laplace mechanism with half the scale its ε needs really gives 2ε. At
// ε = 1 and 5,000 runs the event {y ≤ 0} has p_D = 0.5 and p_D' = e^{-2}/2
// = 0.068 (≈ 340 hits), bounds 0.48 and 0.078, so ε_lower ≈ 1.8 > 1.
func TestCatchesHalvedLaplaceScale(t *testing.T) {
	m := Mechanism{Name: "laplace with half the scale", Claim: dp.Pure(1), Dim: 1,
		Release: func(side Side, src *randx.Source, out []float64) error {
			out[0] = sideValue(side, 1)
			dp.NewNoiser(src).ReleaseLaplace(1, 2, out[:1]) // scale 0.5
			return nil
		}}
	r := mustRun(t, m, nil, 5000, 2)
	if r.Verdict != Violation || r.EpsilonLower < 1.5 || r.EpsilonLower > 2 {
		t.Errorf("ε_lower = %.3f (%s), want a VIOLATION in [1.5, 2]", r.EpsilonLower, r.Verdict)
	}
	d := r.Directions[0]
	if d.Numerator != "D" || d.Event.Above || d.Event.Threshold > 0.5 {
		t.Errorf("direction D: event %v, want a lower-tail event {y ≤ t}, t near 0", d.Event)
	}
}

func TestResultDoesNotDependOnWorkers(t *testing.T) {
	m, err := Laplace(ScalarOptions{Epsilon: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	var results []*Result
	for _, w := range []int{1, 3} {
		r, err := Run(m, Options{Runs: 3000, Source: randx.NewSeeded(9), Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, r)
	}
	if !reflect.DeepEqual(results[0], results[1]) {
		t.Errorf("1 worker: %+v\n3 workers: %+v", results[0], results[1])
	}
}

// The sound zero-sum factor is derived here from the covariance of the
// view; method/mullda/lda derives it by conditioning. Both must agree.
func TestZeroSumFactorMatchesLDA(t *testing.T) {
	for _, m := range []int{2, 3, 5, 10, 100} {
		f, err := ZeroSumPrecisionFactor(m, ViewPublisher)
		if err != nil {
			t.Fatal(err)
		}
		r := lda.ViewFactor(m)
		if math.Abs(f-1/(r*r)) > 1e-9 {
			t.Errorf("M=%d: precision factor %v, lda.ViewFactor gives %v", m, f, 1/(r*r))
		}
	}
	if f, _ := ZeroSumPrecisionFactor(10, ViewMessage); math.Abs(f-1) > 1e-12 {
		t.Errorf("one message: factor %v, want 1", f)
	}
	if f, _ := ZeroSumPrecisionFactor(2, ViewPublisher); math.Abs(f-1.4) > 1e-9 {
		t.Errorf("M=2 publisher: factor %v, want 7/5", f)
	}
}

// The LLR statistics must equal ln p_D(y)/p_D'(y) computed from densities.
func TestLLRMatchesDensities(t *testing.T) {
	y := []float64{0.3, -1.2, 2.5}
	fD, fDp, s := []float64{0, 0, 1}, []float64{1, -1, 1.5}, []float64{0.7, 2, 1.1}
	lap, gau := 0.0, 0.0
	for i := range y {
		lap += math.Log(math.Exp(-math.Abs(y[i]-fD[i])/s[i]) / math.Exp(-math.Abs(y[i]-fDp[i])/s[i]))
		gau += -(y[i]-fD[i])*(y[i]-fD[i])/(2*s[i]*s[i]) + (y[i]-fDp[i])*(y[i]-fDp[i])/(2*s[i]*s[i])
	}
	if got := LaplaceLLR(fD, fDp, s)(y); math.Abs(got-lap) > 1e-9 { // rounded to 1e-9
		t.Errorf("LaplaceLLR = %v, want %v", got, lap)
	}
	if got := GaussianLLR(fD, fDp, s)(y); math.Abs(got-gau) > 1e-12 {
		t.Errorf("GaussianLLR = %v, want %v", got, gau)
	}
}

func TestPPCAPairAndParts(t *testing.T) {
	d := mat.NewDense(3, 4, []float64{0, 0, 0, 0, 0.2, 0.4, 0.6, 0.8, 1, 1, 1, 1})
	one := mat.DenseCopyOf(d)
	one.SetRow(0, []float64{1, 0, 1, 0})
	two := mat.DenseCopyOf(one)
	two.SetRow(1, []float64{0, 0, 0, 0})
	m, err := PPCADPMH(PPCAOptions{Epsilon: 1, D: d, DPrime: one, Part: PartAll})
	if err != nil {
		t.Fatal(err)
	}
	if m.Dim != 4+10 || m.Claim.Epsilon != 1 {
		t.Errorf("whole message: dim %d, claim %v; want 14 and ε = 1", m.Dim, m.Claim)
	}
	if _, err := PPCADPMH(PPCAOptions{Epsilon: 1, D: d, DPrime: two}); err == nil || !strings.Contains(err.Error(), "differ in 2 rows") {
		t.Errorf("two rows changed: err = %v", err)
	}
	if _, err := PPCADPMH(PPCAOptions{Epsilon: 1, D: d}); err == nil {
		t.Error("a pair without D' was accepted")
	}
	bad := mat.DenseCopyOf(one)
	bad.Set(0, 0, 2)
	if _, err := PPCADPMH(PPCAOptions{Epsilon: 1, D: d, DPrime: bad}); err == nil || !strings.Contains(err.Error(), "outside [0, 1]") {
		t.Errorf("out-of-bounds row: err = %v", err)
	}
	if _, err := PPCADPMH(PPCAOptions{Epsilon: 1, Part: "diagonal"}); err == nil {
		t.Error("unknown part accepted")
	}
	// Default pair, sum part: the exact centres differ by 1 in every entry.
	m, err = PPCADPMH(PPCAOptions{P: 5, Epsilon: 1, Part: PartSum})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float64, m.Dim)
	if err := m.Release(DPrime, randx.NewSeeded(1), out); err != nil || m.Dim != 5 || m.Claim.Epsilon != 0.5 {
		t.Errorf("sum part: dim %d, claim %v, err %v; want 5, ε = 0.5", m.Dim, m.Claim, err)
	}
}

func TestValidation(t *testing.T) {
	m, _ := Laplace(ScalarOptions{Epsilon: 1})
	for _, o := range []Options{{Runs: 5}, {Runs: 100, Confidence: 1}, {Runs: 100, Grid: -1}, {Runs: 100, SearchRuns: 3}} {
		o.Source = randx.NewSeeded(1)
		if _, err := Run(m, o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
	if _, err := Run(Mechanism{Name: "x", Dim: 1, Claim: dp.Pure(1)}, Options{Runs: 100}); err == nil {
		t.Error("mechanism without Release accepted")
	}
	zc := Mechanism{Name: "z", Dim: 1, Claim: dp.Concentrated(0.5), Release: m.Release}
	if _, err := Run(zc, Options{Runs: 100, Source: randx.NewSeeded(1)}); err == nil {
		t.Error("zCDP claim without Delta accepted")
	}
	r, err := Run(zc, Options{Runs: 100, Delta: 1e-5, Source: randx.NewSeeded(1)})
	if err != nil || math.Abs(r.ClaimedEpsilon-dp.ZCDPEpsilon(0.5, 1e-5)) > 1e-12 {
		t.Errorf("zCDP claim: %v, %v", r, err)
	}
	nan := Mechanism{Name: "nan", Dim: 1, Claim: dp.Pure(1), Release: func(Side, *randx.Source, []float64) error { return nil },
		Statistic: func([]float64) float64 { return math.NaN() }}
	if _, err := Run(nan, Options{Runs: 100, Source: randx.NewSeeded(1)}); err == nil || !strings.Contains(err.Error(), "NaN") {
		t.Errorf("NaN statistic: err = %v", err)
	}
	if _, err := LookupMethod("laplace"); err != nil {
		t.Error(err)
	}
	if _, err := LookupMethod("nope"); err == nil {
		t.Error("unknown method accepted")
	}
	lap, _ := LookupMethod("laplace")
	if _, err := lap.Mechanism(MethodOptions{Calibration: "paper"}); err == nil {
		t.Error("laplace accepted the paper calibration")
	}
	if _, err := ZeroSum(ZeroSumOptions{Owners: 1, Epsilon: 1, Delta: 1e-5}); err == nil {
		t.Error("one owner accepted")
	}
	if _, err := ZeroSum(ZeroSumOptions{Epsilon: 1, Delta: 1e-5, View: "curator"}); err == nil {
		t.Error("unknown view accepted")
	}
	if _, err := DPPCA(DPPCAOptions{Epsilon: 1, D: 1}); err == nil {
		t.Error("dppca with d = 1 accepted")
	}
	if _, err := DPPCA(DPPCAOptions{Epsilon: 1, Method: "pca-dpsvm"}); err == nil {
		t.Error("dppca without matrix noise accepted")
	}
	if _, err := MulLDA(MulLDAOptions{Epsilon: 1, Delta: 0}); err == nil {
		t.Error("mul-lda-dp with δ = 0 accepted")
	}
}
