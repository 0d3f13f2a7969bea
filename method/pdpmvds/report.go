package pdpmvds

import (
	"fmt"

	"github.com/dppub/dppub/crypto/paillier"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/measurement"
	proto "github.com/dppub/dppub/method/pdpmvds/roles"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// signStepThreat is what a malicious coordinator could learn through the
// sign step: it chooses every score request's reference counts (RefA,
// RefB) and budget ρ, and the parties check neither against the published
// one-way counts (only that the noise matches the ρ asked for).
const signStepThreat = "a MALICIOUS coordinator is not covered: it chooses the reference one-way counts and the ρ of every pair-score request, and the parties check only that the noise matches that ρ, so for a pair with one of its own attributes it can send score requests at a negligible ρ with reference counts of its choosing; the sign step (Algorithm 1, step 5) then tells it, for every cell, whether the true joint count lies above the threshold it chose, and about log₂ n such requests reveal the exact joint counts of its attributes with the partner's (the signs of a pair it is not part of go to that pair, and to S in the Paillier suite)"

// What a linked session's report says about the linkage (package
// protocol/psi states what the linkage reveals in full). The counts are
// stated as revealed, never as protected.
const (
	linkMethod   = "records linked first by private set intersection on the parties' ID columns (set sizes revealed exactly, not under DP)"
	linkRevealed = "the record linkage (multi-party Diffie–Hellman private set intersection on the ID columns, run before any release; no budget spent) revealed exactly, NOT under DP: to every party, every party's number of IDs, the size of the intersection (n = %d) and the size of every region of the parties' Venn diagram (e.g. how many IDs parties 1 and 2 hold that party 3 lacks), and, for each of its own IDs, which other parties hold it; to the coordinator, the size of the intersection (every party reports it; the coordinator sees no blinded set); to S, the size of the intersection (from the coordinator). Which people are in the intersection, and so in the data the synthetic table describes, is not protected"
	linkThreat   = "record linkage: semi-honest parties; decisional Diffie–Hellman in the prime-order subgroup of edwards25519 with SHA-512 as a random oracle; no party learns an ID it does not hold, and no k−1 parties together can test a guessed ID against the remaining party's set"
	linkWarning  = "record linkage revealed set sizes exactly, outside DP: every party learnt every party's number of IDs and every Venn-region size of their ID sets; the intersection size n = %d is public"
)

// binsAssumption says how the numeric attributes were discretised.
func binsAssumption(binRho float64) string {
	if binRho > 0 {
		return "numeric attributes are clamped to the bounds declared in the schema; each party cut the equal-width bins over them further with bins it chose from a noisy histogram of its own column on a public grid (marginal.ChooseCuts, charged to it), so a value many records share, such as a zero, keeps a bin of its own; bounds, the grid and categories are public and do not depend on the data"
	}
	return "numeric attributes are clamped to the bounds declared in the schema and cut into equal-width bins over them, with the minimum, the maximum and 0 (inside the bounds) each a bin of its own that decodes to that value; bounds, bins and categories are public and do not depend on the data"
}

// alignment is the assumption on how the parties' rows line up.
func alignment(st Settings) string {
	if st.Link {
		return "the parties linked their records by a private set intersection on their ID columns and kept the records every party holds, in one common order; records held by only some parties are left out of the synthesis"
	}
	return "the parties hold the same records and have aligned them beforehand (by ID or row order); which records are in the data set is not protected"
}

// Report builds the privacy report of a PDP-MVDS run from the engine's
// result and the parties' accountants (in party order); dealt says that
// the Paillier key was dealt in this process.
//
// binRho is what the parties spent together choosing their numeric
// attributes' bins (0 with equal-width bins): those releases count in a
// whole record's guarantee.
func Report(st Settings, s proto.Session, eng *marginal.Result, dom *domain.Domain, accts []*privacy.Accountant, src *randx.Source, dealt bool, binRho float64) (*privacy.Report, error) {
	ro := baseReportOptions(st, s, accts, src, binRho)
	if st.Link {
		ro.Method += "; " + linkMethod
		ro.NotCovered = append(ro.NotCovered, fmt.Sprintf(linkRevealed, st.Records))
		ro.ThreatModel = append(ro.ThreatModel, linkThreat)
		ro.Warnings = append(ro.Warnings, fmt.Sprintf(linkWarning, st.Records))
	}
	addSuiteTerms(&ro, s, dealt)
	addNoiseModeTerms(&ro, s)
	if len(accts) > 1 {
		whole, warning := WholeRecord(eng, binRho)
		ro.WholeRecord = &whole
		ro.Warnings = append(ro.Warnings, warning)
	}
	if s.KeyBits < paillier.MinBits && s.Suite == proto.SuitePaillier {
		ro.Warnings = append(ro.Warnings, fmt.Sprintf("INSECURE %d-bit Paillier keys: for tests only; the cryptographic protection is void", s.KeyBits))
	}
	if w := marginal.NoiseWarning(eng, dom, st.Records); w != "" {
		ro.Warnings = append(ro.Warnings, w)
	}
	r, err := privacy.NewReport(ro)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// baseReportOptions are the report's terms every PDP-MVDS run has: the
// method, the accounting, the assumptions, what is covered and not, the
// threat model, and the bin-choosing releases when binRho > 0.
func baseReportOptions(st Settings, s proto.Session, accts []*privacy.Accountant, src *randx.Source, binRho float64) privacy.ReportOptions {
	n := st.Records
	records := map[string]int{}
	for _, a := range accts {
		records[a.Party()] = n
	}
	ro := privacy.ReportOptions{
		Method:       fmt.Sprintf("pdp-mvds multi-party protocol (Algorithms 1-3 as in docs/errata.md#pdp-mvds-algorithms; %s suite, %s noise)", s.Suite, s.Noise),
		Calibration:  "sound",
		Unit:         dp.UnitPartyColumns,
		Randomness:   src.Describe(),
		Seeded:       !src.IsSecure(),
		Composition:  privacy.PersonalisedPerParty,
		Accountants:  accts,
		Records:      records,
		DeltaForZCDP: st.Delta,
		Assumptions: []string{
			fmt.Sprintf("the record count n = %d is public (replace-one neighbours share it) and is used without noise", n),
			alignment(st),
			binsAssumption(binRho),
			fmt.Sprintf("sensitivities under replace-one: a count vector moves by L1 %g / L2 %.4g; the IInDif pair score by %g", measurement.CountL1, measurement.CountL2, measurement.IInDifSensitivity),
			"Laplace releases are charged ε²/2 in zCDP (Bun & Steinke 2016); each party's spend is also stated as (ε, δ)-DP at δ = " + fmt.Sprintf("%.3g", st.Delta),
			"personalised budgets: each party's guarantee covers a change of one record's values in that party's columns; a release over columns of several parties satisfies the strictest of their budgets and is charged to each",
			"noise shares are drawn in floating point and rounded to fixed point before they are combined, like DLPA; not the hardened single-party samplers",
		},
		Covered: []string{
			"the noisy one-way marginals, the noisy pair scores and the noisy selected marginals, which the coordinating party (the one that runs the engine) receives",
			"everything derived from them: the pair selection (Algorithm 2), the combined attribute sets, the post-processed marginals and the synthetic rows (GUM and the uniform draw of numeric values inside their bins are post-processing)",
		},
		NotCovered: []string{
			fmt.Sprintf("the record count n = %d", n),
			"Algorithm 1, step 5 (the sign step) reveals to the two parties of every cross-party attribute pair (a, b), for every cell (i, j), the sign of N*_{a=i}·N*_{b=j} − n·N_{a=i,b=j}, i.e. whether the true joint count lies below or above the product of the published noisy one-way counts divided by n: exact, noiseless information about the other party's data",
		},
		ThreatModel: []string{
			"semi-honest parties and semi-honest third party S: everyone follows the protocol; S holds no data",
			"S colludes with no party, and no two parties collude",
			"the channels between roles are private and authenticated",
			"the coordinating party receives every noisy release (covered by DP) and runs the post-processing and GUM",
			signStepThreat,
		},
	}
	if binRho > 0 {
		ro.Covered = append(ro.Covered, fmt.Sprintf("the noisy histograms each party released of its own numeric attributes on a public grid (share %g of its budget, charged to it alone as \"bins of <attribute>\"), from which it chose their bins; the bins are public", st.BinShare))
	}
	return ro
}

// addSuiteTerms adds what the session's cryptographic suite reveals and
// assumes (Paillier: dealt says the key was dealt in this process; else
// the commodity suite).
func addSuiteTerms(ro *privacy.ReportOptions, s proto.Session, dealt bool) {
	switch s.Suite {
	case proto.SuitePaillier:
		ro.NotCovered = append(ro.NotCovered, fmt.Sprintf(
			"in the Paillier suite the decrypting party of each pair also learns t·r + r' per cell (t the value above in fixed point, r < 2^%d and r' < r random), i.e. |t| up to an unknown factor; S learns the signs", s.StatBits))
		ro.ThreatModel = append(ro.ThreatModel,
			"Paillier suite: Goethals et al.'s scalar products under each party's own key; aggregation under one shared key whose decryption exponent is split 2-of-2 between every pair of parties, so any two parties together could decrypt everything S handles",
			fmt.Sprintf("Paillier keys of %d bits; encryption uses the short-exponent randomness of Damgård, Jurik & Nielsen (an extra indistinguishability assumption); masks hide with statistical distance 2^-%d", s.KeyBits, s.StatBits))
		ro.Assumptions = append(ro.Assumptions,
			"Paillier suite, Laplace releases: the noise is DLPA (Rastogi & Nath 2010) on integer shares drawn 2^16 times finer than the grid; its law is not exactly discrete Laplace, and the excess privacy loss per release is estimated numerically at about 2·10⁻⁵ in ε, not proven (docs/privacy-design.md); the commodity suite's Pólya shares are exact")
		if dealt {
			ro.ThreatModel = append(ro.ThreatModel, "the shared key was dealt in this process (the dealer knew the factorisation and could decrypt everything); in a deployment run `dppub keygen` at a dealer that is neither S nor a party, and have it erase the key")
		} else {
			ro.ThreatModel = append(ro.ThreatModel, "the shared key came from a key ceremony (`dppub keygen`): its dealer knew the factorisation, must be neither S nor a party, and must have erased the key")
		}
	default:
		ro.NotCovered = append(ro.NotCovered,
			fmt.Sprintf("in the commodity suite S learns |t·r + r'| per cell of every cross-party pair (t as above in fixed point, r < 2^%d and r' < r drawn by the pair), i.e. |t| up to an unknown factor", 15))
		ro.ThreatModel = append(ro.ThreatModel,
			"commodity suite: Du & Atallah's commodity-server scalar products mod 2^64 (S deals correlated randomness and sees no data), the rest of Algorithm 1 on additive shares with S's help; no Paillier encryption")
	}
}

// addNoiseModeTerms adds what the noise mode protects: insider-safe
// shares are covered against each single party, the exact mode warns.
func addNoiseModeTerms(ro *privacy.ReportOptions, s proto.Session) {
	if s.Noise == proto.NoiseInsiderSafe {
		ro.Covered = append(ro.Covered, "every release spanning parties is protected at its charged budget against outsiders, S, and each single party: every party and S draw a noise share, and any K of the K+1 shares already make up the calibrated noise (the total noise variance is (K+1)/K times the calibrated one)")
	} else {
		ro.Warnings = append(ro.Warnings,
			"exact noise mode (the paper's): only the measured parties draw noise shares, which sum to exactly the calibrated noise; the charged guarantee holds against outsiders and S, but a party knows its own share, so against a fellow party a Gaussian release is only ρ·m/(m−1)-zCDP (m parties measured) and a DLPA Laplace release has no quantified guarantee")
	}
}

// WholeRecord is the guarantee of a change to a whole record across the
// parties' columns (every distinct release counted once) and the warning
// a report of personalised budgets carries about it.
func WholeRecord(eng *marginal.Result, binRho float64) (dp.Guarantee, string) {
	rho := binRho
	for _, p := range eng.Plan {
		rho += p.Release.Noise.Rho
	}
	whole := dp.Concentrated(rho)
	return whole, fmt.Sprintf("a person whose values change in every party's columns is protected only at the sum over distinct releases, %v (the report's whole_record guarantee), not at the largest party budget", whole)
}
