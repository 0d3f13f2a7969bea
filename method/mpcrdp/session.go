package mpcrdp

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/method"
	algo "github.com/dppub/dppub/method/mpcrdp/crdp"
	protompcrdp "github.com/dppub/dppub/method/mpcrdp/roles"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// Name is the method's name.
const Name = "mp-crdp"

// Settings are MP-CRDP's settings: the algorithm's configuration (its
// JSON keys are the flags' names with underscores), the label and the
// query set of a queries release. The parties are the members of role
// owner in order, each holding its own columns of the same individuals
// with an ID column to join on.
type Settings struct {
	Label string `json:"label" help:"binary label column (default: the dataset's)"`
	// LabelHolder, if set, must be the party whose schema holds the label
	// (which the session finds from the public schemas).
	LabelHolder string `json:"label_holder,omitempty" flag:"-"`
	algo.Config
	// Queries is the count-query set of a queries release (nil:
	// NumQueries generated queries).
	Queries []algo.NamedQuery `json:"queries,omitempty"`
}

// SetDefaults fills the zero fields: b = 2, the rest as method/mpcrdp/crdp's.
func (s *Settings) SetDefaults() {
	s.B = cmp.Or(s.B, 2)
	_ = s.Config.Validate() // fills the algorithm's defaults
}

// Validate checks the settings. The calibration that publishes without
// noise is for experiments only and is refused here.
func (s *Settings) Validate() error {
	switch {
	case s.Label == "":
		return fmt.Errorf("the settings need a label")
	case s.Calibration == algo.None:
		return fmt.Errorf("calibration %q publishes without noise; it is for experiments only", algo.None)
	case s.Release == algo.NoRelease:
		return fmt.Errorf("release must be logreg, svm or queries, got %q", s.Release)
	}
	return s.Config.Validate()
}

// Spec is MP-CRDP's definition.
var Spec = method.ColumnsSpec(Name,
	"a DP classifier or count queries over parties of columns joined by a trusted server (MP-CRDP)",
	RoleServer, nil, open).WithDemo(demo)

// session is what the server sends every party.
type session struct {
	method.Header
	Settings Settings `json:"settings"`
	Parties  []string `json:"parties"`
	params   method.Derived[protompcrdp.Params]
}

func open(st Settings, o method.Open) (*session, error) {
	parties, err := o.Names(method.RoleOwner, 1)
	if err != nil {
		return nil, err
	}
	s := &session{Header: o.Header(), Settings: st, Parties: parties}
	holder, err := labelHolder(parties, o.Schemas, s.Settings.Label)
	if err != nil {
		return nil, err
	}
	if s.Settings.LabelHolder != "" && s.Settings.LabelHolder != holder {
		return nil, fmt.Errorf("label_holder %q does not hold the label %q; %s does", s.Settings.LabelHolder, s.Settings.Label, holder)
	}
	s.Settings.LabelHolder = holder
	_, err = s.agreed()
	return s, err
}

// labelHolder finds the one party whose public schema holds the label.
func labelHolder(parties []string, schemas []data.Schema, label string) (string, error) {
	if len(schemas) != len(parties) {
		return "", fmt.Errorf("%d schemas for %d parties", len(schemas), len(parties))
	}
	holder := ""
	for i, sc := range schemas {
		if slices.Contains(sc.Names(), label) {
			if holder != "" {
				return "", fmt.Errorf("both %s and %s hold the label %q", holder, parties[i], label)
			}
			holder = parties[i]
		}
	}
	if holder == "" {
		return "", fmt.Errorf("no party holds the label %q", label)
	}
	return holder, nil
}

// agreed are the protocol parameters, derived and checked once.
func (s *session) agreed() (protompcrdp.Params, error) { return s.params.Get(s.derive) }

func (s *session) derive() (protompcrdp.Params, error) {
	if err := s.Settings.Validate(); err != nil {
		return protompcrdp.Params{}, err
	}
	p := protompcrdp.Params{Session: s.ID, Parties: s.Parties, Server: s.Coordinator, Label: s.Settings.Label,
		LabelHolder: s.Settings.LabelHolder, Config: s.Settings.Config, QuerySet: s.Settings.Queries}
	return p, p.Validate()
}

func (s *session) budget() dp.Guarantee { return dp.Pure(s.Settings.Epsilon) }

// Members are the parties, which draw nothing: the server adds all noise.
func (s *session) Members() []method.Member {
	b := s.budget()
	var ms []method.Member
	for _, p := range s.Parties {
		ms = append(ms, method.Member{Name: p, Role: method.RoleOwner, Budget: &b})
	}
	return ms
}

// Unsound: the paper calibration, or a notion whose sensitivity is
// data-dependent, is not covered by standard DP.
func (s *session) Unsound() bool {
	return s.Settings.Calibration != algo.Sound || s.Settings.Notion != algo.Standard
}

func (s *session) Join(l method.Local) (protocol.Role, error) {
	params, err := s.agreed()
	if err != nil {
		return nil, err
	}
	if l.Table == nil {
		return nil, fmt.Errorf("%s holds no data", l.Name)
	}
	if l.Table.Schema.ID == "" {
		return nil, fmt.Errorf("%s's schema names no ID column to join the parties' records on", l.Name)
	}
	l.Note(Name, l.Table.Len(), 0, "columns", len(l.Table.Schema.Attributes))
	return protompcrdp.NewParty(protompcrdp.PartyOptions{ID: l.Name, Params: params, Table: l.Table, Accountant: l.Accountant})
}

func (s *session) Coordinate(src *randx.Source, _ any) (*method.Coordination, error) {
	params, err := s.agreed()
	if err != nil {
		return nil, err
	}
	merged, err := privacy.NewAccountant(privacy.AccountantOptions{Party: Ledger, Budget: s.budget()})
	if err != nil {
		return nil, err
	}
	server, err := protompcrdp.NewServer(protompcrdp.ServerOptions{Params: params, Accountant: merged, Source: src.Child()})
	if err != nil {
		return nil, err
	}
	publish := func(sr *protompcrdp.Result, accts []*privacy.Accountant) (*method.Outcome, error) {
		res, err := finish(params.Config, params.Label, src, append(accts, merged), sr)
		if err != nil {
			return nil, err
		}
		out, err := res.Output()
		if err != nil {
			return nil, err
		}
		summary := fmt.Sprintf("%s released over %d joined records (%d IDs not held by every party left out)", params.Config.Release, sr.Merged.Len(), sr.Dropped)
		return &method.Outcome{Data: out, Report: res.Report, Summary: summary, Detail: res}, nil
	}
	return method.Coordinated(server, publish), nil
}
