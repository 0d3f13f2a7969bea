package audits

import (
	"fmt"
	"math/big"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/crypto/dlpa"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/measurement"
	pdpmvds "github.com/dppub/dppub/method/pdpmvds/roles"
	"github.com/dppub/dppub/randx"
)

// The audits of this file run PDP-MVDS's real share drawing
// (pdpmvds.Session.NoiseShares, what each contributor adds) and the DLPA
// shares of its Paillier suite, on a count of sensitivity 1.

// addNoise adds the audits of PDP-MVDS's distributed noise.
func addNoise(fam *audit.Family) {
	fam.Add(audit.Method{Name: "pdp-mvds-noise", Summary: "PDP-MVDS distributed Gaussian noise (2 parties + S, σ = 1 on a count), seen by the coordinator or by a fellow party that knows its own share",
		Calibrations: []string{string(pdpmvds.NoiseInsiderSafe), string(pdpmvds.NoiseExact)}, FastRuns: 20_000, LongRuns: 500_000,
		Build: func(o audit.MethodOptions) (audit.Mechanism, error) {
			return PDPMVDSNoise(pdpmvds.NoiseMode(o.Calibration), o.Mechanism)
		}},
		audit.Case{Method: "pdp-mvds-noise", Options: audit.MethodOptions{Calibration: string(pdpmvds.NoiseInsiderSafe)}, Expect: audit.Pass},
		audit.Case{Method: "pdp-mvds-noise", Options: audit.MethodOptions{Calibration: string(pdpmvds.NoiseInsiderSafe), Mechanism: ViewParty}, Expect: audit.Pass},
		audit.Case{Method: "pdp-mvds-noise", Options: audit.MethodOptions{Calibration: string(pdpmvds.NoiseExact)}, Expect: audit.Pass},
		audit.Case{Method: "pdp-mvds-noise", Options: audit.MethodOptions{Calibration: string(pdpmvds.NoiseExact), Mechanism: ViewParty}, Expect: audit.Violation})
	fam.AddCalibrated("pdp-mvds-laplace-noise", "PDP-MVDS distributed discrete Laplace noise by Pólya shares (2 parties + S, ε = 1 on a count), the coordinator's view", 20_000, 500_000, 1,
		func(cal string, eps float64) (audit.Mechanism, error) {
			return PDPMVDSLaplaceNoise(pdpmvds.NoiseMode(cal), eps)
		},
		audit.CalibrationVerdict{Calibration: string(pdpmvds.NoiseInsiderSafe), Expect: audit.Pass},
		audit.CalibrationVerdict{Calibration: string(pdpmvds.NoiseExact), Expect: audit.Pass})
	fam.AddSound("dlpa", "DLPA distributed Laplace (Rastogi & Nath 2010) as PDP-MVDS's Paillier suite draws it: 3 parties' Gaussian shares, quantised, combined (ε = 1)",
		20_000, 500_000, 1, DLPA)
}

// ViewParty audits what a fellow party sees of PDP-MVDS's noise: the
// release minus its own share.
const ViewParty = "party"

// PDPMVDSNoise audits the noise PDP-MVDS adds to a count of one cell
// (sensitivity 1) over two parties' attributes, σ = 1 (ρ = 0.5), drawn as
// the protocol's contributors draw their shares (Session.NoiseShares),
// claimed as the exact (ε = 1, δ) profile of N(0, 1). The coordinator
// sees count + all shares. A fellow party (view "party") also knows its
// own share and sees count + the others'. Insider-safe: any m−1 of the m
// shares already make up N(0, 1), so both views pass. Exact (the paper's):
// the two involved parties' shares are N(0, ½) each, so a party sees
// N(0, ½): a VIOLATION of the claim against a fellow party.
func PDPMVDSNoise(mode pdpmvds.NoiseMode, view string) (audit.Mechanism, error) {
	if view != "" && view != "coordinator" && view != ViewParty {
		return audit.Mechanism{}, fmt.Errorf("audit: pdp-mvds-noise view must be coordinator or party, got %q", view)
	}
	if view == "" {
		view = "coordinator"
	}
	noise, release, err := sharedNoise(mode, measurement.Gaussian, 0.5, view == ViewParty)
	if err != nil {
		return audit.Mechanism{}, err
	}
	return audit.Mechanism{
		Name:    fmt.Sprintf("pdp-mvds %s noise (σ=1), %s's view", mode, view),
		Claim:   audit.GaussianProfile(noise.Scale, 1),
		Pair:    "a count of 0 on D and 1 on D'",
		Dim:     1,
		Release: release,
	}, nil
}

