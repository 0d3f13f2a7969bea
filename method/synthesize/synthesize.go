// Package synthesize defines `synthesize` as a method: a synthetic table
// from noisy marginals (the PDP-MVDS engine, after PrivSyn, or the
// adaptive engine) published by one curator who holds every column, with
// personalised zCDP budgets per party of columns.
//
// It is defined in this one folder: the settings and their validation
// (synthesize.go), and the engine's pipeline in one process (Publish,
// pipeline.go).
package synthesize

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/method"
)

// Name is the method's name.
const Name = "synthesize"

// Spec is synthesize's definition.
var Spec = method.Spec{
	Name:        Name,
	Summary:     "synthetic data from noisy marginals under personalised zCDP budgets, one curator holding every column (PDP-MVDS engine)",
	Split:       method.Central,
	NewSettings: func() method.Settings { return new(Settings) },
	Run:         run,
}

// Settings are synthesize's settings: the flags of `dppub synthesize`.
// The budget is ρ (Rho, or PartyBudgets per party of columns) or, for one
// owner, (Epsilon, Delta)-DP converted to the largest ρ that gives it.
type Settings struct {
	// Rho is the owner's zCDP budget, or each party's without
	// PartyBudgets. It has no default: a budget is always chosen.
	Rho float64 `json:"rho,omitempty" help:"zCDP budget ρ of the owner (or of each party without --party-budgets)"`
	// Epsilon states the single owner's budget as (ε, δ)-DP instead.
	Epsilon float64 `json:"epsilon,omitempty" help:"the owner's budget as (ε, δ)-DP at --delta (instead of --rho; converted to the largest ρ that gives it)"`
	// Delta is δ of Epsilon and at which every party's zCDP spend is also
	// stated as (ε, δ)-DP; 0 means 1/n² (replace-one), or 1e-5 with Rho
	// under add/remove, where n is private (Epsilon then needs a Delta).
	Delta float64 `json:"delta,omitempty" help:"δ of --epsilon, and at which each party's spend is also stated as (ε, δ)-DP (default 1/n², at most 1e-5; under --neighbours add-remove n is private: 1e-5 with --rho, and --epsilon needs --delta)"`
	// Parties splits the attributes into this many contiguous parties of
	// columns (default 1); Party names them explicitly instead, each as
	// NAME:ATTR,ATTR,...
	Parties int      `json:"parties,omitempty" help:"split the attributes into this many contiguous parties"`
	Party   []string `json:"party,omitempty" flag:"array" help:"a party and its attributes, NAME:ATTR,ATTR,... (repeat; overrides --parties)"`
	// PartyBudgets are the parties' ρ_k, in order.
	PartyBudgets []float64 `json:"party_budgets,omitempty" help:"comma-separated ρ_k per party, in order"`
	// EngineSettings are the marginal engine's (method.EngineSettings):
	// bins, the paper and adaptive methods' settings, GUM.
	method.EngineSettings
	// LabelCheckShare is the share of the single owner's ρ spent measuring
	// the label's accuracy (Options.LabelCheckShare).
	LabelCheckShare float64 `json:"label_check_share,omitempty" sign:"nonzero" help:"with --label and one owner: share of the budget spent measuring, on the real records, the accuracy of a classifier trained on the synthetic rows, stated in the report (default 0.02; negative: no check)"`
}

// DefaultRounds is the default number of GUM rounds.
const DefaultRounds = method.DefaultGUMRounds

// SetDefaults fills the zero fields (never the budget).
func (s *Settings) SetDefaults() {
	if s.Parties == 0 {
		s.Parties = 1
	}
	s.EngineSettings.SetDefaults()
	s.SetWordDefaults()
}

