package rowsynth

import "github.com/dppub/dppub/method"

// demo is ppca-dp-mh's layout of owners of rows with synthesize-rows
// settings: the curator runs the engine over the owners' secure
// aggregates.
//
// The engine spends ρ-zCDP; an owner's (ε, δ) lifetime budget counts each
// session once, as the (ε, δ) its ρ converts to at the session's δ
// (package budgetstore). Every session then takes its whole δ, so the
// lifetime δ is three sessions' worth, as its ε: three sessions at ε = 1,
// δ = 1e-5 fit.
func demo(in method.DemoInput) (*method.Demo, error) {
	return &method.Demo{
		Extends:  "ppca-dp-mh",
		Settings: in.SchemaSettings(`"epsilon": 1, "delta": 1e-05`),
		Budget:   &method.DemoBudget{Epsilon: 3, Delta: 3e-5},
	}, nil
}
