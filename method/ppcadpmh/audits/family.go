package audits

import (
	"cmp"
	"fmt"

	"github.com/dppub/dppub/audit"
	ppcaspec "github.com/dppub/dppub/method/ppcadpmh"
	"github.com/dppub/dppub/method/ppcadpmh/ppca"
)

// Audits are PPCA-DP-MH's audits, as audit/catalog lists them: one
// owner's noisy moments from the real owner role (both calibrations and
// noises), the curator's secure-aggregate sum, the real roles' messages
// from inside, the whole pipeline, and the hostile-coordinator attacks on
// its owners.
func Audits() audit.Family {
	var fam audit.Family
	fam.Add(audit.Method{Name: ppcaspec.Name, Summary: "one PPCA-DP-MH owner's noisy Σx and Σxxᵀ (p = 20, ε = 2; second moment by default)",
		Calibrations: []string{string(ppca.Sound), string(ppca.Paper)},
		FastRuns:     20_000, LongRuns: 100_000, RunsFactor: wholeMessageRuns,
		Build: func(o audit.MethodOptions) (audit.Mechanism, error) {
			return PPCADPMH(PPCAOptions{P: o.P, Epsilon: cmp.Or(o.Epsilon, 2), Delta: cmp.Or(o.Delta, 1e-5),
				Calibration: ppca.Calibration(o.Calibration), Mechanism: ppca.Mechanism(o.Mechanism), Part: PPCAPart(o.Part), D: o.D, DPrime: o.DPrime})
		}},
		audit.Case{Method: ppcaspec.Name, Options: audit.MethodOptions{Calibration: "sound"}, Expect: audit.Pass},
		audit.Case{Method: ppcaspec.Name, Options: audit.MethodOptions{Calibration: "paper"}, Expect: audit.Violation},
		audit.Case{Method: ppcaspec.Name, Options: audit.MethodOptions{Calibration: "sound", Mechanism: string(ppca.Gaussian)}, Expect: audit.Pass},
		audit.Case{Method: ppcaspec.Name, Options: audit.MethodOptions{Calibration: "sound", Part: string(PartAll)}, Expect: audit.Pass, Long: true},
		audit.Case{Method: ppcaspec.Name, Options: audit.MethodOptions{Calibration: "paper", Part: string(PartAll)}, Expect: audit.Violation, Long: true},
		audit.Case{Method: ppcaspec.Name, Options: audit.MethodOptions{Calibration: "sound", Part: string(PartSum)}, Expect: audit.Pass, Long: true},
		audit.Case{Method: ppcaspec.Name, Options: audit.MethodOptions{Calibration: "paper", Part: string(PartSum)}, Expect: audit.Pass, Long: true})
	addAggregate(&fam)
	fam.AddPipeline(ppcaspec.Name, fmt.Sprintf("the whole PPCA-DP-MH pipeline (%d owners of rows, ε = %g each, Laplace, local noise) on a canary pair in owner 1's rows; also the paper calibration and --paper-latent",
		audit.PipelineOwners, audit.PipelineEpsilon), PipelinePPCA, "paper", "paper-latent")
	addView(&fam)
	fam.AddHostile(ppcaspec.Name, ppcaHostileAttacks)
	return fam
}

// wholeMessageRuns: auditing the whole ppca-dp-mh message takes five
// times more runs than one part (see TestPPCAPaperViolatesSoundPasses for
// the arithmetic).
func wholeMessageRuns(o audit.MethodOptions) int {
	if o.Part == string(PartAll) {
		return 5
	}
	return 1
}