// Validate checks what the settings say on their own; what depends on
// the schema (parties against attributes) is checked by the run.
func (s *Settings) Validate() error {
	if err := s.EngineSettings.Validate(); err != nil {
		return err
	}
	several := s.Parties > 1 || len(s.Party) > 1 || len(s.PartyBudgets) > 1
	switch {
	case s.BinShare > 0 && several:
		return method.Fieldf("bin_share", "chooses bins from one owner's data: it cannot be combined with several parties, got %v", s.BinShare)
	case s.BinRefine != "" && (s.BinShare < 0 || several):
		return method.Fieldf("bin_refine", "refines bins chosen from one owner's data: it needs bin_share ≥ 0 and one party, got %q", s.BinRefine)
	case s.Delta != 0 && !(s.Delta > 0 && s.Delta < 1):
		return method.Fieldf("delta", "must be in (0, 1), got %v", s.Delta)
	case s.Epsilon != 0 && !(s.Epsilon > 0 && !math.IsInf(s.Epsilon, 0)):
		return method.Fieldf("epsilon", "must be positive and finite, got %v", s.Epsilon)
	case s.Epsilon != 0 && (s.Rho != 0 || len(s.PartyBudgets) > 0 || len(s.Party) > 0 || s.Parties > 1):
		return method.Fieldf("epsilon", "is the single owner's budget: it cannot be combined with rho or parties")
	case s.Parties < 1:
		return method.Fieldf("parties", "must be positive, got %d", s.Parties)
	case !(s.LabelCheckShare < 1) || math.IsNaN(s.LabelCheckShare):
		return method.Fieldf("label_check_share", "must be below 1 (negative: no check), got %v", s.LabelCheckShare)
	case s.LabelCheckShare > 0 && (s.Label == "" || several):
		return method.Fieldf("label_check_share", "checks the --label of one owner's data: it needs a label and one party, got %v", s.LabelCheckShare)
	}
	if err := s.checkAddRemove(); err != nil {
		return err
	}
	if s.Epsilon == 0 && (s.Rho != 0 || len(s.PartyBudgets) == 0) && dp.CheckRho(s.Rho) != nil {
		return method.Fieldf("rho", "must be positive and finite, got %v", s.Rho)
	}
	for _, g := range s.Party {
		if _, _, err := parseParty(g); err != nil {
			return err
		}
	}
	for _, r := range s.PartyBudgets {
		if dp.CheckRho(r) != nil {
			return method.Fieldf("party_budgets", "must be positive and finite, got %v", r)
		}
	}
	return nil
}

// checkAddRemove refuses what add/remove neighbours cannot give: several
// parties of columns (a record added adds values to every party's
// columns, which personalised budgets do not cover) and an (ε, δ) budget
// without δ (its default 1/n² would depend on the private n).
func (s *Settings) checkAddRemove() error {
	switch {
	case s.Neighbours.PublicCount():
		return nil
	case s.Parties > 1 || len(s.Party) > 1 || len(s.PartyBudgets) > 1:
		return method.Fieldf("neighbours", "add-remove needs one owner of every column: it cannot be combined with --parties, --party or --party-budgets")
	case s.Epsilon != 0 && s.Delta == 0:
		return method.Fieldf("delta", "is required with --epsilon under --neighbours add-remove: n is private, so δ cannot default to 1/n²")
	}
	return nil
}

// parseParty reads one NAME:ATTR,ATTR,... party.
func parseParty(g string) (name string, attrs []string, err error) {
	name, list, ok := strings.Cut(g, ":")
	if !ok || name == "" || list == "" {
		return "", nil, method.Fieldf("party", "%q: want NAME:ATTR,ATTR,...", g)
	}
	return name, strings.Split(list, ","), nil
}

// Progress, as the Local's attachment, reports the engine's stages.
type Progress func(stage string, done, total int)

// Input, as the Local's attachment instead of Progress, also carries the
// owner's records already discretised by a one-pass reader (with the
// domain Domain returns; the Local's Table is then nil) and asks for no
// synthetic table in the outcome (Options.NoTable: the
// caller decodes the records from the result, a chunk at a time).
type Input struct {
	Progress Progress
	Encoded  *Encoded
	NoTable  bool
}

// Domain is the domain a table with schema sc is discretised with for a
// run with these (validated) settings: what a reader that never holds
// the table encodes its rows with (Input.Encoded).
func (s *Settings) Domain(sc data.Schema) (*domain.Domain, error) {
	o, err := s.options(sc)
	if err != nil {
		return nil, method.SettingsError{Err: err}
	}
	return DomainFor(sc, o)
}

