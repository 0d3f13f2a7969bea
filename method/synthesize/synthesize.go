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
	"github.com/dppub/dppub/engine/marginal"
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
	// stated as (ε, δ)-DP; 0 means 1/n².
	Delta float64 `json:"delta,omitempty" help:"δ of --epsilon, and at which each party's spend is also stated as (ε, δ)-DP (default 1/n², at most 1e-5)"`
	// Parties splits the attributes into this many contiguous parties of
	// columns (default 1); Party names them explicitly instead, each as
	// NAME:ATTR,ATTR,...
	Parties int      `json:"parties,omitempty" help:"split the attributes into this many contiguous parties"`
	Party   []string `json:"party,omitempty" flag:"array" help:"a party and its attributes, NAME:ATTR,ATTR,... (repeat; overrides --parties)"`
	// PartyBudgets are the parties' ρ_k, in order.
	PartyBudgets []float64 `json:"party_budgets,omitempty" help:"comma-separated ρ_k per party, in order"`
	// Bins is the number of equal-width bins of a numeric attribute over
	// its declared bounds (default marginal.DefaultBins).
	Bins int `json:"bins,omitempty" help:"equal-width bins per numeric attribute over its declared bounds"`
	// BinShare is the share of a single owner's ρ spent choosing numeric
	// bins that refine those equal-width bins from the data (0: the
	// default, DefaultBinShare for one owner); negative keeps the
	// equal-width bins (the public values split off, as parties have them)
	// and spends nothing on them, which is what a
	// marginal metric over those same public bins is best served by.
	BinShare float64 `json:"bin_share,omitempty" sign:"nonzero" help:"share of the owner's budget spent choosing numeric bins from the data, refining the --bins equal-width ones (default 0.05 for one owner; negative: the equal-width bins with the minimum, the maximum and 0 each a bin of its own, no budget)"`
	// BinRefine says what the data-chosen bins are for (default
	// marginal.DefaultRefine; only with bins chosen from the data).
	BinRefine marginal.Refinement `json:"bin_refine,omitempty" help:"what the data-chosen numeric bins are for: decoded (the engine measures the --bins equal-width bins and dominant point masses; the finer bins, from the same release, only place values inside them; default) | measured (the engine measures the finer bins)"`
	// MaxCells caps a combined marginal's domain; AnyClique combines
	// every clique of selected pairs under it, as PrivSyn does.
	MaxCells  int  `json:"max_cells,omitempty" help:"largest domain of a combined marginal"`
	AnyClique bool `json:"any_clique,omitempty" help:"combine every clique of selected pairs under --max-cells (PrivSyn), even when that adds noise"`
	// Score is the pair score (default the paper's IInDif).
	Score marginal.ScoreKind `json:"score,omitempty" help:"pair score: iindif (the paper's, sensitivity 2) | indif (PrivSyn's, sensitivity 6)"`
	// Rounds of GUM (default 30) and Rows of synthetic data (default n;
	// GUM fits at most marginal.DefaultFit of them, the others repeat
	// the fitted records).
	Rounds int `json:"rounds,omitempty" help:"GUM rounds"`
	Rows   int `json:"rows,omitempty" help:"synthetic rows (default: as many as the input; beyond 1048576, rows repeat the records GUM fitted, numeric values drawn afresh in their bins)"`
	// Method is what to measure (default marginal.MethodAuto).
	Method marginal.Method `json:"method,omitempty" help:"what to measure: auto (default: adaptive for one owner of at most 16 attributes of at most 64 values each, paper otherwise, and paper too when an attribute has more than 32 values and ρ is so large that the adaptive method measured worse (Adult at ρ ≥ 1.4), adaptive again on a wider table of at most 64 values per attribute whose pairs ρ would leave mostly noise (WDBC, Musk): docs/results/synthesis/engine-choice.md) | paper (PDP-MVDS Algorithm 3; the only one for several parties) | adaptive (AIM-style rounds, one owner)"`
	// Label adds the label's triples to the adaptive workload, and the
	// report warns when the synthetic label's relation to the other
	// columns is missing or mostly noise (marginal.LabelWarning).
	Label string `json:"label,omitempty" help:"attribute the data will be used to predict: the adaptive workload adds its 3-way marginals (none by default: on Adult they cost 2-way and 3-way accuracy), and the report warns when no measured marginal joins it with another column or every one that does is mostly noise"`
	// MaxModelCells caps the adaptive method's junction tree (0: the
	// engine's default, marginal.AdaptiveOptions.MaxCells); AdaptiveRounds
	// is its T (0: marginal.DefaultRounds).
	MaxModelCells  float64 `json:"max_model_cells,omitempty" help:"adaptive method: cap on the graphical model's junction tree, in cells (default 262144, or 1048576 when a first-round measurement's noise is at most 0.1% of the records)"`
	AdaptiveRounds int     `json:"adaptive_rounds,omitempty" help:"adaptive method: T, the first rounds each get ρ/T (default 16 × attributes, AIM's, fewer on a table too small for them: at most 0.9·ρ·(0.03·n)², at least 2 × attributes)"`
	// Selection is the adaptive rounds' selection mechanism (default
	// marginal.SelectExponential).
	Selection marginal.SelectMechanism `json:"selection,omitempty" help:"adaptive method: private selection, exponential (ε²/8-zCDP by bounded range, AIM's; default) | permute-and-flip (ε-DP, charged ε²/2)"`
	// Penalty is the adaptive score's expected measurement error (default
	// marginal.DefaultPenalty).
	Penalty marginal.Penalty `json:"penalty,omitempty" help:"adaptive method: the error a candidate's measurement is expected to leave, subtracted in the selection score and the annealing test: clipped (default: the noise's expected L1 error once clipped at zero, at the model's estimate of each cell) | aim (AIM's √(2/π)·σ per cell)"`
	// Optimizer fits the adaptive method's model (default
	// marginal.OptimizerAuto).
	Optimizer marginal.Optimizer `json:"optimizer,omitempty" help:"adaptive method: how the graphical model is fitted to the noisy marginals (post-processing): auto (default: momentum when a first-round measurement's noise is at most 0.1% of the records, mirror descent otherwise) | mirror-descent (Private-PGM's) | momentum (heavy-ball momentum with restart, 250 final steps)"`
}

