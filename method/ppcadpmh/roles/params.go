package roles

import (
	"fmt"
	"slices"

	"github.com/dppub/dppub/method/ppcadpmh/ppca"
	"github.com/dppub/dppub/protocol"
)

// NoiseMode says where the noise of a release is added.
type NoiseMode string

const (
	// Local: every owner adds the full noise to its own sums (the paper).
	Local NoiseMode = "local"
	// SecureAggregate: owners add shares of one centralised noise draw and
	// zero-sum masks; the curator sees only the sum.
	SecureAggregate NoiseMode = "secure-aggregate"
)

// Params are the public parameters every role of one session agrees on.
type Params struct {
	Session     string
	Owners      []string
	Curator     string
	Plan        ppca.PlanOptions
	Noise       NoiseMode
	Fit         ppca.FitOptions
	PaperLatent bool // latent codes from real rows (NOT DP)
}

// Validate checks the parameters.
func (p Params) Validate() error {
	_, err := p.check()
	return err
}

// Agreed are a session's parameters checked once, with the noise plan
// they calibrate (Derived): the session agrees them once (Agree) and hands
// them to every role it builds (OwnerOptions.Agreed, NewAgreedCurator)
// and to its report.
type Agreed = protocol.Agreed[Params, *ppca.Plan]

// Agree checks p and calibrates its noise plan.
func Agree(p Params) (*Agreed, error) { return protocol.Agree(p, Params.check) }

// check validates the parameters and returns the plan they calibrate.
func (p Params) check() (*ppca.Plan, error) {
	if err := protocol.CheckRoster("curator", p.Curator, "owner", p.Owners); err != nil {
		return nil, fmt.Errorf("ppcadpmh: %w", err)
	}
	if p.Noise != Local && p.Noise != SecureAggregate {
		return nil, fmt.Errorf("ppcadpmh: unknown noise mode %q (want local or secure-aggregate)", p.Noise)
	}
	if p.Noise == SecureAggregate && p.Plan.Calibration == ppca.Paper {
		return nil, fmt.Errorf("ppcadpmh: the paper calibration is defined for local noise only")
	}
	plan, err := ppca.NewPlan(p.Plan)
	if err != nil {
		return nil, err
	}
	p0 := p.Plan.Bounds.P
	if p.Fit.K < 0 || p.Fit.K > p0 {
		return nil, fmt.Errorf("ppcadpmh: k = %d outside [1, %d]", p.Fit.K, p0)
	}
	if p.Fit.K == 0 && !(p.Fit.Contribution > 0 && p.Fit.Contribution <= 1) {
		return nil, fmt.Errorf("ppcadpmh: contribution rate %v outside (0, 1]", p.Fit.Contribution)
	}
	return plan, nil
}

func (p Params) ownerIndex(id string) int { return slices.Index(p.Owners, id) }
