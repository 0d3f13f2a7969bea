package audit

import "cmp"

// Core is the audits of code that no method owns: package dp's Laplace,
// Gaussian and selection mechanisms, learn's DP-ERM, and the releases of
// the marginal engine (engine/marginal) that synthesize, synthesize-rows
// and pdp-mvds share. They stay with the harness, whose own tests run
// them; each method's audits live in method/<name>/audits.
func Core() Family {
	var fam Family
	fam.Add(Method{Name: "laplace", Summary: "dp.Laplace on a scalar query (ε = 1)", Calibrations: []string{"sound"},
		FastRuns: 20_000, LongRuns: 1_000_000, Build: func(o MethodOptions) (Mechanism, error) {
			return Laplace(ScalarOptions{Epsilon: cmp.Or(o.Epsilon, 1)})
		}},
		Case{Method: "laplace", Expect: Pass})
	fam.Add(Method{Name: "gaussian", Summary: "dp.Gaussian, analytic calibration, on a scalar query (ε = 1, δ = 1e-5)", Calibrations: []string{"sound"},
		FastRuns: 20_000, LongRuns: 1_000_000, Build: func(o MethodOptions) (Mechanism, error) {
			return Gaussian(ScalarOptions{Epsilon: cmp.Or(o.Epsilon, 1), Delta: cmp.Or(o.Delta, 1e-5)})
		}},
		Case{Method: "gaussian", Expect: Pass})
	fam.Add(Method{Name: "exponential", Summary: "private selection over 50 candidates (ε = 1): dp.PermuteAndFlip (ε-DP; default) or, with mechanism exponential, dp.Exponential (ε²/8-zCDP)", Calibrations: []string{"sound"},
		FastRuns: 20_000, LongRuns: 500_000, Build: func(o MethodOptions) (Mechanism, error) {
			return Exponential(ExponentialOptions{Epsilon: cmp.Or(o.Epsilon, 1), Mechanism: o.Mechanism})
		}},
		Case{Method: "exponential", Expect: Pass},
		Case{Method: "exponential", Options: MethodOptions{Mechanism: "exponential"}, Expect: Pass})
	addERM(&fam)
	addMarginal(&fam)
	return fam
}
