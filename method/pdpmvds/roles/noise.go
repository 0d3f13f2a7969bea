package roles

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"

	"github.com/dppub/dppub/crypto/dlpa"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/randx"
)

// contributors returns who draws noise for a release over the parties in
// involved: NoiseInsiderSafe every party and S (ThirdPartyIndex), in
// increasing order with S last; NoiseExact only the involved parties.
func (s *Session) contributors(involved []int) []int {
	if s.Noise == NoiseExact {
		return append([]int(nil), involved...)
	}
	out := make([]int, 0, s.Parties+1)
	for k := range s.Parties {
		out = append(out, k)
	}
	return append(out, ThirdPartyIndex)
}

// ThirdPartyIndex stands for S where a party index is expected.
const ThirdPartyIndex = -1

// releaseGrid is the public grid release of a measurement of `values`
// values: measurement.Noise.Plan, the plan a party uses when it releases the
// same values alone.
func releaseGrid(n measurement.Noise, values int) (dp.GridNoise, error) {
	pl, err := n.Plan(values)
	if err != nil {
		return dp.GridNoise{}, fmt.Errorf("pdpmvds: %w", err)
	}
	return pl, nil
}

// shareSpec says how one contributor's share is drawn: m contributors
// whose integer shares (grid steps of the release's grid) add up to the
// release's noise, every m−1 of them (NoiseInsiderSafe) or all m
// (NoiseExact) making up the plan's discrete law.
type shareSpec struct {
	plan dp.GridNoise
	// parts is m−1 (insider-safe) or m (exact): the number of shares whose
	// sum has exactly the calibrated distribution.
	parts int
}

func (s *Session) shareSpec(noise measurement.Noise, values, contributors int) (shareSpec, error) {
	pl, err := releaseGrid(noise, values)
	if err != nil {
		return shareSpec{}, err
	}
	parts := contributors
	if s.Noise == NoiseInsiderSafe {
		parts = contributors - 1
	}
	return shareSpec{plan: pl, parts: parts}, nil
}

// draw returns one contributor's integer share of every value, in grid
// steps (dp.Noiser.Shares): discrete Laplace as differences of Pólya
// draws, `parts` of which sum to exactly the plan's discrete Laplace
// (infinite divisibility); discrete Gaussians of variance s²/parts,
// `parts` of which sum to the plan's discrete Gaussian within Kairouz,
// Liu & Steinke's τ (ICML 2021).
func (sp shareSpec) draw(nz *dp.Noiser, values int) []int64 {
	out := make([]int64, values)
	nz.Shares(sp.plan, sp.parts, out)
	return out
}

// variance is the variance of the total noise of all m shares, in value
// units: m/parts times the plan's (2b² Laplace, σ² Gaussian, with the
// plan's effective b and σ).
func (sp shareSpec) variance(contributors int) float64 {
	v := sp.plan.Scale() * sp.plan.Scale()
	if sp.plan.Kind == dp.DiscreteLaplace {
		v *= 2
	}
	return v * float64(contributors) / float64(sp.parts)
}

// ringLimit bounds the magnitude of the commodity suite's values: the
// statistic stays within ±2^60 and each of the m contributors' noise
// within ±2^61/m, so the coordinator's sum never wraps in Z_{2^64}.
const ringLimit = 1 << 61

// encoding is how a joint release travels in integers — words of Z_{2^64}
// in the commodity suite, Paillier plaintexts in the other — so that the
// statistic plus the noise is exact and every value the coordinator
// receives is a function of the rounded statistic plus integer noise on
// the release's public grid G (releaseGrid). Every role derives it from
// the session and the request alone.
//
//   - Marginal: a count c is carried as the integer c·fine/G (exact: G is
//     a power of two ≤ 1 and c an integer, so nothing is rounded), the
//     noise as integers: the contributors' shares K (fine = 1), or DLPA's
//     η̂ drawn fine = 2^dlpa.FineBits times finer. The decoder rounds
//     T/fine to the nearest integer — c/G + K exactly when fine = 1,
//     c/G + round(η̂/fine) with DLPA, which smooths η̂'s lattice effects
//     (package dlpa) — and scales by G.
//   - Score: IInDif is computed on shares as Σ|t| = n·2^f·IInDif, finer
//     than G; it is multiplied by 2^shift so that one grid step is an
//     integer step = n·2^(f+shift)·G of ring units (a multiple of fine).
//     S, who never sees the result, adds a dither U uniform in [0, step);
//     the noise counts K·step (or η̂·step/fine). The decoder returns
//     ⌊T/step⌋·G. Given the statistic x, ⌊(x + U)/step⌋ is the stochastic
//     rounding of x/G, strictly within (x/G − 1, x/G + 1), so for
//     neighbouring datasets (|Δx| ≤ IInDifSensitivity = 2, a whole number
//     2/G of grid steps) the rounded values lie at most 2/G + 1 steps
//     apart: the one extra step per value that dp.PlanLaplace and
//     dp.PlanGaussian already pay for. The residue T mod step, which the
//     decoder also sees, is uniform whatever x; given it, the view is a
//     discrete Laplace (Gaussian) release of an integer within that bound,
//     so the charged guarantee holds for the whole view.
type encoding struct {
	plan dp.GridNoise
	// fine is 1, or 2^dlpa.FineBits when the noise comes from DLPA.
	fine int64
	// countShift is log2(fine/G): a count's multiplier (marginals).
	countShift uint
	// frac is f, the fixed point of the score's t; shift and step as above
	// (scores; step < 2^63).
	frac  int
	shift uint
	step  *big.Int
}

