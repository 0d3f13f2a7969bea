// Package privbayes defines the settings and the privacy report that
// PrivBayes (one owner) and DP-SUBN3 (owners of rows taking turns) share.
package privbayes

import (
	"fmt"

	"github.com/dppub/dppub/algo/privbayes"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// Name is PrivBayes' name.
const Name = "privbayes"

// Settings are the parameters of a PrivBayes network.
type Settings struct {
	// Epsilon is each owner's budget (pure DP).
	Epsilon float64 `json:"epsilon"`
	// Beta is the share of ε spent on the structure (default 0.3).
	Beta float64 `json:"beta,omitempty"`
	// Theta is the usefulness threshold of the adaptive degree (default 4).
	Theta float64 `json:"theta,omitempty"`
	// K > 0 fixes the network's degree instead of choosing parent sets by
	// θ-usefulness.
	K     int             `json:"k,omitempty"`
	Score privbayes.Score `json:"score,omitempty"`
	// Bins is the number of equal-width bins of a numeric attribute over
	// its declared bounds (default 8).
	Bins int `json:"bins,omitempty"`
	// MaxCells caps the cells of any family (default 1<<20).
	MaxCells int `json:"max_cells,omitempty"`
}

// SetDefaults fills the zero fields.
func (s *Settings) SetDefaults() {
	o := s.Network()
	s.Beta, s.Theta, s.Score, s.MaxCells = o.Beta, o.Theta, o.Score, o.MaxCells
	if s.Bins == 0 {
		s.Bins = 8
	}
}

// Validate checks the settings.
func (s *Settings) Validate() error {
	if s.Bins < 0 || s.K < 0 {
		return fmt.Errorf("bins and k must not be negative, got %d and %d", s.Bins, s.K)
	}
	return s.Network().Validate()
}

// Network is the algorithm's options, defaults filled, as every party of
// a DP-SUBN3 session must agree on them.
func (s Settings) Network() privbayes.Options {
	return privbayes.Options{Epsilon: s.Epsilon, Beta: s.Beta, Theta: s.Theta, K: s.K, Score: s.Score, MaxCells: s.MaxCells}.WithDefaults()
}

// ReportOptions are what a Bayesian-network publication's report states.
type ReportOptions struct {
	Method      string
	Settings    Settings
	Accountants []*privacy.Accountant
	Counts      map[string]int
	Composition privacy.Composition
	Source      *randx.Source
	// Warnings and ThreatModel are the method's own sentences.
	Warnings, ThreatModel, Assumptions []string
}

// Report builds the privacy report of a PrivBayes-style publication.
func Report(o ReportOptions) (*privacy.Report, error) {
	pb := o.Settings.Network()
	degree := "parent sets chosen by θ-usefulness (maximal parent sets)"
	if pb.K > 0 {
		degree = fmt.Sprintf("degree k = %d", pb.K)
	}
	ro := privacy.ReportOptions{
		Method: o.Method, Calibration: "sound (PrivBayes' mechanisms with proven sensitivities)",
		Randomness: o.Source.Describe(), Composition: o.Composition, Accountants: o.Accountants, Records: o.Counts, Seeded: !o.Source.IsSecure(),
		Assumptions: append([]string{
			"each owner's record count is public (as in PrivBayes and DP-SUBN) and is released without noise",
			"numeric attributes are cut into equal-width bins over the bounds declared in the schema; values outside are clamped; the bounds and the bins are public",
			fmt.Sprintf("budget split β = %g: ε1 = βε chooses the network (%s, score %s), ε2 = (1−β)ε releases its noisy marginals", pb.Beta, degree, pb.Score),
		}, o.Assumptions...),
		Covered: []string{
			"the Bayesian network's structure (permute-and-flip)",
			"its conditional distributions (Laplace-noised count marginals, clipped and normalised)",
			"the synthetic rows: sampled from the DP model, so post-processing",
		},
		NotCovered: []string{"the owners' record counts (the synthetic table has as many rows as the owners hold together)"},
		Warnings: append([]string{
			"PrivBayes' generalisation hierarchies and its F score are not implemented: large domains are handled only by equal-width binning and by giving such attributes fewer parents",
		}, o.Warnings...),
		ThreatModel: o.ThreatModel,
	}
	return privacy.NewReport(ro)
}
