package method

import (
	"cmp"
	"math"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/infer"
	"github.com/dppub/dppub/engine/marginal/measurement"
)

// EngineSettings are the marginal engine's settings, declared once for
// every method that runs it (one curator, owners of rows, parties of
// columns: issue 36, "one engine, one front door"). A method embeds them
// in its Settings, so their JSON keys and flags are the method's own;
// its SetDefaults calls SetDefaults here and its Validate calls Validate
// here, then refuses what its split cannot run (each refusal naming the
// flag, e.g. RefuseAdaptive). The budget and the noise mode are the
// method's, not the engine's.
type EngineSettings struct {
	// Bins is the number of equal-width bins of a numeric attribute over
	// its declared bounds (default domain.DefaultBins); BinsFor sets it
	// per attribute (by name).
	Bins    int            `json:"bins,omitempty" help:"equal-width bins per numeric attribute over its declared bounds"`
	BinsFor map[string]int `json:"bins_for,omitempty"`
	// BinShare is the share of the budget spent choosing numeric bins
	// from the data, refining the equal-width Bins. Its default depends
	// on the split (each method's SetDefaults): 0.05 for one owner and for
	// owners of rows, none for parties of columns. Negative keeps the
	// equal-width bins with the public values (minimum, maximum, 0) split
	// off (domain.PublicValueCuts) and spends nothing on them.
	BinShare float64 `json:"bin_share,omitempty" sign:"nonzero" help:"share of the budget spent choosing numeric bins from the data, refining the --bins equal-width ones (default 0.05 for one owner and for owners of rows, none for parties of columns; negative: the equal-width bins with the minimum, the maximum and 0 each a bin of its own, no budget). On a table of more than 16 attributes run by the adaptive method, where the planned noise swamps the average bin, an integer attribute of at most 32 values takes its bins from its one-way marginal instead: released once at the engine's one-way budget, merged where light, and serving the model as its one-way marginal too (MST's order)"`
	// BinRefine says what the data-chosen bins are for (default
	// domain.DefaultRefine; only with bins chosen from the data).
	BinRefine domain.Refinement `json:"bin_refine,omitempty" help:"what the data-chosen numeric bins are for: decoded (the engine measures the --bins equal-width bins and dominant point masses; the finer bins, from the same release, only place values inside them; default) | measured (the engine measures the finer bins)"`
	// Neighbours is the neighbouring relation the guarantee is stated for
	// (empty: replace-one); a method whose sensitivities are derived for
	// replace-one only refuses add-remove (CheckNeighbours).
	Neighbours dp.Neighbours `json:"neighbours,omitempty" help:"neighbouring relation: replace-one (default: datasets of equal size differing in one record; n public) | add-remove (one record added or removed, as AIM and MST: n is released with noise, 1% of the budget, and every count's sensitivity is 1; synthesize and synthesize-rows)"`
	// Split divides the paper method's budget between one-way marginals,
	// pair scores and the selected marginals (default
	// marginal.PaperSplit, 0.1 / 0.1 / 0.8).
	Split marginal.Split `json:"split,omitempty"`
	// MaxCells caps a combined marginal's domain; AnyClique combines
	// every clique of selected pairs under it, as PrivSyn does.
	MaxCells  int  `json:"max_cells,omitempty" help:"largest domain of a combined marginal"`
	AnyClique bool `json:"any_clique,omitempty" help:"combine every clique of selected pairs under --max-cells (PrivSyn), even when that adds noise"`
	// Score is the paper method's pair score (default the paper's
	// IInDif).
	Score measurement.ScoreKind `json:"score,omitempty" help:"pair score: iindif (the paper's, sensitivity 2) | indif (PrivSyn's, sensitivity 6; one owner only)"`
	// Rounds of GUM (default DefaultGUMRounds) and Rows of synthetic data
	// (default the public record count).
	Rounds int `json:"rounds,omitempty" help:"GUM rounds"`
	Rows   int `json:"rows,omitempty" help:"synthetic rows (default: as many as the input)"`
	// Method is what to measure (default marginal.MethodAuto, which each
	// split resolves from public facts only).
	Method marginal.Method `json:"method,omitempty" help:"what to measure: auto (default: chosen from public facts, see the report) | paper (PDP-MVDS Algorithm 3) | adaptive (AIM-style rounds; one owner and owners of rows)"`
	// Label starts the adaptive rounds with the label's pair with every
	// other attribute (measured without a selection, a public choice:
	// marginal.AdaptiveOptions.Label) and adds the label's triples to the
	// adaptive workload; the report warns when the synthetic label's
	// relation to the other columns is missing or mostly noise
	// (marginal.LabelWarning).
	Label string `json:"label,omitempty" help:"attribute the data will be used to predict: the adaptive method first measures its pair with every other attribute (a public choice, no selection budget) and adds its 3-way marginals to the workload (none by default: on Adult they cost 2-way and 3-way accuracy), and the report warns when no measured marginal joins it with another column or every one that does is mostly noise"`
	// MaxModelCells caps the adaptive method's junction tree (0: the
	// engine's default, marginal.AdaptiveOptions.MaxCells); AdaptiveRounds
	// is its T (0: marginal.DefaultRounds).
	MaxModelCells  float64 `json:"max_model_cells,omitempty" help:"adaptive method: cap on the graphical model's junction tree, in cells (default 262144, or 1048576 when a first-round measurement's noise is at most 0.1% of the records, 524288 then when the table has at most 16 attributes, the workload at least 100 candidates (whose selections are batched) and the whole domain more cells than that)"`
	AdaptiveRounds int     `json:"adaptive_rounds,omitempty" help:"adaptive method: T, the first rounds each get ρ/T (default 16 × attributes, AIM's, 6 × attributes when a first-round measurement's noise is at most 0.1% of the records, the table has at most 16 attributes, the workload at least 100 candidates and the whole domain more than 524288 cells, fewer on a table too small for them: at most 0.9·ρ·(0.03·n)², 0.9·ρ·(0.0025·n)² on a table of more than 16 attributes, which starts from a tree of pairs as MST does (1.8·ρ in place of 0.9·ρ under --neighbours add-remove; K owners of rows in insider-safe mode plan at ρ·K/(K+1), the noise they carry), at least 2 × attributes)"`
	// Selection is the adaptive rounds' selection mechanism (default
	// measurement.SelectExponential).
	Selection measurement.SelectMechanism `json:"selection,omitempty" help:"adaptive method: private selection, exponential (ε²/8-zCDP by bounded range, AIM's; default) | permute-and-flip (ε-DP, charged ε²/2; one owner only)"`
	// Penalty is the adaptive score's expected measurement error (default
	// marginal.DefaultPenalty).
	Penalty marginal.Penalty `json:"penalty,omitempty" help:"adaptive method: the error a candidate's measurement is expected to leave, subtracted in the selection score and the annealing test: clipped (default: the noise's expected L1 error once clipped at zero, at the model's estimate of each cell) | aim (AIM's √(2/π)·σ per cell)"`
	// Optimizer fits the adaptive method's model (default
	// marginal.OptimizerAuto).
	Optimizer marginal.Optimizer `json:"optimizer,omitempty" help:"adaptive method: how the graphical model is fitted to the noisy marginals (post-processing): auto (default: momentum when a first-round measurement's noise is at most 0.1% of the records, mirror descent otherwise) | mirror-descent (Private-PGM's) | momentum (heavy-ball momentum with restart, 250 final steps, 60 where the rounds are 6 × attributes)"`
}