// sharedNoise calibrates the mechanism's noise at rho for a count of
// sensitivity 1 and releases the count, 0 on D and 1 on D', plus the
// shares of it that two parties and S draw (Session.NoiseShares), without
// party 1's own share when ownKnown (a fellow party's view).
func sharedNoise(mode pdpmvds.NoiseMode, m measurement.Mechanism, rho float64, ownKnown bool) (measurement.Noise, func(audit.Side, *randx.Source, []float64) error, error) {
	s := pdpmvds.Session{Parties: 2, Records: 10, Sizes: []int{2, 2}, Owners: []int{0, 1}, Noise: mode}
	if err := s.Validate(); err != nil {
		return measurement.Noise{}, nil, fmt.Errorf("audit: %w", err)
	}
	noise, err := measurement.Calibrate(m, 1, 1, rho)
	if err != nil {
		return measurement.Noise{}, nil, fmt.Errorf("audit: %w", err)
	}
	return noise, func(side audit.Side, src *randx.Source, out []float64) error {
		_, shares := s.NoiseShares(noise, []int{0, 1}, dp.NewNoiser(src))
		out[0] = audit.SideValue(side, 1)
		for i, v := range shares {
			if ownKnown && i == 0 {
				continue // party 1 knows its own share
			}
			out[0] += v
		}
		return nil
	}, nil
}

// DLPA audits the distributed Laplace noise of crypto/dlpa (Rastogi &
// Nath 2010) as PDP-MVDS's Paillier suite uses it: three parties each draw
// four integer discrete-Gaussian shares of variance λ/6, and η̂ =
// Σ_j ±(Σ_k ŷ_jk)², exactly what the encrypted computation yields
// (CombinePlain), is close to a discrete Laplace of scale λ. It is drawn
// 2^FineBits times finer than the unit (λ = 2^FineBits/ε) and the noisy
// count rounded back to units. The coordinator sees a count of 0 or 1
// plus that noise, claimed ε-DP. The statistic is the release.
func DLPA(eps float64) (audit.Mechanism, error) {
	const parties, fine = 3, 1 << dlpa.FineBits
	return audit.Mechanism{
		Name:  fmt.Sprintf("dlpa distributed Laplace (%d parties, integer shares 2^%d finer than the unit, ε=%g)", parties, dlpa.FineBits, eps),
		Claim: dp.Pure(eps),
		Pair:  "a count of 0 on D and 1 on D'",
		Dim:   1,
		Release: func(side audit.Side, src *randx.Source, out []float64) error {
			// The count in steps of 2^-FineBits, η̂ at λ = 2^FineBits/ε
			// steps, the sum rounded back to whole units as PDP-MVDS's
			// decoder does.
			nz := dp.NewNoiser(src)
			shares := make([]dlpa.Share, parties)
			for k := range shares {
				s, err := dlpa.DrawShare(nz, float64(fine)/eps, parties)
				if err != nil {
					return err
				}
				shares[k] = s
			}
			total := new(big.Int).Add(dlpa.CombinePlain(shares), big.NewInt(int64(audit.SideValue(side, 1))*fine))
			q := new(big.Int).Div(total.Add(total, big.NewInt(fine/2)), big.NewInt(fine))
			out[0] = float64(q.Int64())
			return nil
		},
	}, nil
}

// PDPMVDSLaplaceNoise audits PDP-MVDS's Laplace noise drawn as shares
// (Session.NoiseShares): each contributor adds the difference of two
// Pólya NB(1/m', e^{−1/t}) integers on the release's grid, so that m' of
// them sum to exactly the discrete Laplace of the plan (infinite
// divisibility; m' = m − 1 insider-safe, m exact), calibrated to ε for a
// count of sensitivity 1. The coordinator sees the count plus every share; claimed
// ε-DP. The statistic is the release.
func PDPMVDSLaplaceNoise(mode pdpmvds.NoiseMode, eps float64) (audit.Mechanism, error) {
	noise, release, err := sharedNoise(mode, measurement.Laplace, eps*eps/2, false)
	if err != nil {
		return audit.Mechanism{}, err
	}
	return audit.Mechanism{
		Name:    fmt.Sprintf("pdp-mvds %s discrete Laplace noise by Pólya shares (ε=%g), coordinator's view", mode, eps),
		Claim:   noise.Spec().Guarantee,
		Pair:    "a count of 0 on D and 1 on D'",
		Dim:     1,
		Release: release,
	}, nil
}
