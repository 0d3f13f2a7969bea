package audit

import (
	"cmp"
	"fmt"
	"math"
	"strings"

	"github.com/dppub/dppub/randx"
)

// Leak is GreyBox's verdict when the low-order floating-point structure of
// the release depends on the dataset.
const Leak Verdict = "LEAK"

// GreyBoxOptions configure one grey-box audit.
type GreyBoxOptions struct {
	// Runs is the number of releases per dataset; at least 100.
	Runs int
	// Alpha is the audit's false-alarm rate: the probability of a LEAK
	// verdict when every compared feature has the same distribution on D
	// and D'. It is split evenly over the audit's tests (Bonferroni); 0
	// means 1e-3.
	Alpha float64
	// TrailingCap caps the count of trailing zero bits of the significand
	// (and holds ±0); 0 means 8. At most 52.
	TrailingCap int
	// LowBits is the number k of low significand bits compared; 0 means 4.
	// At most 7.
	LowBits int
	// MinCount merges every category observed fewer times (both datasets,
	// all coordinates of one test) into one, so that the χ² approximation
	// holds; 0 means 50.
	MinCount int
	// PerCoordinate adds one test per output coordinate and feature to the
	// tests pooled over coordinates (Bonferroni over all of them).
	PerCoordinate bool
	// ReplayRuns is the number of same-seed pairs of releases of the
	// replay check, made only when the mechanism states a ReplayBound or
	// a ReplayPair; 0 means Runs, at most 1000 (a pair costs two
	// releases, so a short audit stays short) — at most 250 with a
	// ReplayPair, which replays every release of a whole pipeline and
	// finds a release beyond its bound the first time it is made (250
	// pairs make a release chosen in 2% of runs with probability 0.994) —,
	// negative skips the check.
	ReplayRuns int
	// Workers run releases in parallel; 0 means GOMAXPROCS. The result
	// does not depend on it.
	Workers int
	// Source seeds the releases; nil means randx.NewSecure(). A seeded
	// source makes the audit reproducible; a mechanism whose samplers
	// depend on the kind of source (as dp.Noiser's did before grid
	// releases) should be audited with both.
	Source *randx.Source
	// Progress, if set, is called with the releases done so far and the
	// total.
	Progress func(done, total int)
}

func (o *GreyBoxOptions) setDefaults() error {
	o.Alpha = cmp.Or(o.Alpha, 1e-3)
	o.TrailingCap = cmp.Or(o.TrailingCap, 8)
	o.LowBits = cmp.Or(o.LowBits, 4)
	o.MinCount = cmp.Or(o.MinCount, 50)
	setRuntime(&o.Workers, &o.Source)
	switch {
	case o.Runs < 100:
		return fmt.Errorf("audit: grey-box runs must be at least 100, got %d", o.Runs)
	case !(o.Alpha > 0 && o.Alpha < 1):
		return fmt.Errorf("audit: grey-box alpha must be in (0, 1), got %v", o.Alpha)
	case o.TrailingCap < 1 || o.TrailingCap > 52:
		return fmt.Errorf("audit: grey-box trailing-zero cap must be in [1, 52], got %d", o.TrailingCap)
	case o.LowBits < 1 || o.LowBits > 7:
		return fmt.Errorf("audit: grey-box low bits must be in [1, 7], got %d", o.LowBits)
	case o.MinCount < 1:
		return fmt.Errorf("audit: grey-box minimum count must be positive, got %d", o.MinCount)
	case o.Workers < 1:
		return fmt.Errorf("audit: workers must be positive, got %d", o.Workers)
	}
	return nil
}

// FeatureFreq is one category of a feature with its frequency among the
// releases on D and on D'.
type FeatureFreq struct {
	Category string  `json:"category"`
	D        float64 `json:"d"`
	DPrime   float64 `json:"dprime"`
}