// DefaultGUMRounds is the default number of GUM rounds.
const DefaultGUMRounds = 30

// SetDefaults fills the zero numeric fields every split defaults alike
// (not BinShare or BinRefine, whose defaults depend on the split). The
// words (Score, Method, Selection, Optimizer, Penalty) stay empty, which
// means their defaults (Resolved): a session's settings travel to
// members as JSON, and a member on an older build refuses keys it does
// not know, so a method of several members leaves them out unless they
// are set (method/registry's TestSessionJSONUnchanged).
func (s *EngineSettings) SetDefaults() {
	s.Bins = cmp.Or(s.Bins, domain.DefaultBins)
	s.MaxCells = cmp.Or(s.MaxCells, marginal.DefaultMaxCells)
	s.Rounds = cmp.Or(s.Rounds, DefaultGUMRounds)
}

// SetWordDefaults fills the words SetDefaults leaves empty with their
// defaults (a central method, whose settings never travel, records them).
func (s *EngineSettings) SetWordDefaults() {
	r := s.Resolved()
	s.Score, s.Method, s.Selection, s.Optimizer, s.Penalty, s.Neighbours = r.Score, r.Method, r.Selection, r.Optimizer, r.Penalty, r.Neighbours
}

// Resolved are the settings with every empty word at its default.
func (s EngineSettings) Resolved() EngineSettings {
	s.Score = cmp.Or(s.Score, measurement.IInDif)
	s.Method = cmp.Or(s.Method, marginal.MethodAuto)
	s.Selection = cmp.Or(s.Selection, measurement.SelectExponential)
	s.Optimizer = cmp.Or(s.Optimizer, marginal.OptimizerAuto)
	s.Penalty = cmp.Or(s.Penalty, marginal.DefaultPenalty)
	s.Neighbours = s.Neighbours.Or()
	return s
}

