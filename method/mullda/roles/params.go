package roles

import (
	"fmt"
	"math"
	"slices"

	"github.com/dppub/dppub/method/mullda/lda"
	"github.com/dppub/dppub/protocol"
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
// they calibrate (Derived): the session agrees them once (Agree) and gives
// them to the owners, the dealer and the publisher (their options'
// Agreed) and to its report.
type Agreed = protocol.Agreed[Params, *lda.Plan]

// Agree checks p and calibrates its noise plan.
func Agree(p Params) (*Agreed, error) { return protocol.Agree(p, Params.check) }

// check validates the parameters and returns the plan they calibrate.
func (p Params) check() (*lda.Plan, error) {
	if err := protocol.CheckRoster("publisher", p.Publisher, "owner", p.Owners); err != nil {
		return nil, fmt.Errorf("mullda: %w", err)
	}
	switch {
	case p.NeedsDealer() && (p.Dealer == "" || p.Dealer == p.Publisher || slices.Contains(p.Owners, p.Dealer)):
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
