// Package privbayes defines PrivBayes (Zhang et al., SIGMOD 2014 / TODS
// 2017) as a central method, one owner publishing a synthetic table drawn
// from a DP Bayesian network of its records, and the settings and the
// privacy report that PrivBayes and DP-SUBN3 (owners of rows taking
// turns) share.
package privbayes

import (
	"cmp"
	"context"
	"fmt"
	"math"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/method"
	privbayes "github.com/dppub/dppub/method/privbayes/bayesnet"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// Name is PrivBayes' name.
const Name = "privbayes"

// Spec is PrivBayes' definition.
var Spec = method.CentralSpec(Name,
	"synthetic data from a differentially private Bayesian network (PrivBayes, one central owner)", run)

// Settings are the parameters of a PrivBayes network.
type Settings struct {
	// Epsilon is each owner's budget (pure DP).
	Epsilon float64 `json:"epsilon" help:"privacy budget ε of each owner"`
	// Beta is the share of ε spent on the structure (default 0.3).
	Beta float64 `json:"beta,omitempty" help:"share of ε spent on learning the network (PrivBayes' β)"`
	// Theta is the usefulness threshold of the adaptive degree (default 4).
	Theta float64 `json:"theta,omitempty" help:"usefulness threshold θ that bounds the parents' domain"`
	// K > 0 fixes the network's degree instead of choosing parent sets by
	// θ-usefulness.
	K     int             `json:"k,omitempty" sign:"nonneg" help:"fix the network's degree k (0: parent sets chosen by θ-usefulness)"`
	Score privbayes.Score `json:"score,omitempty" help:"r (L1 distance from independence) | mi (mutual information)"`
	// Bins is the number of equal-width bins of a numeric attribute over
	// its declared bounds (default 8).
	Bins int `json:"bins,omitempty" help:"equal-width bins per numeric attribute over its declared bounds"`
	// MaxCells caps the cells of any family (default 1<<20).
	MaxCells int `json:"max_cells,omitempty" help:"largest number of cells of any family (attribute and parents)"`
}

// DefaultBins is the default number of bins of a numeric attribute.
const DefaultBins = 8

// SetDefaults fills the zero fields.
func (s *Settings) SetDefaults() {
	o := s.Network()
	s.Beta, s.Theta, s.Score, s.MaxCells = o.Beta, o.Theta, o.Score, o.MaxCells
	s.Bins = cmp.Or(s.Bins, DefaultBins)
}

// Validate checks the settings after SetDefaults, naming each field by
// its key.
func (s *Settings) Validate() error {
	switch {
	case !(s.Epsilon > 0) || math.IsInf(s.Epsilon, 0):
		return method.Fieldf("epsilon", "must be positive and finite, got %v", s.Epsilon)
	case !(s.Beta > 0 && s.Beta < 1):
		return method.Fieldf("beta", "must be in (0, 1), got %v", s.Beta)
	case !(s.Theta > 0) || math.IsInf(s.Theta, 0):
		return method.Fieldf("theta", "must be positive and finite, got %v", s.Theta)
	case s.K < 0:
		return method.Fieldf("k", "must not be negative, got %d", s.K)
	case s.Bins < 2:
		return method.Fieldf("bins", "must be at least 2, got %d", s.Bins)
	case s.MaxCells < 1:
		return method.Fieldf("max_cells", "must be positive, got %d", s.MaxCells)
	case s.Score != privbayes.R && s.Score != privbayes.MI:
		return method.Fieldf("score", "must be r or mi, got %q", s.Score)
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

// Result is the in-process detail of a run (Outcome.Detail): the DP model
// and the discretisation the rows were decoded with.
type Result struct {
	Model       *privbayes.Model
	Discretizer *privbayes.Discretizer
}

// run publishes a synthetic table drawn from a PrivBayes model of the
// owner's table: as many rows as it holds, un-binned with the owner's
// randomness after the model's draws.
func run(ctx context.Context, s *Settings, l method.Local) (*method.Outcome, error) {
	if l.Table == nil || l.Table.Len() < 2 {
		return nil, fmt.Errorf("privbayes needs a table of at least 2 rows")
	}
	z, err := privbayes.NewDiscretizer(l.Table.Schema, privbayes.DiscretizeOptions{Bins: s.Bins})
	if err != nil {
		return nil, err
	}
	d, clamped, err := z.Discretize(l.Table)
	if err != nil {
		return nil, err
	}
	owner := cmp.Or(l.Name, "owner")
	l.Note(Name, l.Table.Len(), clamped, "attributes", len(z.Cards()))
	acct, err := privacy.NewAccountant(privacy.AccountantOptions{Party: owner, Budget: dp.Pure(s.Epsilon)})
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	model, err := privbayes.Run(d, s.Network(), acct, l.Source.Child())
	if err != nil {
		return nil, err
	}
	synth := z.Undiscretize(model.Sample(l.Table.Len(), l.Source), l.Source)
	report, err := Report(ReportOptions{Method: Name, Settings: *s, Accountants: []*privacy.Accountant{acct},
		Counts: map[string]int{owner: l.Table.Len()}, Composition: privacy.Single, Source: l.Source})
	if err != nil {
		return nil, err
	}
	summary := fmt.Sprintf("Bayesian network of %d attributes from one owner", len(model.Net))
	return &method.Outcome{Table: synth, Report: report, Summary: summary,
		Detail: &Result{Model: model, Discretizer: z}}, nil
}
