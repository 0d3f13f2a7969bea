package audit

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/randx"
)

// Side names one dataset of a neighbouring pair.
type Side int

const (
	// D is the original dataset.
	D Side = iota
	// DPrime is D with one record replaced.
	DPrime
)

func (s Side) String() string {
	if s == D {
		return "D"
	}
	return "D'"
}

func (s Side) other() Side { return 1 - s }

// Mechanism is a randomised release run on either dataset of a
// neighbouring pair, with the guarantee claimed for it.
type Mechanism struct {
	// Name identifies the mechanism and its calibration in reports.
	Name string
	// Claim is the guarantee the method states for one release. Pure and
	// approximate DP are audited as they are; zCDP is converted to (ε, δ)
	// at Options.Delta (or Delta) for the ε test and also tested as a
	// whole through its Rényi divergences (renyi.go).
	Claim dp.Guarantee
	// Delta converts a zCDP Claim to (ε, δ) when Options.Delta is 0: the δ
	// the method's own report uses.
	Delta float64
	// Pair says which neighbouring datasets D and D' are.
	Pair string
	// Dim is the length of one release.
	Dim int
	// Release runs the mechanism once on side and writes what it publishes
	// to out (length Dim), drawing all its randomness from src. It is
	// called concurrently, each call with its own src.
	Release func(side Side, src *randx.Source, out []float64) error
	// Statistic reduces a release to the scalar whose threshold events are
	// searched; nil means out[0]. It is called concurrently.
	Statistic func(out []float64) float64
	// Truth, if set, returns the noise-free value of the release on side
	// (length Dim); GreyBox then also compares the low-order features of
	// the residual o − v. Optional; called once per side.
	Truth func(side Side) []float64
	// ReplayBound, if positive, is the largest distance (in the
	// ℓ_ReplayNorm norm) between the releases on D and on D' made from the
	// same seeded randomness: for additive noise, the sensitivity plus any
	// rounding to a grid. GreyBox checks it; 0 skips the check.
	ReplayBound float64
	// ReplayNorm is the p of the ℓp norm of ReplayBound: 1 (also when 0),
	// 2, or math.Inf(1).
	ReplayNorm float64
	// ReplayPair, if set, replaces the ReplayBound check for a mechanism
	// made of many noisy releases, each with its own sensitivity and norm
	// (a whole pipeline), which one bound cannot state: it runs the
	// mechanism on D and on D' from randx.NewSeeded(seed) and compares the
	// two runs release by release. GreyBox calls it for every replay.
	ReplayPair func(seed uint64) (PairReplay, error)
	// Noise, if set, reads a release's NoiseSample, and Run adds the noise
	// test (noise.go) to its tests: for views of additive Gaussian
	// releases whose true values the audit knows. It is called
	// concurrently.
	Noise func(out []float64) NoiseSample
}

// Validate checks that m can be audited.
func (m Mechanism) Validate() error {
	if m.Name == "" {
		return fmt.Errorf("audit: mechanism needs a name")
	}
	if m.Dim < 1 || m.Release == nil {
		return fmt.Errorf("audit: mechanism %q needs Dim ≥ 1 (got %d) and a Release function", m.Name, m.Dim)
	}
	if err := m.Claim.Validate(); err != nil {
		return fmt.Errorf("audit: mechanism %q: claim: %w", m.Name, err)
	}
	return nil
}

// CheckRelease runs release once on each side from a seeded source, so
// that a mechanism that cannot run fails when it is built rather than in
// the middle of an audit.
func CheckRelease(release func(Side, *randx.Source, []float64) error, dim int) error {
	for _, side := range []Side{D, DPrime} {
		if err := release(side, randx.NewSeeded(0), make([]float64, dim)); err != nil {
			return fmt.Errorf("audit: dataset %v: %w", side, err)
		}
	}
	return nil
}

// Options configure one audit.
type Options struct {
	// Runs is the number of releases per dataset in the test batch.
	Runs int
	// SearchRuns is the number of releases per dataset in the batch on
	// which the event is chosen; 0 means Runs.
	SearchRuns int
	// Confidence is the probability that the reported lower bound is
	// valid; 0 means 0.95.
	Confidence float64
	// Grid is the number of candidate thresholds per tail and direction;
	// 0 means 200.
	Grid int
	// Delta converts a zCDP claim to (ε, δ); 0 means the Mechanism's Delta.
	Delta float64
	// Workers run releases in parallel; 0 means GOMAXPROCS. The result
	// does not depend on it.
	Workers int
	// Source seeds the releases; nil means randx.NewSecure(). Seeded and
	// secure sources drive the same samplers; a seeded one makes the audit
	// reproducible.
	Source *randx.Source
	// Progress, if set, is called with the releases done so far and the
	// total.
	Progress func(done, total int)
}

