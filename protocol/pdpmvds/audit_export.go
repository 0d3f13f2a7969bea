package pdpmvds

import (
	"github.com/dppub/dppub/algo/marginal"
	"github.com/dppub/dppub/dp"
)

// NoiseShares draws the noise shares of one release over the involved
// parties exactly as the protocol's contributors draw them (see
// NoiseMode): it returns who contributes (party indices, ThirdPartyIndex
// for S) and each one's share. Their sum is the noise the coordinator
// sees on the release; a contributor that knows its own share sees the
// sum of the others'. For audits and tests of the distributed noise.
func (s Session) NoiseShares(noise marginal.Noise, involved []int, nz *dp.Noiser) ([]int, []float64) {
	who := s.contributors(involved)
	sp := s.shareSpec(noise, len(who))
	shares := make([]float64, len(who))
	for i := range shares {
		shares[i] = sp.draw(nz)
	}
	return who, shares
}