// options are the publish options of a run over schema sc, without the
// data, randomness and progress.
func (s *Settings) options(sc data.Schema) (Options, error) {
	parties, err := s.partyList(sc)
	if err != nil {
		return Options{}, err
	}
	return Options{
		Parties: parties, Epsilon: s.Epsilon, Method: s.Method, Label: s.Label, LabelCheckShare: s.LabelCheckShare,
		MaxModelCells: s.MaxModelCells, AdaptiveRounds: s.AdaptiveRounds, Selection: s.Selection, Optimizer: s.Optimizer, Penalty: s.Penalty,
		Bins: s.Bins, BinsFor: s.BinsFor, BinShare: s.BinShare, Refine: s.BinRefine, Score: s.Score, Split: s.Split,
		Combine: s.Combine(),
		Rounds:  s.Rounds, Rows: s.Rows, Delta: s.Delta, Neighbours: s.Neighbours,
	}, nil
}

func run(ctx context.Context, st method.Settings, l method.Local) (*method.Outcome, error) {
	s := st.(*Settings)
	var in Input
	switch a := l.Attach.(type) {
	case nil:
	case Progress:
		in.Progress = a
	case Input:
		in = a
	default:
		return nil, fmt.Errorf("the run attached a %T where synthesize takes its Progress or Input", a)
	}
	var sc data.Schema
	switch {
	case l.Table != nil:
		sc = l.Table.Schema
	case in.Encoded != nil && in.Encoded.Domain != nil:
		sc = in.Encoded.Domain.Schema()
	default:
		return nil, fmt.Errorf("no table to synthesize from")
	}
	o, err := s.options(sc)
	if err != nil {
		return nil, method.SettingsError{Err: err}
	}
	o.Table, o.Encoded, o.NoTable, o.Source = l.Table, in.Encoded, in.NoTable, l.Source
	if in.Progress != nil {
		o.Progress = in.Progress
	}
	res, err := Publish(ctx, o)
	if err != nil {
		return nil, err
	}
	if l.Facts != nil {
		l.Facts.Rows, l.Facts.Clamped = res.Real.Len(), res.Clamped
	}
	// Detail is the whole result (the engine's measurements, timings and
	// domain) for the owner's own utility summary.
	summary := fmt.Sprintf("%s method: %d marginals measured for %d party(ies)", res.Method, len(res.Engine.Measured), len(res.Parties))
	return &method.Outcome{Table: res.Synthetic, Report: res.Report, Summary: summary, Detail: res}, nil
}

// partyList turns the settings into the parties of columns and their
// budgets (none for an (ε, δ) budget: Publish converts it).
func (s *Settings) partyList(sc data.Schema) ([]Party, error) {
	if s.Epsilon != 0 {
		return nil, nil
	}
	var parties []Party
	if len(s.Party) > 0 {
		for _, g := range s.Party {
			name, attrs, err := parseParty(g)
			if err != nil {
				return nil, err
			}
			parties = append(parties, Party{Name: name, Attributes: attrs})
		}
	} else {
		if s.Parties > len(sc.Attributes) {
			return nil, method.Fieldf("parties", "must be in 1..%d (one attribute each at most), got %d", len(sc.Attributes), s.Parties)
		}
		even, err := EvenParties(sc, make([]float64, s.Parties))
		if err != nil {
			return nil, err
		}
		parties = even
		if s.Parties == 1 {
			parties[0].Name = "owner"
		}
	}
	if len(s.PartyBudgets) > 0 && len(s.PartyBudgets) != len(parties) {
		return nil, method.Fieldf("party_budgets", "has %d values for %d parties", len(s.PartyBudgets), len(parties))
	}
	for k := range parties {
		parties[k].Rho = s.Rho
		if len(s.PartyBudgets) > 0 {
			parties[k].Rho = s.PartyBudgets[k]
		}
	}
	return parties, nil
}
