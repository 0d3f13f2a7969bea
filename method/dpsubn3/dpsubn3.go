// Package dpsubn3 defines DP-SUBN3, our reconstruction of DP-SUBN (Cheng
// et al., TKDE 2020), as a method: owners of rows update a PrivBayes
// network in turn, each with the previous owners' model as prior, and a
// curator samples the synthetic rows from the last model.
package dpsubn3

import (
	"fmt"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/method"
	proto "github.com/dppub/dppub/method/dpsubn3/roles"
	algo "github.com/dppub/dppub/method/dpsubn3/subn3"
	bn "github.com/dppub/dppub/method/privbayes"
	privbayes "github.com/dppub/dppub/method/privbayes/bayesnet"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// Name is the method's name.
const Name = "dp-subn3"

// RoleCurator forwards the owners' models and samples the rows.
const RoleCurator = "curator"

// Settings are DP-SUBN3's settings: a PrivBayes network's, and the search
// frontier. The owners take their turns in member order.
type Settings struct {
	bn.Settings
	// Frontier is the number of prior-correlated attributes allowed as
	// each attribute's parents (0: all).
	Frontier int `json:"frontier,omitempty" sign:"nonneg" help:"allow each attribute only the N attributes most correlated with it in the prior as parents (0: all)"`
}

// Validate checks the settings, naming each field by its key (a command
// line reports a mistake under its flag, as a usage error).
func (s *Settings) Validate() error {
	if s.Frontier < 0 {
		return method.Fieldf("frontier", "must not be negative, got %d", s.Frontier)
	}
	return s.Settings.Validate()
}

// Spec is DP-SUBN3's definition.
var Spec = method.RowsSpec(Name,
	"synthetic data from owners of rows updating a PrivBayes network in turn (our reconstruction of DP-SUBN)",
	RoleCurator, open).WithDemo(demo)

// session is what the curator sends every owner.
type session struct {
	method.RowsOf[Settings]
	derived method.Derived[derived]
}

// derived is what every side derives from the session, once.
type derived struct {
	params proto.Params
	z      *privbayes.Discretizer
}

func open(r method.RowsOf[Settings]) (*session, error) {
	s := &session{RowsOf: r}
	_, _, err := s.params()
	return s, err
}

// params are the protocol parameters, checked once, and the session's
// discretizer.
func (s *session) params() (proto.Params, *privbayes.Discretizer, error) {
	d, err := s.derived.Get(s.derive)
	return d.params, d.z, err
}

func (s *session) derive() (derived, error) {
	if err := s.Settings.Validate(); err != nil {
		return derived{}, err
	}
	z, err := privbayes.NewDiscretizer(s.Schema, privbayes.DiscretizeOptions{Bins: s.Settings.Bins})
	if err != nil {
		return derived{}, err
	}
	p := proto.Params{Session: s.ID, Parties: s.Owners, Curator: s.Coordinator, Cards: z.Cards(),
		Options: algo.Options{PrivBayes: s.Settings.Network(), Frontier: s.Settings.Frontier}}
	return derived{params: p, z: z}, p.Validate()
}

func (s *session) Members() []method.Member { return s.OwnerMembers(dp.Pure(s.Settings.Epsilon)) }

func (s *session) Unsound() bool { return false }

func (s *session) Join(l method.Local) (protocol.Role, error) {
	params, z, err := s.params()
	if err != nil {
		return nil, err
	}
	t, err := l.SharedTable(s.Schema)
	if err != nil {
		return nil, err
	}
	d, clamped, err := z.Discretize(t)
	if err != nil {
		return nil, err
	}
	l.Note(Name, t.Len(), clamped, "attributes", len(params.Cards))
	return proto.NewParty(proto.PartyOptions{ID: l.Name, Params: params, Data: d, Accountant: l.Accountant, Source: l.Source})
}

// Result is the in-process detail of a run (Outcome.Detail).
type Result struct {
	Model       *privbayes.Model
	Discretizer *privbayes.Discretizer
}

func (s *session) Coordinate(src *randx.Source, _ any) (*method.Coordination, error) {
	params, z, err := s.params()
	if err != nil {
		return nil, err
	}
	curator, err := proto.NewCurator(params, src.Child())
	if err != nil {
		return nil, err
	}
	publish := func(res *proto.Result, accts []*privacy.Accountant) (*method.Outcome, error) {
		report, err := Report(s.Settings, src, accts, res.Counts)
		if err != nil {
			return nil, err
		}
		// The rows are un-binned with the coordinator's own randomness,
		// after the members' and the curator's draws.
		syn := z.Undiscretize(res.Rows, src)
		summary := fmt.Sprintf("Bayesian network of %d attributes from %d owners' turns", len(res.Model.Net), len(s.Owners))
		return &method.Outcome{Table: syn, Report: report, Summary: summary,
			Detail: &Result{Model: res.Model, Discretizer: z}}, nil
	}
	return method.Coordinated(curator, publish), nil
}

// Report is the privacy report of a DP-SUBN3 publication, from the
// owners' accountants (in turn order) and record counts.
func Report(st Settings, src *randx.Source, accts []*privacy.Accountant, counts map[string]int) (*privacy.Report, error) {
	o := bn.ReportOptions{Method: Name, Settings: st.Settings, Accountants: accts, Counts: counts,
		Composition: privacy.ParallelOverOwners, Source: src,
		Warnings:    []string{"DP-SUBN3 is OUR RECONSTRUCTION from the published abstracts of Cheng et al. (TKDE 2020, ICDE 2016): sequential update of a PrivBayes network, each owner using the previous owners' model as prior (its synthetic sample joins the owner's data when scoring and counting); the paper's NOCD pair-correlation release and its search-frontier construction were not available; our optional frontier (Frontier > 0) is computed from the prior alone"},
		ThreatModel: []string{"the owners take turns in a public order; each sends the semi-trusted curator only its DP model and its record count; the curator forwards the model to the next owner and samples the synthetic rows, so no coalition sees more than DP outputs and counts"},
	}
	if st.Frontier > 0 {
		o.Assumptions = append(o.Assumptions, fmt.Sprintf(
			"search frontier: each attribute may take parents only among the %d attributes most correlated with it in the prior model (computed from the prior, no budget)", st.Frontier))
	}
	return bn.Report(o)
}