// FeatureTest is the comparison of one low-order feature between D and D'.
type FeatureTest struct {
	// Feature is trailing-zeros, low-bits, or residual-… for o − v.
	Feature string `json:"feature"`
	// Coordinate is the output coordinate tested, or -1 for all of them
	// pooled.
	Coordinate int `json:"coordinate"`
	// TV is the total variation distance between the feature's empirical
	// distributions on D and on D' (raw categories, atoms left out).
	// Sampling alone gives about √(K/(π·Runs)) for K equally likely
	// categories.
	TV float64 `json:"tv"`
	// Groups is the number of categories after merging the sparse ones;
	// DF the degrees of freedom of the χ² test on them.
	Groups    int     `json:"groups"`
	DF        int     `json:"df"`
	Statistic float64 `json:"statistic"`
	PValue    float64 `json:"p_value"`
	// Leak: PValue is below the audit's per-test level.
	Leak bool `json:"leak"`
	// Table lists the raw categories seen, by frequency (atoms left out).
	Table []FeatureFreq `json:"table"`
}

// Replay is the outcome of the same-seed check.
type Replay struct {
	Runs  int     `json:"runs"`
	Norm  float64 `json:"norm"`
	Bound float64 `json:"bound"`
	// MaxDiff is the largest distance observed between the two releases
	// of a pair, ignoring differences within 4 ulps per coordinate (the
	// rounding of the final addition). With a ReplayPair, MaxDiff, Bound
	// and Norm are those of the release that came closest to (or went
	// furthest beyond) its own bound, named by Worst.
	MaxDiff  float64 `json:"max_diff"`
	Exceeded bool    `json:"exceeded"`
	// With a ReplayPair: Worst names the release of MaxDiff, Releases
	// counts the releases compared over all pairs, Diverged the pairs
	// whose runs stopped asking the same queries (an adaptive choice made
	// on noisy values that differ between D and D'; the releases from
	// there on are not compared).
	Worst    string `json:"worst_release,omitempty"`
	Releases int    `json:"releases_compared,omitempty"`
	Diverged int    `json:"pairs_diverged,omitempty"`
}

// GreyBoxResult is the outcome of a grey-box audit.
type GreyBoxResult struct {
	Mechanism string `json:"mechanism"`
	Pair      string `json:"pair"`
	Runs      int    `json:"runs"`
	// Alpha is the audit's false-alarm rate, Tests the number of tests it
	// is split over, Level = Alpha/Tests the level of each.
	Alpha    float64       `json:"alpha"`
	Tests    int           `json:"tests"`
	Level    float64       `json:"level"`
	Features []FeatureTest `json:"features"`
	// MaxTV is the largest feature TV; PValue the smallest p-value times
	// Tests (capped at 1): LEAK when below Alpha.
	MaxTV  float64 `json:"max_tv"`
	PValue float64 `json:"p_value"`
	// DetectableTV: a feature whose distributions on D and D' differ by at
	// least this TV (after merging, one observation per release) is
	// detected with probability at least 0.99.
	DetectableTV float64 `json:"detectable_tv"`
	// Atoms is the number of values (over all coordinates) that a pilot
	// batch saw at least 3 times on each dataset, such as the clamped ends
	// 0 and 1 of a probability or the indices of a selection; AtomShare is
	// the share of the tested outputs on D and on D' that were atoms. Atoms
	// are left out of the tests: how often a value common to both datasets
	// occurs is the output's distribution itself, which DP lets differ.
	Atoms     int        `json:"atoms"`
	AtomShare [2]float64 `json:"atom_share"`
	// Grid holds, when the mechanism states its Truth, the power of two g
	// per coordinate (the finest spacing of a pilot batch's outputs) to
	// which v is rounded before the residual o − round_g(v) is taken.
	Grid    []float64 `json:"grid,omitempty"`
	Replay  *Replay   `json:"replay,omitempty"`
	Verdict Verdict   `json:"verdict"`
}

