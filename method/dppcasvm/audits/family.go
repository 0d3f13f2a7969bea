package audits

import (
	"cmp"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/method/dppcasvm/dppca"
)

// Audits are DPPCA-SVM's audits, as audit/catalog lists them: the noisy
// second-moment matrix of its three DPPCA variants. No audit carries the
// four registered methods' names, so the family names its evidence:
// DPPCA-SVM, AG-SVM and MOD-SuLQ-SVM release the same noisy second moment
// (dppca, whose --mechanism picks the method) and, when sound, train
// their SVM by DP-ERM (dp-erm, a core audit); PCA-DPSVM's only DP release
// is its output-perturbed SVM (dp-erm --mechanism output): its exact
// components are not DP, as its report says.
func Audits() audit.Family {
	var fam audit.Family
	fam.Add(audit.Method{Name: "dppca", Summary: "the DPPCA noisy second-moment matrix A = XᵀX/n (d = 10, ε = 1; δ = 1e-5 for ag-svm, mod-sulq-svm)",
		Calibrations: []string{string(dppca.Sound), string(dppca.Paper)},
		FastRuns:     20_000, LongRuns: 500_000, Build: func(o audit.MethodOptions) (audit.Mechanism, error) {
			return DPPCA(DPPCAOptions{Method: dppca.Method(o.Mechanism), Calibration: dppca.Calibration(o.Calibration),
				D: o.P, Epsilon: cmp.Or(o.Epsilon, 1), Delta: cmp.Or(o.Delta, 1e-5)})
		}},
		audit.Case{Method: "dppca", Options: audit.MethodOptions{Calibration: "sound"}, Expect: audit.Pass},
		audit.Case{Method: "dppca", Options: audit.MethodOptions{Calibration: "paper"}, Expect: audit.Pass},
		audit.Case{Method: "dppca", Options: audit.MethodOptions{Calibration: "sound", Mechanism: string(dppca.AGSVM)}, Expect: audit.Pass},
		audit.Case{Method: "dppca", Options: audit.MethodOptions{Calibration: "sound", Mechanism: string(dppca.ModSuLQSVM)}, Expect: audit.Pass})
	fam.Evidence = map[string][]string{
		string(dppca.DPPCASVM):   {"dppca", "dp-erm"},
		string(dppca.AGSVM):      {"dppca", "dp-erm"},
		string(dppca.ModSuLQSVM): {"dppca", "dp-erm"},
		string(dppca.PCADPSVM):   {"dp-erm"},
	}
	return fam
}
