package roles

import (
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/measurement"
)

// NoiseShares draws the noise shares of a release of one value over the
// involved parties exactly as the protocol's contributors draw them (see
// NoiseMode): integer shares in steps of the release's public grid
// (dp.Noiser.Shares on releaseGrid(noise, 1)). It returns who contributes
// (party indices, ThirdPartyIndex for S) and each one's share in value
// units (the integer times the grid step, exact). Their sum is the noise
// the coordinator sees on a count; a contributor that knows its own share
// sees the sum of the others'. For audits and tests of the distributed
// noise; it panics on an invalid noise (measurement.Noise.Validate).
func (s Session) NoiseShares(noise measurement.Noise, involved []int, nz *dp.Noiser) ([]int, []float64) {
	who := s.contributors(involved)
	sp, err := s.shareSpec(noise, 1, len(who))
	if err != nil {
		panic(err)
	}
	shares := make([]float64, len(who))
	for i := range shares {
		shares[i] = float64(sp.draw(nz, 1)[0]) * sp.plan.Grid
	}
	return who, shares
}

// NoiseGrid is the public grid step of a release of `values` values: every
// value the coordinator receives is an integer multiple of it.
func NoiseGrid(noise measurement.Noise, values int) (float64, error) {
	pl, err := releaseGrid(noise, values)
	return pl.Grid, err
}