// GreyBox audits the floating-point representation of m's releases. It
// releases Runs times on each of D and D' (independent children of
// Source, as Run does) and tests, for each feature of every released
// float64 o,
//
//	(a) trailing-zeros: the number of trailing zero bits of o's 53-bit
//	    significand (implicit bit included), capped at TrailingCap, ±0
//	    counted with the cap (zero has no low-order bits to leak);
//	(b) low-bits: the low LowBits bits of the significand;
//	(c) when m states its Truth v: (a) and (b) of the residual
//	    o − round_g(v), g the finest power-of-two spacing of a pilot
//	    batch's outputs (round_g(v) = v for outputs with no common grid);
//
// whether its distribution is the same on D and D': a χ² test of
// homogeneity pooled over the coordinates (and per coordinate with
// PerCoordinate), on categories merged until each holds MinCount
// observations. The test takes each release as one observation of its
// vector of category counts (a score test with the release-level
// covariance), so coordinates may be dependent. Outputs equal to an atom,
// a value that a separate pilot batch saw at least 3 times on each
// dataset (the clamped ends 0 and 1 of a probability, the index of a
// selection, the few values of a coarse grid), are left out: how often
// such a value occurs is the output distribution itself, which DP lets
// differ, not a low-order bit; values seen on one dataset only stay in.
// It also checks, when m states a ReplayBound, that releases on D and D'
// made from the same seeded randomness lie within it, or, when m states a
// ReplayPair, that every noisy release of a whole run does (replay.go).
//
// What it detects: a release whose low-order bits depend on the data, the
// precondition of the floating-point attack of Mironov (2012, "On
// significance of the least significant bits for differential privacy").
// Noise drawn around 0 and added to the true value in float64 leaves the
// value's low bits in the output when the noise lies on a coarser grid
// (o ≡ v mod 2^-40 with a granular sampler: TV 1 at once), and shows the
// noise sampler's own bit structure on one dataset while the addition
// rounds it away on the other (TV 0.1–0.4 for v = 0 against v' = 1/3 or
// 1). A release g·(round(v/g) + K) on a grid g chosen from public
// parameters, K integer noise, has (a) = cap and (b) = 0 on both datasets
// while |o/g| < 2^(53−max(cap, k)), and its residual is g·K, distributed
// alike on both; the parity of K and the magnitude of o, which DP lets
// differ by up to e^ε, are not features, so small noise (K of a few grid
// steps) passes too.
//
// What it cannot: it is a lower-bound style test, not a proof. PASS says
// only that these features did not differ detectably (see DetectableTV);
// a leak through other functions of the bits (which values are reachable
// at all, as in the far tail of an inverse-CDF sampler) escapes it. Beyond
// |o/g| = 2^(53−max(cap, k)) the significand holds low bits of round(v/g)
// + K and its trailing zeros move with the exponent, so a correct release
// of such large values can be flagged. Features (a) and (b) are functions of
// the release, so a difference is a real difference between the output
// distributions (though DP alone would allow one up to e^ε); the residual
// (c) depends on v, which differs between D and D': it tests the stronger
// property a grid release has, and would also flag an exactly rounded
// continuous mechanism fl(v + X).
//
// False alarms: each test's p-value is from the χ² approximation (with
// MinCount 50, 20,000 simulated null tests at 300 runs per dataset, one
// or three dependent coordinates, fell below 1e-3 at rates 1.05e-3 and
// 1.1e-3), and the Bonferroni split makes the probability of a false LEAK
// at most Alpha when every feature is equally distributed on D and D'. The replay check
// has no false alarms if the stated bound is right.
func GreyBox(m Mechanism, o GreyBoxOptions) (GreyBoxResult, error) {
	if err := m.Validate(); err != nil {
		return GreyBoxResult{}, err
	}
	if err := o.setDefaults(); err != nil {
		return GreyBoxResult{}, err
	}
	truth, err := greyBoxTruth(m)
	if err != nil {
		return GreyBoxResult{}, err
	}
	res := GreyBoxResult{Mechanism: m.Name, Pair: m.Pair, Runs: o.Runs, Alpha: o.Alpha}
	pilot := min(o.Runs, chunkSize)
	replay := o.ReplayRuns
	if replay == 0 {
		replay = min(o.Runs, 1000)
		if m.ReplayPair != nil {
			replay = min(o.Runs, 250)
		}
	}
	if m.ReplayBound <= 0 && m.ReplayPair == nil {
		replay = 0
	}
	prog := &progress{fn: o.Progress, total: 2 * (pilot + o.Runs + replay)}
	switch {
	case replay > 0 && m.ReplayPair != nil:
		if res.Replay, err = replayPairs(m, replay, o.Workers, o.Source.Child(), prog); err != nil {
			return GreyBoxResult{}, err
		}
	case replay > 0:
		if res.Replay, err = replayCheck(m, replay, o.Source.Child(), prog); err != nil {
			return GreyBoxResult{}, err
		}
	}
	// A pilot batch, apart from the tested one, fixes the atoms and the grid.
	pl, err := runPilot(m, pilot, o, prog)
	if err != nil {
		return GreyBoxResult{}, err
	}
	for _, a := range pl.atoms {
		res.Atoms += len(a)
	}
	feats := greyBoxFeatures(m, o, pl, truth, &res)
	cats, err := categorise(m, o, pl, feats, prog)
	if err != nil {
		return GreyBoxResult{}, err
	}
	res.AtomShare = atomShares(cats[0], o.Runs*m.Dim)
	testFeatures(&res, feats, cats, o, m.Dim)
	return res, nil
}

