package roles

import (
	"fmt"
	"slices"

	"github.com/dppub/dppub/method/ppcadpmh/ppca"
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
// they calibrate: a session builds them once (Agree) and hands them to
// every role it builds (OwnerOptions.Agreed, NewAgreedCurator) and to its
// report, so that a run calibrates its plan once instead of at every role
// and every report line (issue 36 measured 3m+5 plans for m owners).
type Agreed struct {
	params Params
	plan   *ppca.Plan
}

// Agree checks p and calibrates its noise plan.
func Agree(p Params) (*Agreed, error) {
	plan, err := p.check()
	if err != nil {
		return nil, err
	}
	return &Agreed{params: p, plan: plan}, nil
}

// Params are the agreed parameters.
func (a *Agreed) Params() Params { return a.params }

// Plan is the noise plan the parameters calibrate; read-only, shared by
// every role of the session.
func (a *Agreed) Plan() *ppca.Plan { return a.plan }

// check validates the parameters and returns the plan they calibrate.
func (p Params) check() (*ppca.Plan, error) {
	if len(p.Owners) < 1 {
		return nil, fmt.Errorf("ppcadpmh: no owners")
	}
	seen := map[string]bool{p.Curator: true}
	if p.Curator == "" {
		return nil, fmt.Errorf("ppcadpmh: the curator needs a name")
	}
	for _, o := range p.Owners {
		if o == "" || seen[o] {
			return nil, fmt.Errorf("ppcadpmh: owner name %q is empty or repeated", o)
		}
		seen[o] = true
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