func (o *Options) setDefaults() error {
	o.SearchRuns = cmp.Or(o.SearchRuns, o.Runs)
	o.Confidence = cmp.Or(o.Confidence, 0.95)
	o.Grid = cmp.Or(o.Grid, 200)
	setRuntime(&o.Workers, &o.Source)
	switch {
	case o.Runs < 10:
		return fmt.Errorf("audit: runs must be at least 10, got %d", o.Runs)
	case o.SearchRuns < 10:
		return fmt.Errorf("audit: search runs must be at least 10, got %d", o.SearchRuns)
	case !(o.Confidence > 0 && o.Confidence < 1):
		return fmt.Errorf("audit: confidence must be in (0, 1), got %v", o.Confidence)
	case o.Grid < 1:
		return fmt.Errorf("audit: grid must be positive, got %d", o.Grid)
	case o.Workers < 1:
		return fmt.Errorf("audit: workers must be positive, got %d", o.Workers)
	}
	return nil
}

// setRuntime fills the workers (GOMAXPROCS) and the source (a secure
// one) every audit's options leave unset.
func setRuntime(workers *int, src **randx.Source) {
	*workers = cmp.Or(*workers, runtime.GOMAXPROCS(0))
	if *src == nil {
		*src = randx.NewSecure()
	}
}

// Verdict is the outcome of an audit.
type Verdict string

const (
	// Pass: the empirical lower bound does not exceed the claim.
	Pass Verdict = "PASS"
	// Violation: with the stated confidence the mechanism is not as
	// private as claimed.
	Violation Verdict = "VIOLATION"
)

// Event is a threshold event on the statistic, chosen to be more likely on
// dataset Numerator than on the other one.
type Event struct {
	Numerator Side    `json:"-"`
	Above     bool    `json:"above"` // statistic ≥ Threshold; else ≤
	Threshold float64 `json:"threshold"`
}

func (e Event) String() string {
	op := "≤"
	if e.Above {
		op = "≥"
	}
	return fmt.Sprintf("statistic %s %.6g", op, e.Threshold)
}

func (e Event) holds(s float64) bool {
	if e.Above {
		return s >= e.Threshold
	}
	return s <= e.Threshold
}

// Direction is the test of one ordering of the pair: is the event more
// than e^ε (plus δ) times likelier on Numerator than on the other dataset?
type Direction struct {
	Numerator    string  `json:"numerator"`
	Event        Event   `json:"event"`
	Description  string  `json:"event_description"`
	HitsNum      int     `json:"hits_numerator"`
	HitsDen      int     `json:"hits_denominator"`
	PNumLower    float64 `json:"p_numerator_lower"`
	PDenUpper    float64 `json:"p_denominator_upper"`
	EpsilonLower float64 `json:"epsilon_lower"`
	// RhoLower is the Rényi test's lower bound on ρ (renyi.go), for the
	// directions of a zCDP claim's Rényi test only.
	RhoLower float64 `json:"rho_lower,omitempty"`
}

// Result is the outcome of an audit.
type Result struct {
	Mechanism string       `json:"mechanism"`
	Pair      string       `json:"pair"`
	Claim     dp.Guarantee `json:"claim"`
	// ClaimedEpsilon and Delta are the (ε, δ) the lower bound is compared
	// with (δ is subtracted in the bound).
	ClaimedEpsilon float64 `json:"claimed_epsilon"`
	Delta          float64 `json:"delta"`
	// EpsilonLower is the larger of the two directions' bounds; it is ≤ the
	// true ε with probability at least Confidence.
	EpsilonLower float64     `json:"epsilon_lower"`
	Confidence   float64     `json:"confidence"`
	Verdict      Verdict     `json:"verdict"`
	Runs         int         `json:"runs"`
	SearchRuns   int         `json:"search_runs"`
	Directions   []Direction `json:"directions"`
	// For a zCDP claim, the Rényi test (renyi.go) of the whole ρ-zCDP
	// promise: ClaimedRho, the larger bound RhoLower of its two
	// directions RenyiDirections (each on its own event, chosen on the
	// search batch like the others), and RenyiDetectable, the smallest
	// true ρ of a Gaussian leak these runs detect (RenyiPower). The
	// verdict is VIOLATION when either test refutes the claim.
	ClaimedRho      float64     `json:"claimed_rho,omitempty"`
	RhoLower        float64     `json:"rho_lower,omitempty"`
	RenyiDetectable float64     `json:"renyi_detectable_rho,omitempty"`
	RenyiDirections []Direction `json:"renyi_directions,omitempty"`
	// Noise is the noise test's outcome, for a mechanism that states its
	// Noise; its ρ bound also refutes the claim when above it.
	Noise *NoiseTest `json:"noise_test,omitempty"`
}