// encoding builds the encoding of a joint release.
func (s *Session) encoding(pl *plan) (encoding, error) {
	q := pl.req
	grid, err := releaseGrid(q.Release.Noise, pl.values)
	if err != nil {
		return encoding{}, err
	}
	e := encoding{plan: grid, fine: 1}
	if s.usesDLPA(pl) {
		e.fine = 1 << dlpa.FineBits
	}
	fineBits := bits.Len64(uint64(e.fine)) - 1
	_, exp := math.Frexp(grid.Grid)
	log2g := exp - 1 // G = 2^log2g
	if q.Kind != KindScore {
		if log2g > 0 {
			return encoding{}, fmt.Errorf("pdpmvds: release %q has grid %g > 1, which cannot carry counts exactly", q.Release.Purpose, grid.Grid)
		}
		e.countShift = uint(fineBits - log2g)
		return e, s.checkMarginalRange(e)
	}
	if log2g > 1 {
		return encoding{}, fmt.Errorf("pdpmvds: release %q has grid %g > 2: the score's sensitivity %g is not a whole number of steps", q.Release.Purpose, grid.Grid, measurement.IInDifSensitivity)
	}
	e.frac = paillierFrac
	if s.Suite == SuiteCommodity {
		e.frac = s.signFrac()
	}
	// step = n·2^(f + shift + log2 G), with f + shift + log2 G ≥ log2 fine.
	if need := fineBits - e.frac - log2g; need > 0 {
		e.shift = uint(need)
	}
	e.step = new(big.Int).Lsh(big.NewInt(int64(s.Records)), uint(e.frac+int(e.shift)+log2g))
	if e.step.BitLen() > 62 {
		return encoding{}, fmt.Errorf("pdpmvds: %d records make a score's grid step %v ring units, beyond 2^62", s.Records, e.step)
	}
	return e, s.checkScoreRange(e, refMass(q))
}

// checkMarginalRange: in the commodity suite a count is at most n, i.e.
// n/G grid steps, which must stay within ±2^60.
func (s *Session) checkMarginalRange(e encoding) error {
	if s.Suite != SuiteCommodity {
		return nil
	}
	if steps := math.Ldexp(float64(s.Records), int(e.countShift)); steps > ringLimit/2 {
		return fmt.Errorf("pdpmvds: %d records are %g grid steps of %g per count, beyond the commodity ring's ±2^60; measure fewer cells or use the Paillier suite", s.Records, steps, e.plan.Grid)
	}
	return nil
}

// checkScoreRange: in the commodity suite Σ|t| ≤ (mass + n²)·2^f, mass =
// Σ|RefA|·Σ|RefB| (n² for references summing to n), times 2^shift, plus
// the dither must stay within ±2^60.
func (s *Session) checkScoreRange(e encoding, mass float64) error {
	if s.Suite != SuiteCommodity {
		return nil
	}
	n := float64(s.Records)
	if top := math.Ldexp(max(mass, n*n)+n*n, e.frac+int(e.shift)) + float64(e.step.Uint64()); top > ringLimit/2 {
		return fmt.Errorf("pdpmvds: %d records need %g ring units for a score on grid %g, beyond the commodity ring's ±2^60", s.Records, top, e.plan.Grid)
	}
	return nil
}

// noiseInts returns a contributor's noise share in ring units: K per
// value (marginal) or K·step (score).
func (e encoding) noiseInts(k []int64, kind string) []*big.Int {
	out := make([]*big.Int, len(k))
	for i, v := range k {
		out[i] = big.NewInt(v)
		if kind == KindScore {
			out[i].Mul(out[i], e.step)
		}
	}
	return out
}