// Validate checks the engine settings on their own; every error is a
// FieldError naming the JSON key. An empty word is its default.
func (s *EngineSettings) Validate() error {
	w := s.Resolved()
	switch {
	case s.Bins < 1:
		return Fieldf("bins", "must be positive, got %d", s.Bins)
	case !(s.BinShare < 0.5) || math.IsNaN(s.BinShare):
		// Bins at half of a budget or more would leave the engine less
		// than the bins.
		return Fieldf("bin_share", "must be below 0.5, got %v", s.BinShare)
	case s.BinRefine.Validate() != nil:
		return Fieldf("bin_refine", "must be measured or decoded, got %q", s.BinRefine)
	case s.Split != (marginal.Split{}) && s.Split.Validate() != nil:
		return Fieldf("split", "%v", s.Split.Validate())
	case s.MaxCells < 1:
		return Fieldf("max_cells", "must be positive, got %d", s.MaxCells)
	case s.Rounds < 1:
		return Fieldf("rounds", "must be positive, got %d", s.Rounds)
	case s.Rows < 0:
		return Fieldf("rows", "must not be negative, got %d", s.Rows)
	case s.Neighbours.Check() != nil:
		return Fieldf("neighbours", "must be replace-one or add-remove, got %q", s.Neighbours)
	case w.Score != measurement.IInDif && w.Score != measurement.InDif:
		return Fieldf("score", "must be iindif or indif, got %q", s.Score)
	case w.Method != marginal.MethodAuto && w.Method != marginal.MethodAdaptive && w.Method != marginal.MethodPaper:
		return Fieldf("method", "must be auto, adaptive or paper, got %q", s.Method)
	case !(s.MaxModelCells == 0 || s.MaxModelCells >= 1):
		return Fieldf("max_model_cells", "must be at least 1, got %v", s.MaxModelCells)
	case s.AdaptiveRounds < 0:
		return Fieldf("adaptive_rounds", "must not be negative, got %d", s.AdaptiveRounds)
	case w.Selection != measurement.SelectExponential && w.Selection != measurement.SelectPermuteAndFlip:
		return Fieldf("selection", "must be exponential or permute-and-flip, got %q", s.Selection)
	}
	if _, err := marginal.ParsePenalty(string(w.Penalty)); err != nil {
		return Fieldf("penalty", "must be clipped or aim, got %q", s.Penalty)
	}
	if _, err := marginal.ParseOptimizer(string(w.Optimizer)); err != nil {
		return Fieldf("optimizer", "must be auto, mirror-descent or momentum, got %q", s.Optimizer)
	}
	for name, b := range s.BinsFor {
		if b < 1 {
			return Fieldf("bins_for", "%q must be positive, got %d", name, b)
		}
	}
	return nil
}

// RefuseAdaptive refuses the settings only the adaptive method uses, for
// a split that cannot run it (why says so, e.g. "parties of columns
// cannot compute AIM's selection scores securely").
func (s *EngineSettings) RefuseAdaptive(why string) error {
	switch {
	case s.Method == marginal.MethodAdaptive:
		return Fieldf("method", "adaptive is not available: %s", why)
	case s.Label != "":
		return Fieldf("label", "is for the adaptive method, which is not available: %s", why)
	case s.MaxModelCells != 0:
		return Fieldf("max_model_cells", "is for the adaptive method, which is not available: %s", why)
	case s.AdaptiveRounds != 0:
		return Fieldf("adaptive_rounds", "is for the adaptive method, which is not available: %s", why)
	case s.Selection != "" && s.Selection != measurement.SelectExponential:
		return Fieldf("selection", "is for the adaptive method, which is not available: %s", why)
	case s.Penalty != "" && s.Penalty != marginal.DefaultPenalty:
		return Fieldf("penalty", "is for the adaptive method, which is not available: %s", why)
	case s.Optimizer != "" && s.Optimizer != marginal.OptimizerAuto:
		return Fieldf("optimizer", "is for the adaptive method, which is not available: %s", why)
	}
	return nil
}

// RefuseScore refuses a pair score other than the paper's IInDif, for a
// split whose protocol computes only that one (why says so).
func (s *EngineSettings) RefuseScore(why string) error {
	if s.Score != "" && s.Score != measurement.IInDif {
		return Fieldf("score", "must be iindif: %s, got %q", why, s.Score)
	}
	return nil
}

// Adaptive are the adaptive method's engine options (the workload is the
// engine's default unless the caller sets one).
func (s *EngineSettings) Adaptive() marginal.AdaptiveOptions {
	r := s.Resolved()
	s = &r
	return marginal.AdaptiveOptions{Label: s.Label, MaxCells: s.MaxModelCells, Rounds: s.AdaptiveRounds,
		Selection: s.Selection, Optimizer: s.Optimizer, Penalty: s.Penalty}
}

// Combine are the paper method's combination options.
func (s *EngineSettings) Combine() marginal.CombineOptions {
	return marginal.CombineOptions{MaxCells: s.MaxCells, AnyClique: s.AnyClique}
}

// Options are the engine's options these settings decide, for a run of
// method m (resolved: paper or adaptive) of n records: everything but the
// domain, the parties, the noise of the paper method's stages, the
// source and the progress, which the method sets.
func (s *EngineSettings) Options(m marginal.Method, n int) marginal.Options {
	r := s.Resolved()
	return marginal.Options{Records: n, Method: m, Split: r.Split, Score: r.Score, Combine: r.Combine(),
		Adaptive: r.Adaptive(), GUM: infer.GUMOptions{Rounds: r.Rounds, Rows: cmp.Or(r.Rows, n)}}
}