// Run audits m: it releases SearchRuns times on each of D and D', chooses
// for each direction the threshold event with the best lower bound, then
// releases Runs times more on each dataset and bounds ε on that fresh
// batch, so that the search cannot bias the bound. Each direction's two
// Clopper–Pearson bounds are taken at level (1 − Confidence)/4, so the
// reported maximum is valid with probability at least Confidence. A zCDP
// claim is also tested through its Rényi divergences (renyi.go) on two
// more events; the eight bounds are then at (1 − Confidence)/8 each. A
// mechanism that states its Noise (a zCDP claim) also gets the noise test
// (noise.go) on both batches' runs, which takes a ninth share.
func Run(m Mechanism, o Options) (*Result, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if err := o.setDefaults(); err != nil {
		return nil, err
	}
	delta := cmp.Or(o.Delta, m.Delta)
	claim, err := m.Claim.ToApprox(delta)
	if err != nil {
		return nil, fmt.Errorf("audit: mechanism %q: %w", m.Name, err)
	}
	renyi := m.Claim.Notion == dp.ZCDP
	if m.Noise != nil && !renyi {
		return nil, fmt.Errorf("audit: mechanism %q: the noise test bounds ρ, but the claim %v is not zCDP", m.Name, m.Claim)
	}
	shares := 4
	if renyi {
		shares = 8
	}
	if m.Noise != nil {
		shares++
	}
	alpha := (1 - o.Confidence) / float64(shares)
	total := 2 * (o.SearchRuns + o.Runs)
	s := &sampler{m: m, workers: o.Workers, progress: &progress{fn: o.Progress, total: total}}
	search, err := s.batch(o.SearchRuns, o.Source)
	if err != nil {
		return nil, err
	}
	test, err := s.batch(o.Runs, o.Source)
	if err != nil {
		return nil, err
	}
	res := &Result{Mechanism: m.Name, Pair: m.Pair, Claim: m.Claim, ClaimedEpsilon: claim.Epsilon,
		Delta: claim.Delta, Confidence: o.Confidence, Runs: o.Runs, SearchRuns: o.SearchRuns}
	for _, num := range []Side{D, DPrime} {
		a, c := sortedSides(search, num)
		dir := measure(test, bestEvent(a, c, num, claim.Delta, alpha, o.Grid), claim.Delta, alpha)
		res.Directions = append(res.Directions, dir)
		res.EpsilonLower = math.Max(res.EpsilonLower, dir.EpsilonLower)
		if renyi {
			dir := measureRenyi(test, bestRenyiEvent(a, c, num, alpha, o.Grid), alpha)
			res.RenyiDirections = append(res.RenyiDirections, dir)
			res.RhoLower = math.Max(res.RhoLower, dir.RhoLower)
		}
	}
	res.Verdict = Pass
	if res.EpsilonLower > claim.Epsilon {
		res.Verdict = Violation
	}
	if renyi {
		res.ClaimedRho = m.Claim.Rho
		res.RenyiDetectable = RenyiPower(o.Runs, 1-8*alpha, m.Claim.Rho)
		if res.RhoLower > m.Claim.Rho {
			res.Verdict = Violation
		}
	}
	if m.Noise != nil {
		if res.Noise, err = noiseTest(slices.Concat(search.noise[D], search.noise[DPrime], test.noise[D], test.noise[DPrime]), alpha); err != nil {
			return nil, fmt.Errorf("audit: mechanism %q: %w", m.Name, err)
		}
		if res.Noise.RhoLower > m.Claim.Rho {
			res.Verdict = Violation
		}
	}
	return res, nil
}

// measure counts ev on a fresh batch and bounds ε.
func measure(b *samples, ev Event, delta, alpha float64) Direction {
	num, den := b.stats[ev.Numerator], b.stats[ev.Numerator.other()]
	kNum, kDen := count(num, ev), count(den, ev)
	nNum, nDen := len(num), len(den)
	return Direction{
		Numerator:    ev.Numerator.String(),
		Event:        ev,
		Description:  fmt.Sprintf("%v, likelier on %v than on %v", ev, ev.Numerator, ev.Numerator.other()),
		HitsNum:      kNum,
		HitsDen:      kDen,
		PNumLower:    ClopperPearsonLower(kNum, nNum, alpha),
		PDenUpper:    ClopperPearsonUpper(kDen, nDen, alpha),
		EpsilonLower: EpsilonLower(kNum, nNum, kDen, nDen, delta, alpha),
	}
}

func count(stats []float64, ev Event) int {
	k := 0
	for _, s := range stats {
		if ev.holds(s) {
			k++
		}
	}
	return k
}
