package pdpmvds

import (
	"fmt"
	"math"

	"github.com/dppub/dppub/algo/marginal"
	"github.com/dppub/dppub/dp"
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

// shareSpec says how one contributor's share is drawn: m contributors
// whose shares add up to the release's noise, every m−1 of them
// (NoiseInsiderSafe) or all m (NoiseExact) making up the calibrated
// distribution.
type shareSpec struct {
	noise marginal.Noise
	// parts is m−1 (insider-safe) or m (exact): the number of shares whose
	// sum has exactly the calibrated distribution.
	parts int
}

func (s *Session) shareSpec(noise marginal.Noise, contributors int) shareSpec {
	parts := contributors
	if s.Noise == NoiseInsiderSafe {
		parts = contributors - 1
	}
	return shareSpec{noise: noise, parts: parts}
}

// draw returns one share: N(0, σ²/parts), or the difference of two
// Gamma(1/parts, b) variables (a sum of `parts` of them is Lap(b), by the
// infinite divisibility of the Laplace distribution).
func (sp shareSpec) draw(nz *dp.Noiser) float64 {
	if sp.noise.Mechanism == marginal.Gaussian {
		return nz.Gaussian(sp.noise.Scale / math.Sqrt(float64(sp.parts)))
	}
	if sp.parts == 1 {
		return nz.Laplace(sp.noise.Scale)
	}
	shape := 1 / float64(sp.parts)
	return nz.Gamma(shape, sp.noise.Scale) - nz.Gamma(shape, sp.noise.Scale)
}

// variance is the variance of the total noise of all m shares.
func (sp shareSpec) variance(contributors int) float64 {
	return sp.noise.Variance() * float64(contributors) / float64(sp.parts)
}

// fixedWord rounds x·2^frac to a word mod 2^64, failing when |x·2^frac|
// does not fit in 62 bits.
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
func (s *Session) checkRelease(attrs []int, r marginal.Release, l1, l2 float64) error {
	if err := r.Validate(s.Parties); err != nil {
		return fmt.Errorf("pdpmvds: %w", err)
	}
	owners := s.involved(attrs)
	got := append([]int(nil), r.Parties...)
	if !sameSet(got, owners) {
		return fmt.Errorf("pdpmvds: release %q charges parties %v, but its attributes belong to %v", r.Purpose, r.Parties, owners)
	}
	need := l2
	if r.Noise.Mechanism == marginal.Laplace {
		need = l1
	}
	if r.Noise.Sensitivity < need*(1-1e-12) {
		return fmt.Errorf("pdpmvds: release %q is calibrated to sensitivity %g, the query has %g", r.Purpose, r.Noise.Sensitivity, need)
	}
	want, err := marginal.Calibrate(r.Noise.Mechanism, r.Noise.Sensitivity, r.Noise.Sensitivity, r.Noise.Rho)
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
