package method_test

import (
	"testing"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/method/methodtest"
)

// Every mistake in the engine settings names its JSON key, and the
// defaults pass.
func TestEngineSettingsValidate(t *testing.T) {
	methodtest.CheckMistakes(t, []methodtest.Mistake[method.EngineSettings]{
		methodtest.Wrong("bins", method.EngineSettings{Bins: -1}, "bins", "got -1"),
		methodtest.Wrong("bins for", method.EngineSettings{BinsFor: map[string]int{"age": 0}}, "bins_for", `"age"`),
		methodtest.Wrong("bin share", method.EngineSettings{BinShare: 0.5}, "bin_share", "got 0.5"),
		methodtest.Wrong("bin refine", method.EngineSettings{BinRefine: "both"}, "bin_refine", `"both"`),
		methodtest.Wrong("split", method.EngineSettings{Split: marginal.Split{OneWay: 0.5, Scores: 0.5, Marginals: 0.5}}, "split", "sums to"),
		methodtest.Wrong("max cells", method.EngineSettings{MaxCells: -3}, "max_cells", "got -3"),
		methodtest.Wrong("rounds", method.EngineSettings{Rounds: -1}, "rounds", "got -1"),
		methodtest.Wrong("rows", method.EngineSettings{Rows: -1}, "rows", "got -1"),
		methodtest.Wrong("score", method.EngineSettings{Score: "mi"}, "score", `"mi"`),
		methodtest.Wrong("method", method.EngineSettings{Method: "mst"}, "method", `"mst"`),
		methodtest.Wrong("model cells", method.EngineSettings{MaxModelCells: 0.5}, "max_model_cells", "got 0.5"),
		methodtest.Wrong("adaptive rounds", method.EngineSettings{AdaptiveRounds: -2}, "adaptive_rounds", "got -2"),
		methodtest.Wrong("selection", method.EngineSettings{Selection: "gumbel"}, "selection", `"gumbel"`),
		methodtest.Wrong("penalty", method.EngineSettings{Penalty: "none"}, "penalty", `"none"`),
		methodtest.Wrong("optimizer", method.EngineSettings{Optimizer: "adam"}, "optimizer", `"adam"`),
	})
	var ok method.EngineSettings
	ok.SetDefaults()
	if err := ok.Validate(); err != nil {
		t.Fatalf("the defaults: %v", err)
	}
	ok.SetWordDefaults()
	if err := ok.Validate(); err != nil {
		t.Fatalf("the defaults with their words: %v", err)
	}
	if ok.Method != marginal.MethodAuto || ok.Score != measurement.IInDif || ok.Selection != measurement.SelectExponential {
		t.Errorf("word defaults %+v", ok)
	}
}

// A split that cannot run the adaptive method refuses each of its
// settings by its key, and the defaults pass.
func TestRefuseAdaptive(t *testing.T) {
	cases := []struct {
		name string
		st   method.EngineSettings
		key  string
	}{
		{"method", method.EngineSettings{Method: marginal.MethodAdaptive}, "method"},
		{"label", method.EngineSettings{Label: "income"}, "label"},
		{"model cells", method.EngineSettings{MaxModelCells: 10}, "max_model_cells"},
		{"rounds", method.EngineSettings{AdaptiveRounds: 40}, "adaptive_rounds"},
		{"selection", method.EngineSettings{Selection: measurement.SelectPermuteAndFlip}, "selection"},
		{"penalty", method.EngineSettings{Penalty: marginal.PenaltyAIM}, "penalty"},
		{"optimizer", method.EngineSettings{Optimizer: marginal.OptimizerMomentum}, "optimizer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			methodtest.FieldMistake(t, c.st.RefuseAdaptive("no"), c.key, "")
		})
	}
	for _, st := range []method.EngineSettings{{}, {Method: marginal.MethodPaper}, {Method: marginal.MethodAuto}} {
		if err := st.RefuseAdaptive("no"); err != nil {
			t.Errorf("%+v refused: %v", st, err)
		}
		st.SetWordDefaults()
		if err := st.RefuseAdaptive("no"); err != nil {
			t.Errorf("%+v with its word defaults refused: %v", st, err)
		}
	}
}

// A command refuses, by the key neighbours, a relation it does not
// support and one that does not exist, like a split that cannot run the
// adaptive method; the relations it supports (the default among them)
// pass.
func TestCheckNeighbours(t *testing.T) {
	for _, c := range []struct {
		nb   dp.Neighbours
		want string // "" for accepted
	}{
		{"", ""},
		{dp.NeighboursReplaceOne, ""},
		{dp.NeighboursAddRemove, "synthesize-rows does not support --neighbours add-remove (supported: [replace-one])"},
		{"swap", `unknown neighbouring relation "swap"`},
	} {
		t.Run(string(c.nb), func(t *testing.T) {
			err := method.CheckNeighbours("synthesize-rows", c.nb, dp.NeighboursReplaceOne)
			if c.want == "" {
				if err != nil {
					t.Errorf("refused: %v", err)
				}
				return
			}
			methodtest.FieldMistake(t, err, "neighbours", c.want)
		})
	}
}
