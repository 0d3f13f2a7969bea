package audits

import (
	"cmp"

	"github.com/dppub/dppub/audit"
	mulldaspec "github.com/dppub/dppub/method/mullda"
	"github.com/dppub/dppub/method/mullda/lda"
)

// Audits are Mul-LDA-DP's audits, as audit/catalog lists them: its
// correlated zero-sum noise against the publisher's whole view, the
// publisher's view of the real roles, the dealer's shares with colluding
// owners, and the hostile-coordinator attacks on its owners.
func Audits() audit.Family {
	var fam audit.Family
	fam.Add(audit.Method{Name: "zero-sum", Summary: "Mul-LDA-DP correlated zero-sum noise, publisher's view (M = 10, ε = 2, δ = 1e-3)",
		Calibrations: []string{"sound", "paper"},
		FastRuns:     200_000, LongRuns: 2_000_000, Build: func(o audit.MethodOptions) (audit.Mechanism, error) {
			return ZeroSum(ZeroSumOptions{Owners: o.Owners, Epsilon: cmp.Or(o.Epsilon, 2), Delta: cmp.Or(o.Delta, 1e-3),
				Calibration: o.Calibration, View: o.View})
		}},
		audit.Case{Method: "zero-sum", Options: audit.MethodOptions{Calibration: "sound"}, Expect: audit.Pass},
		audit.Case{Method: "zero-sum", Options: audit.MethodOptions{Calibration: "paper"}, Expect: audit.Violation},
		audit.Case{Method: "zero-sum", Options: audit.MethodOptions{Calibration: "paper", View: ViewMessage}, Expect: audit.Pass})
	fam.Add(audit.Method{Name: mulldaspec.NameMulti, Summary: "the Mul-LDA-DP publisher's whole view, real protocol roles (M = 3, p = 2, ε = 2, δ = 1e-3)",
		Calibrations: []string{string(lda.Sound), string(lda.Paper)},
		FastRuns:     5_000, LongRuns: 100_000, Build: func(o audit.MethodOptions) (audit.Mechanism, error) {
			return MulLDA(MulLDAOptions{Owners: o.Owners, Epsilon: cmp.Or(o.Epsilon, 2), Delta: cmp.Or(o.Delta, 1e-3),
				Calibration: lda.Calibration(o.Calibration), Noise: lda.NoiseMode(o.Noise)})
		}},
		audit.Case{Method: mulldaspec.NameMulti, Options: audit.MethodOptions{Calibration: "sound"}, Expect: audit.Pass},
		audit.Case{Method: mulldaspec.NameMulti, Options: audit.MethodOptions{Calibration: "paper"}, Expect: audit.Pass},
		audit.Case{Method: mulldaspec.NameMulti, Options: audit.MethodOptions{Calibration: "sound", Owners: 1}, Expect: audit.Pass})
	addView(&fam)
	fam.AddHostile(mulldaspec.NameMulti, mulLDAHostileAttacks)
	return fam
}