// greyBoxTruth returns m's declared true values on D and D' (nil without
// Truth), checked finite and of length Dim.
func greyBoxTruth(m Mechanism) ([2][]float64, error) {
	var truth [2][]float64
	if m.Truth == nil {
		return truth, nil
	}
	for _, s := range []Side{D, DPrime} {
		truth[s] = m.Truth(s)
		if len(truth[s]) != m.Dim {
			return truth, fmt.Errorf("audit: %s: truth on %v has length %d, want %d", m.Name, s, len(truth[s]), m.Dim)
		}
		for j, v := range truth[s] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return truth, fmt.Errorf("audit: %s: truth on %v, coordinate %d, is %v", m.Name, s, j, v)
			}
		}
	}
	return truth, nil
}

// greyBoxFeatures lists the features to compare: those of the output,
// and, when the truth is declared, the same on the output minus the truth
// rounded to the pilot's grid.
func greyBoxFeatures(m Mechanism, o GreyBoxOptions, pl *pilot, truth [2][]float64, res *GreyBoxResult) []feature {
	feats := []feature{trailingZeros(o.TrailingCap), lowBits(o.LowBits)}
	if m.Truth == nil {
		return feats
	}
	res.Grid = pl.grid
	var snapped [2][]float64
	for s := range snapped {
		snapped[s] = make([]float64, m.Dim)
		for j, v := range truth[s] {
			snapped[s][j] = SnapToGrid(v, pl.grid[j])
		}
	}
	for _, f := range feats[:2] {
		feats = append(feats, f.residual(snapped))
	}
	return feats
}

// categorise runs the tested batch: cats[f][((side·Runs)+run)·Dim + j] is
// feature f's category of coordinate j of one release, or atom.
func categorise(m Mechanism, o GreyBoxOptions, pl *pilot, feats []feature, prog *progress) ([][]uint8, error) {
	runs, dim := o.Runs, m.Dim
	cats := make([][]uint8, len(feats))
	for f := range cats {
		cats[f] = make([]uint8, 2*runs*dim)
	}
	err := releaseEach(m, runs, o.Workers, o.Source, prog, func(side Side, run int, out []float64) error {
		base := (int(side)*runs + run) * dim
		for j, x := range out {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("audit: %s on %v: coordinate %d of the release is %v", m.Name, side, j, x)
			}
			if a := pl.atoms[j]; a != nil && a[x] {
				for f := range feats {
					cats[f][base+j] = atom
				}
				continue
			}
			for f := range feats {
				cats[f][base+j] = uint8(feats[f].category(side, j, x))
			}
		}
		return nil
	})
	return cats, err
}

// atomShares is the share of atoms among each side's perSide observations.
func atomShares(cats []uint8, perSide int) [2]float64 {
	var out [2]float64
	for s := range 2 {
		n := 0
		for _, c := range cats[s*perSide : (s+1)*perSide] {
			if c == atom {
				n++
			}
		}
		out[s] = float64(n) / float64(perSide)
	}
	return out
}

