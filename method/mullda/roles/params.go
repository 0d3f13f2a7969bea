package roles

import (
	"fmt"
	"math"
	"slices"

	"github.com/dppub/dppub/method/mullda/lda"
)

// Output says what the publisher publishes besides the direction(s).
type Output string

const (
	// Synthetic labelled projections drawn from the DP class-conditional
	// Gaussians: post-processing, covered by DP.
	Synthetic Output = "synthetic"
	// RealProjections X_m W of the owners' real rows, as the paper
	// publishes them: NOT covered by DP.
	RealProjections Output = "real-projections"
)

// Params are the public parameters every role of one session agrees on.
type Params struct {
	Session   string
	Owners    []string
	Publisher string
	// Dealer names the noise dealer; required exactly when the noise is
	// correlated and there are at least 2 owners.
	Dealer string
	// Plan configures the noise; Plan.Owners must equal len(Owners).
	Plan lda.PlanOptions
	// Ridge is added to the PSD-projected S_w before solving; 0 means
	// lda.NoiseRidge(p, σ of the aggregate's Σxxᵀ noise), which depends on
	// public quantities only.
	Ridge  float64
	Output Output // default Synthetic
}

// NeedsDealer reports whether the session uses a noise dealer.
func (p Params) NeedsDealer() bool {
	return p.Plan.Noise != lda.Independent && len(p.Owners) >= 2
}

// Validate checks the parameters.
func (p Params) Validate() error {
	_, err := p.check()
	return err
}

// Agreed are a session's parameters checked once, with the noise plan
// they calibrate: the session builds them once (Agree) and gives them to
// the owners, the dealer and the publisher (their options' Agreed) and to
// its report, instead of each of them checking and calibrating again.
type Agreed struct {
	params Params
	plan   *lda.Plan
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
func (a *Agreed) Plan() *lda.Plan { return a.plan }

// agree returns a role's parameters checked: agreed when the session
// gives them (and then no Params besides), else p checked here.
func agree(role string, p Params, agreed *Agreed) (*Agreed, error) {
	if agreed == nil {
		return Agree(p)
	}
	if p.Session != "" || p.Owners != nil {
		return nil, fmt.Errorf("mullda: %s: give the parameters or the agreed ones, not both", role)
	}
	return agreed, nil
}

// check validates the parameters and returns the plan they calibrate.
func (p Params) check() (*lda.Plan, error) {
	if len(p.Owners) < 1 {
		return nil, fmt.Errorf("mullda: no owners")
	}
	if p.Publisher == "" {
		return nil, fmt.Errorf("mullda: the publisher needs a name")
	}
	seen := map[string]bool{p.Publisher: true}
	for _, o := range p.Owners {
		if o == "" || seen[o] {
			return nil, fmt.Errorf("mullda: owner name %q is empty or repeated", o)
		}
		seen[o] = true
	}
	switch {
	case p.NeedsDealer() && (p.Dealer == "" || seen[p.Dealer]):
		return nil, fmt.Errorf("mullda: correlated noise over %d owners needs a dealer with its own name, got %q", len(p.Owners), p.Dealer)
	case !p.NeedsDealer() && p.Dealer != "":
		return nil, fmt.Errorf("mullda: dealer %q given but the session needs none", p.Dealer)
	case p.Plan.Owners != len(p.Owners):
		return nil, fmt.Errorf("mullda: the plan is for %d owners, the session has %d", p.Plan.Owners, len(p.Owners))
	case p.Ridge < 0 || math.IsNaN(p.Ridge) || math.IsInf(p.Ridge, 0):
		return nil, fmt.Errorf("mullda: ridge must be non-negative and finite, got %v", p.Ridge)
	case p.Output != "" && p.Output != Synthetic && p.Output != RealProjections:
		return nil, fmt.Errorf("mullda: unknown output %q (want synthetic or real-projections)", p.Output)
	}
	return lda.NewPlan(p.Plan)
}

func (p Params) ownerIndex(id string) int { return slices.Index(p.Owners, id) }

func (p Params) output() Output {
	if p.Output == "" {
		return Synthetic
	}
	return p.Output
}