// DefaultRounds is the default number of GUM rounds.
const DefaultRounds = 30

// SetDefaults fills the zero fields (never the budget).
func (s *Settings) SetDefaults() {
	if s.Parties == 0 {
		s.Parties = 1
	}
	if s.Bins == 0 {
		s.Bins = marginal.DefaultBins
	}
	if s.MaxCells == 0 {
		s.MaxCells = marginal.DefaultMaxCells
	}
	if s.Score == "" {
		s.Score = marginal.IInDif
	}
	if s.Rounds == 0 {
		s.Rounds = DefaultRounds
	}
	if s.Method == "" {
		s.Method = marginal.MethodAuto
	}
	if s.Selection == "" {
		s.Selection = marginal.SelectExponential
	}
	if s.Optimizer == "" {
		s.Optimizer = marginal.OptimizerAuto
	}
	if s.Penalty == "" {
		s.Penalty = marginal.DefaultPenalty
	}
}

// Validate checks what the settings say on their own; what depends on
// the schema (parties against attributes) is checked by the run.
func (s *Settings) Validate() error {
	switch {
	case s.Bins < 1:
		return method.Fieldf("bins", "must be positive, got %d", s.Bins)
	case !(s.BinShare < 0.5) || math.IsNaN(s.BinShare):
		return method.Fieldf("bin_share", "must be below 0.5, got %v", s.BinShare)
	case s.BinShare > 0 && (s.Parties > 1 || len(s.Party) > 1 || len(s.PartyBudgets) > 1):
		return method.Fieldf("bin_share", "chooses bins from one owner's data: it cannot be combined with several parties, got %v", s.BinShare)
	case s.BinRefine.Validate() != nil:
		return method.Fieldf("bin_refine", "must be measured or decoded, got %q", s.BinRefine)
	case s.BinRefine != "" && (s.BinShare < 0 || s.Parties > 1 || len(s.Party) > 1 || len(s.PartyBudgets) > 1):
		return method.Fieldf("bin_refine", "refines bins chosen from one owner's data: it needs bin_share ≥ 0 and one party, got %q", s.BinRefine)
	case s.MaxCells < 1:
		return method.Fieldf("max_cells", "must be positive, got %d", s.MaxCells)
	case s.Rounds < 1:
		return method.Fieldf("rounds", "must be positive, got %d", s.Rounds)
	case s.Rows < 0:
		return method.Fieldf("rows", "must not be negative, got %d", s.Rows)
	case s.Score != marginal.IInDif && s.Score != marginal.InDif:
		return method.Fieldf("score", "must be iindif or indif, got %q", s.Score)
	case s.Delta != 0 && !(s.Delta > 0 && s.Delta < 1):
		return method.Fieldf("delta", "must be in (0, 1), got %v", s.Delta)
	case s.Epsilon != 0 && !(s.Epsilon > 0 && !math.IsInf(s.Epsilon, 0)):
		return method.Fieldf("epsilon", "must be positive and finite, got %v", s.Epsilon)
	case s.Epsilon != 0 && (s.Rho != 0 || len(s.PartyBudgets) > 0 || len(s.Party) > 0 || s.Parties > 1):
		return method.Fieldf("epsilon", "is the single owner's budget: it cannot be combined with rho or parties")
	case s.Method != marginal.MethodAuto && s.Method != marginal.MethodAdaptive && s.Method != marginal.MethodPaper:
		return method.Fieldf("method", "must be auto, adaptive or paper, got %q", s.Method)
	case !(s.MaxModelCells == 0 || s.MaxModelCells >= 1):
		return method.Fieldf("max_model_cells", "must be at least 1, got %v", s.MaxModelCells)
	case s.AdaptiveRounds < 0:
		return method.Fieldf("adaptive_rounds", "must not be negative, got %d", s.AdaptiveRounds)
	case s.Selection != marginal.SelectExponential && s.Selection != marginal.SelectPermuteAndFlip:
		return method.Fieldf("selection", "must be exponential or permute-and-flip, got %q", s.Selection)
	case s.Parties < 1:
		return method.Fieldf("parties", "must be positive, got %d", s.Parties)
	}
	if _, err := marginal.ParsePenalty(string(s.Penalty)); err != nil {
		return method.Fieldf("penalty", "must be clipped or aim, got %q", s.Penalty)
	}
	if _, err := marginal.ParseOptimizer(string(s.Optimizer)); err != nil {
		return method.Fieldf("optimizer", "must be auto, mirror-descent or momentum, got %q", s.Optimizer)
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
func (s *Settings) Domain(sc data.Schema) (*marginal.Domain, error) {
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
		Parties: parties, Epsilon: s.Epsilon, Method: s.Method, Label: s.Label,
		MaxModelCells: s.MaxModelCells, AdaptiveRounds: s.AdaptiveRounds, Selection: s.Selection, Optimizer: s.Optimizer, Penalty: s.Penalty,
		Bins: s.Bins, BinShare: s.BinShare, Refine: s.BinRefine, Score: s.Score,
		Combine: marginal.CombineOptions{MaxCells: s.MaxCells, AnyClique: s.AnyClique},
		Rounds:  s.Rounds, Rows: s.Rows, Delta: s.Delta,
	}, nil
}

func run(ctx context.Context, st method.Settings, l method.Local) (*method.Outcome, error) {
	s := st.(*Settings)
	var in Input
	switch a := l.Attach.(type) {
	case Progress:
		in.Progress = a
	case Input:
		in = a
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