// testFeatures runs the homogeneity tests (pooled, and per coordinate when
// asked) at the Bonferroni level and sets the verdict.
func testFeatures(res *GreyBoxResult, feats []feature, cats [][]uint8, o GreyBoxOptions, dim int) {
	res.Tests = len(feats)
	if o.PerCoordinate && dim > 1 {
		res.Tests += len(feats) * dim
	}
	res.Level = o.Alpha / float64(res.Tests)
	minP := 1.0
	maxK := 0
	for f, ft := range feats {
		maxK = max(maxK, len(ft.labels))
		scopes := []int{-1}
		if o.PerCoordinate && dim > 1 {
			for j := range dim {
				scopes = append(scopes, j)
			}
		}
		for _, j := range scopes {
			t := homogeneity(cats[f], ft.labels, o.Runs, dim, j, o.MinCount)
			t.Feature = ft.name
			t.Leak = t.PValue < res.Level
			res.MaxTV = math.Max(res.MaxTV, t.TV)
			minP = math.Min(minP, t.PValue)
			res.Features = append(res.Features, t)
		}
	}
	res.PValue = math.Min(1, minP*float64(res.Tests))
	res.DetectableTV = detectableTV(o.Runs, maxK-1, res.Level, 0.99)
	res.Verdict = Pass
	if res.PValue < o.Alpha || (res.Replay != nil && res.Replay.Exceeded) {
		res.Verdict = Leak
	}
}

// replayCheck releases on D and D' from the same seeded stream, runs
// times, and measures the largest distance between the pair.
func replayCheck(m Mechanism, runs int, src *randx.Source, prog *progress) (*Replay, error) {
	p := m.ReplayNorm
	if p == 0 {
		p = 1
	}
	r := &Replay{Runs: runs, Norm: p, Bound: m.ReplayBound}
	a, b := make([]float64, m.Dim), make([]float64, m.Dim)
	for range runs {
		seed := src.Uint64()
		clear(a)
		clear(b)
		if err := m.Release(D, randx.NewSeeded(seed), a); err != nil {
			return nil, fmt.Errorf("audit: %s on %v: %w", m.Name, D, err)
		}
		if err := m.Release(DPrime, randx.NewSeeded(seed), b); err != nil {
			return nil, fmt.Errorf("audit: %s on %v: %w", m.Name, DPrime, err)
		}
		r.MaxDiff = math.Max(r.MaxDiff, distance(a, b, p))
		prog.add(2)
	}
	r.Exceeded = !(r.MaxDiff <= r.Bound*(1+1e-12))
	return r, nil
}

// distance is the ℓp distance between a and b, each coordinate's
// difference reduced by 4 ulps of the larger magnitude.
func distance(a, b []float64, p float64) float64 {
	acc := 0.0
	for i := range a {
		big := math.Max(math.Abs(a[i]), math.Abs(b[i]))
		d := math.Max(0, math.Abs(a[i]-b[i])-4*(math.Nextafter(big, math.Inf(1))-big))
		switch {
		case math.IsInf(p, 1):
			acc = math.Max(acc, d)
		case p == 1:
			acc += d
		default:
			acc += math.Pow(d, p)
		}
	}
	if math.IsInf(p, 1) || p == 1 {
		return acc
	}
	return math.Pow(acc, 1/p)
}

// WithScalarTruth returns m with its Truth set to the scalar query's values
// vD on D and vDPrime on D', and its ReplayBound to |vD − vDPrime| (the
// same in every norm for one coordinate): for a mechanism that adds noise
// drawn independently of the value to a scalar whose values lie on its
// grid, or none.
func WithScalarTruth(m Mechanism, vD, vDPrime float64) Mechanism {
	m.Truth = func(s Side) []float64 {
		if s == D {
			return []float64{vD}
		}
		return []float64{vDPrime}
	}
	m.ReplayBound = math.Abs(vD - vDPrime)
	return m
}

// String summarises the result in one line.
func (r GreyBoxResult) String() string {
	var worst []string
	for _, f := range r.Features {
		if f.Leak {
			worst = append(worst, fmt.Sprintf("%s TV %.3f", f.Feature, f.TV))
		}
	}
	s := fmt.Sprintf("%s: %s (max TV %.3f, p = %.3g over %d tests at α = %.3g", r.Mechanism, r.Verdict, r.MaxTV, r.PValue, r.Tests, r.Alpha)
	if r.Replay != nil {
		s += fmt.Sprintf("; replay max diff %.6g vs bound %.6g", r.Replay.MaxDiff, r.Replay.Bound)
		if r.Replay.Worst != "" {
			s += fmt.Sprintf(" (%s; %d releases compared, %d of %d pairs diverged)", r.Replay.Worst, r.Replay.Releases, r.Replay.Diverged, r.Replay.Runs)
		}
	}
	s += ")"
	if len(worst) > 0 {
		s += ": " + strings.Join(worst, ", ")
	}
	return s
}
