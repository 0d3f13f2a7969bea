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
	if len(p.Owners) < 1 {
		return fmt.Errorf("ppcadpmh: no owners")
	}
	seen := map[string]bool{p.Curator: true}
	if p.Curator == "" {
		return fmt.Errorf("ppcadpmh: the curator needs a name")
	}
	for _, o := range p.Owners {
		if o == "" || seen[o] {
			return fmt.Errorf("ppcadpmh: owner name %q is empty or repeated", o)
		}
		seen[o] = true
	}
	if p.Noise != Local && p.Noise != SecureAggregate {
		return fmt.Errorf("ppcadpmh: unknown noise mode %q (want local or secure-aggregate)", p.Noise)
	}
	if p.Noise == SecureAggregate && p.Plan.Calibration == ppca.Paper {
		return fmt.Errorf("ppcadpmh: the paper calibration is defined for local noise only")
	}
	if _, err := ppca.NewPlan(p.Plan); err != nil {
		return err
	}
	p0 := p.Plan.Bounds.P
	if p.Fit.K < 0 || p.Fit.K > p0 {
		return fmt.Errorf("ppcadpmh: k = %d outside [1, %d]", p.Fit.K, p0)
	}
	if p.Fit.K == 0 && !(p.Fit.Contribution > 0 && p.Fit.Contribution <= 1) {
		return fmt.Errorf("ppcadpmh: contribution rate %v outside (0, 1]", p.Fit.Contribution)
	}
	return nil
}

func (p Params) ownerIndex(id string) int { return slices.Index(p.Owners, id) }
