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
	fam.Add(Method{Name: "dp-erm", Summary: "DP-ERM (Chaudhuri et al. 2011) as learn.TrainDPLinear runs it (ε = 1, λ = 1, n = 10, one weight); --mechanism objective (logistic, default), objective-huber, output (huber hinge, tight) or output-logistic",
		Calibrations: []string{"sound"}, FastRuns: 20_000, LongRuns: 300_000,
		Build: func(o MethodOptions) (Mechanism, error) { return DPERM(o.Mechanism, cmp.Or(o.Epsilon, 1)) }},
		Case{Method: "dp-erm", Expect: Pass},
		Case{Method: "dp-erm", Options: MethodOptions{Mechanism: "output"}, Expect: Pass},
		Case{Method: "dp-erm", Options: MethodOptions{Mechanism: "objective-huber"}, Expect: Pass},
		Case{Method: "dp-erm", Options: MethodOptions{Mechanism: "output-logistic"}, Expect: Pass})
	fam.AddSound("marginal-one-way", "PDP-MVDS/marginal engine: a noisy one-way marginal, Laplace at ε = √(2ρ) (ρ = 0.5)",
		20_000, 500_000, 1, MarginalOneWay)
	fam.AddFixed("marginal-gaussian", "PDP-MVDS/marginal engine: a noisy 2-way marginal, Gaussian ρ-zCDP (σ = 1), stated as its exact (ε = 1, δ) profile",
		20_000, 500_000, MarginalGaussian)
	fam.AddFixed("iindif", "PDP-MVDS Algorithm 1's IInDif pair score (Δ = 2), Gaussian (σ = 2), stated as its exact (ε = 1, δ) profile",
		20_000, 500_000, IInDifScore)
	fam.Add(Method{Name: "indif", Summary: "PrivSyn's InDif pair score with Laplace (ε = 2): sound Δ = 6, or privsyn's Δ = 4",
		Calibrations: []string{"sound", "privsyn"}, FastRuns: 200_000, LongRuns: 2_000_000,
		Build: func(o MethodOptions) (Mechanism, error) { return InDifScore(o.Calibration, cmp.Or(o.Epsilon, 2)) }},
		Case{Method: "indif", Options: MethodOptions{Calibration: "sound"}, Expect: Pass},
		Case{Method: "indif", Options: MethodOptions{Calibration: "privsyn"}, Expect: Violation})
	addRemoveAudits(&fam)
	return fam
}
