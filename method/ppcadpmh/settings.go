package ppcadpmh

import (
	"cmp"
	"fmt"
	"math"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/method/ppcadpmh/ppca"
	proto "github.com/dppub/dppub/method/ppcadpmh/roles"
)

// Name is the method's name.
const Name = "ppca-dp-mh"

// RoleCurator is the semi-trusted curator that coordinates and publishes.
const RoleCurator = "curator"

// Settings are PPCA-DP-MH's settings: the flags of `dppub publish
// ppca-dp-mh` and the keys of its networked settings.
type Settings struct {
	// Epsilon (and Delta for the Gaussian mechanism) is each owner's
	// budget.
	Epsilon float64 `json:"epsilon" help:"privacy budget ε of each owner"`
	// Delta is δ of the Gaussian mechanism; 0 in one process means 1/n²
	// of the smallest owner.
	Delta       float64          `json:"delta,omitempty" help:"δ for the Gaussian mechanism (default 1/n² of all the owners' n records, at most 1e-5)"`
	Calibration ppca.Calibration `json:"calibration,omitempty" help:"sound | paper"`
	// Mechanism is laplace or gaussian; empty means gaussian when a δ is
	// given (the analytic Gaussian on the L2 sensitivity has about 10×
	// less error than Laplace on the L1), else laplace.
	Mechanism    ppca.Mechanism  `json:"mechanism,omitempty" help:"laplace | gaussian (default: gaussian when --delta is given, about 10× less error for a δ; else laplace)"`
	Noise        proto.NoiseMode `json:"noise,omitempty" help:"local | secure-aggregate"`
	Contribution float64         `json:"contribution,omitempty" help:"keep the fewest components whose cumulative contribution reaches this rate"`
	K            int             `json:"k,omitempty" help:"keep exactly k components (overrides --contribution)"`
	// PaperLatent takes latent codes from real rows as the paper does
	// (the rows are then NOT covered by DP).
	PaperLatent bool `json:"paper_latent,omitempty" help:"take latent codes from real rows as the paper does (the rows are then NOT covered by DP)"`
	// GenericBounds calibrates to rows in [0,1]^p, ignoring the one-hot
	// structure of the encoding (the paper's setting; more noise).
	GenericBounds bool `json:"generic_bounds,omitempty" help:"calibrate to rows in [0,1]^p, ignoring the one-hot structure (more noise)"`
}

// SetDefaults fills the zero fields: the sound calibration, local noise,
// components up to a contribution rate of 0.85.
func (s *Settings) SetDefaults() {
	s.Calibration = cmp.Or(s.Calibration, ppca.Sound)
	s.Noise = cmp.Or(s.Noise, proto.Local)
	if s.K == 0 && s.Contribution == 0 {
		s.Contribution = 0.85
	}
}

// mechanism resolves the automatic choice.
func (s *Settings) mechanism() ppca.Mechanism {
	if s.Mechanism != "" {
		return s.Mechanism
	}
	if s.Delta > 0 {
		return ppca.Gaussian
	}
	return ppca.Laplace
}

// DefaultRecords sets δ = 1/n² of the owners' n records together (at
// most dp.MaxDefaultDelta) when the Gaussian mechanism is asked for
// without a δ.
func (s *Settings) DefaultRecords(records int) {
	if s.Mechanism == ppca.Gaussian && s.Delta == 0 {
		s.Delta = dp.DefaultDeltaCapped(records)
	}
}

// Validate checks the settings.
func (s *Settings) Validate() error {
	if _, err := dp.ParseCalibration(string(s.Calibration), ppca.Sound, ppca.Paper); err != nil {
		return err
	}
	if s.Mechanism != "" {
		if _, err := dp.ParseMechanism(string(s.Mechanism)); err != nil {
			return err
		}
	}
	switch {
	case !(s.Epsilon > 0) || math.IsInf(s.Epsilon, 0):
		return fmt.Errorf("epsilon must be positive and finite, got %v", s.Epsilon)
	case !(s.Delta >= 0 && s.Delta < 1):
		return fmt.Errorf("delta must be in [0, 1), got %v", s.Delta)
	case s.mechanism() == ppca.Gaussian && s.Delta == 0:
		return fmt.Errorf("the gaussian mechanism needs delta > 0 (over the network it is not derived from the owners' sizes)")
	case s.mechanism() == ppca.Laplace && s.Delta > 0:
		// Budget() is then pure ε-DP: a δ given here would be silently
		// dropped while the user believes it shapes the release.
		return method.Fieldf("delta", "%v has no meaning with the laplace mechanism, which is pure ε-DP (δ = 0): leave it out, or choose the gaussian mechanism", s.Delta)
	case s.Noise != proto.Local && s.Noise != proto.SecureAggregate:
		return fmt.Errorf("noise must be local or secure-aggregate, got %q", s.Noise)
	case s.K < 0:
		return fmt.Errorf("k must not be negative, got %d", s.K)
	case s.K == 0 && !(s.Contribution > 0 && s.Contribution <= 1):
		return fmt.Errorf("contribution must be in (0, 1], got %v", s.Contribution)
	}
	return nil
}

// Budget is each owner's budget for a session.
func (s *Settings) Budget() dp.Guarantee {
	if s.mechanism() == ppca.Gaussian {
		return dp.Approx(s.Epsilon, s.Delta)
	}
	return dp.Pure(s.Epsilon)
}

// unsound reports whether the settings give a weaker guarantee than
// charged or publish rows not covered by DP.
func (s *Settings) unsound() bool {
	return s.Calibration == ppca.Paper || s.PaperLatent
}