// noiseWords is noiseInts as words of Z_{2^64}, failing when one share
// leaves ±2^61/contributors (probability below 10^-100 at the plans'
// scales).
func (e encoding) noiseWords(k []int64, kind string, contributors int) ([]uint64, error) {
	limit := big.NewInt(ringLimit / int64(contributors))
	out := make([]uint64, len(k))
	for i, v := range e.noiseInts(k, kind) {
		if new(big.Int).Abs(v).Cmp(limit) > 0 {
			return nil, fmt.Errorf("pdpmvds: a noise share of %v ring units leaves the commodity ring's ±2^61/%d", v, contributors)
		}
		out[i] = uint64(v.Int64())
	}
	return out, nil
}

// dither draws U uniform in [0, step) (scores), by S.
func (e encoding) dither(src *randx.Source) *big.Int {
	return new(big.Int).SetUint64(src.Uint64N(e.step.Uint64()))
}

// decode turns the ring value T of one released value (the sum of the
// statistic and all noise, a signed integer) into the released value on
// the grid: G·round(T/fine) (marginal) or G·⌊T/step⌋ (score).
func (e encoding) decode(t *big.Int, kind string) float64 {
	q := new(big.Int)
	if kind == KindScore {
		floorDiv(q, t, e.step)
	} else {
		// round half up: ⌊(T + fine/2)/fine⌋ (T itself when fine = 1).
		q.Add(t, big.NewInt(e.fine/2))
		floorDiv(q, q, big.NewInt(e.fine))
	}
	f, _ := new(big.Float).SetInt(q).Float64()
	return f * e.plan.Grid
}

// floorDiv sets z = ⌊x/y⌋ for y > 0 (Euclidean division: the remainder is
// non-negative).
func floorDiv(z, x, y *big.Int) {
	z.DivMod(x, y, new(big.Int))
}

// onGrid checks that every released value is an integer multiple of the
// grid g.
func onGrid(vals []float64, g float64) error {
	for i, v := range vals {
		if u := v / g; math.IsNaN(u) || math.IsInf(u, 0) || u != math.Trunc(u) {
			return fmt.Errorf("pdpmvds: released value %d = %v is not on the public grid %g", i, v, g)
		}
	}
	return nil
}

// fixedWord rounds x·2^frac to a word mod 2^64, failing when |x·2^frac|
// does not fit in 62 bits. Only public values go through it (the score's
// reference products); statistics and noise are integers throughout.
func fixedWord(x float64, frac int) (uint64, error) {
	v := math.Round(math.Ldexp(x, frac))
	if !(math.Abs(v) < 1<<62) {
		return 0, fmt.Errorf("pdpmvds: value %g does not fit the 64-bit ring with %d fractional bits", x, frac)
	}
	return uint64(int64(v)), nil
}

// checkRelease validates a release a party is asked to pay for: the
// mechanism and its parameters, that it names exactly the owners of the
// measured attributes, and that its noise is calibrated to at least the
// query's sensitivity (L1 for Laplace, L2 for Gaussian).
func (s *Session) checkRelease(attrs []int, r measurement.Release, l1, l2 float64) error {
	if err := r.Validate(s.Parties); err != nil {
		return fmt.Errorf("pdpmvds: %w", err)
	}
	owners := s.involved(attrs)
	got := append([]int(nil), r.Parties...)
	if !sameSet(got, owners) {
		return fmt.Errorf("pdpmvds: release %q charges parties %v, but its attributes belong to %v", r.Purpose, r.Parties, owners)
	}
	need := l2
	if r.Noise.Mechanism == measurement.Laplace {
		need = l1
	}
	if r.Noise.Sensitivity < need*(1-1e-12) {
		return fmt.Errorf("pdpmvds: release %q is calibrated to sensitivity %g, the query has %g", r.Purpose, r.Noise.Sensitivity, need)
	}
	want, err := measurement.Calibrate(r.Noise.Mechanism, r.Noise.Sensitivity, r.Noise.Sensitivity, r.Noise.Rho)
	if err != nil {
		return fmt.Errorf("pdpmvds: %w", err)
	}
	if math.Abs(want.Scale-r.Noise.Scale) > 1e-9*want.Scale {
		return fmt.Errorf("pdpmvds: release %q has scale %g, but ρ = %g at sensitivity %g needs %g", r.Purpose, r.Noise.Scale, r.Noise.Rho, r.Noise.Sensitivity, want.Scale)
	}
	return nil
}

func sameSet(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[int]int{}
	for _, v := range a {
		seen[v]++
	}
	for _, v := range b {
		seen[v]--
		if seen[v] < 0 {
			return false
		}
	}
	return true
}
